// Model references: the hf: quant and explicit-file forms, plain URLs, the endpoint override, and
// errors that show the right form.
import { describe, expect, it } from "vitest";
import { SparkError } from "../protocol/spark-error.ts";
import { parseModelReference } from "./parse-model-reference.ts";

function referenceError(reference: string, env = {}): SparkError {
  try {
    parseModelReference(reference, env);
  } catch (error) {
    expect(error).toBeInstanceOf(SparkError);
    return error as SparkError;
  }
  throw new Error(`expected ${reference} to be rejected`);
}

describe("parseModelReference", () => {
  it("derives the file name from a quant tag", () => {
    expect(parseModelReference("hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF:Q4_K_M", {})).toEqual({
      kind: "huggingface",
      repository: "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
      filePath: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
      fileName: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
      url: "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    });
  });

  it("accepts an explicit file, also in a subfolder", () => {
    const reference = parseModelReference(
      "hf:bartowski/Some-Model-GGUF/Q8/Some Model-Q8_0.gguf",
      {},
    );
    expect(reference).toMatchObject({
      repository: "bartowski/Some-Model-GGUF",
      filePath: "Q8/Some Model-Q8_0.gguf",
      fileName: "Some Model-Q8_0.gguf",
      url: "https://huggingface.co/bartowski/Some-Model-GGUF/resolve/main/Q8/Some%20Model-Q8_0.gguf",
    });
  });

  it("honours SPARK_HF_ENDPOINT", () => {
    const reference = parseModelReference("hf:a/b-GGUF:Q2_K", {
      SPARK_HF_ENDPOINT: "http://127.0.0.1:9999/",
    });
    expect(reference.url).toBe("http://127.0.0.1:9999/a/b-GGUF/resolve/main/b-q2_k.gguf");
    expect(referenceError("hf:a/b:Q2_K", { SPARK_HF_ENDPOINT: "ftp://x" }).code).toBe(
      "invalid_config",
    );
  });

  it("accepts http(s) URLs of .gguf files", () => {
    expect(parseModelReference("https://example.com/m/tiny%20one.gguf?download=1", {})).toEqual({
      kind: "url",
      url: "https://example.com/m/tiny%20one.gguf?download=1",
      fileName: "tiny one.gguf",
    });
  });

  it.each([
    "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
    "hf:Qwen",
    "hf:Qwen/Repo",
    "hf:Qwen/Repo:",
    "hf:Qwen/Repo/readme.md",
    "hf:/Repo:Q4",
    "https://example.com/",
  ])("rejects %s with an example of the right form", (reference) => {
    const error = referenceError(reference);
    expect(error.code).toBe("invalid_request");
    expect(error.message).toContain("hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF:Q4_K_M");
  });
});
