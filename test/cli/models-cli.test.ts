// The model commands as a user runs them, in child processes: `spark pull` from a loopback
// server that answers like Hugging Face, first use pulling the default model, the offline error,
// and `spark prompt --stats` on the downloaded file.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LOCAL_MODEL } from "../../src/models/default-local-model.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { startModelFileServer, type ModelFileServer } from "../models/model-file-server.ts";
import { closedPort, runSpark as runSparkCli, type RunResult } from "./support/run-spark-cli.ts";

/** `spark <args>` with SPARK_THREADS=1 unless a test sets it. */
function runSpark(args: string[], env: Record<string, string>, cwd: string): Promise<RunResult> {
  return runSparkCli(args, { SPARK_THREADS: "1", ...env }, cwd);
}

describe("spark pull, first use and prompt", () => {
  let server: ModelFileServer;
  let home: string;
  let modelBytes: Buffer;
  beforeAll(async () => {
    modelBytes = await readFile(await ensureTestModel());
    server = await startModelFileServer({ body: modelBytes });
    home = await mkdtemp(join(tmpdir(), "spark-cli-home-"));
  });
  afterAll(async () => {
    await server?.close();
    await rm(home, { recursive: true, force: true });
  });

  it("first use with nothing configured pulls the default model and answers", async () => {
    const result = await runSpark(
      ["prompt", "hello", "--max-tokens", "4", "--stats"],
      { SPARK_HOME: home, SPARK_HF_ENDPOINT: server.origin },
      home,
    );
    expect(result.stderr).toContain("downloading the default model");
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/time to first token [\d.]+ ms/);
    const pulled = await readFile(join(home, "models", DEFAULT_LOCAL_MODEL.fileName));
    expect(pulled.equals(modelBytes)).toBe(true);
  });

  it("spark pull downloads an hf: reference with its checksum verified", async () => {
    const result = await runSpark(
      ["pull", "hf:spark/Tiny-Model-GGUF:F32"],
      { SPARK_HOME: home, SPARK_HF_ENDPOINT: server.origin },
      home,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("tiny-model-f32.gguf");
    expect(result.stdout).toContain("sha256 verified");
    const listing = await runSpark(["models"], { SPARK_HOME: home }, home);
    expect(listing.stdout).toContain("tiny-model-f32.gguf");
  });

  it("offline first use says how to point at a local file or a provider", async () => {
    const emptyHome = await mkdtemp(join(tmpdir(), "spark-cli-offline-"));
    const result = await runSpark(
      ["prompt", "hello"],
      { SPARK_HOME: emptyHome, SPARK_HF_ENDPOINT: `http://127.0.0.1:${await closedPort()}` },
      emptyHome,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("--model /path/to/model.gguf");
    expect(result.stderr).toMatch(/cerebras/i);
    await rm(emptyHome, { recursive: true, force: true });
  });

  it("an unknown model name is a clear error", async () => {
    const result = await runSpark(
      ["prompt", "hello", "--model", "nope"],
      { SPARK_HOME: home },
      home,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Unknown model "nope"');
  });
});
