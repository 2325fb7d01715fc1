// Turns what a user types after `spark pull` into a download URL and a file name:
// `hf:user/repo:QUANT`, `hf:user/repo/path/file.gguf`, or a plain http(s) URL to a .gguf.
import { SparkError } from "../protocol/spark-error.ts";

export type ModelReference =
  | {
      kind: "huggingface";
      /** `user/repo` */
      repository: string;
      /** Path of the file inside the repository. */
      filePath: string;
      url: string;
      fileName: string;
    }
  | { kind: "url"; url: string; fileName: string };

export const DEFAULT_HF_ENDPOINT = "https://huggingface.co";

const EXAMPLES =
  "Use hf:<user>/<repo>:<quant> (e.g. hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF:Q4_K_M), " +
  "hf:<user>/<repo>/<file>.gguf, or an https:// URL of a .gguf file.";

/** `SPARK_HF_ENDPOINT` replaces https://huggingface.co (mirrors, and tests on loopback). */
export function parseModelReference(
  reference: string,
  env: Record<string, string | undefined> = process.env,
): ModelReference {
  const trimmed = reference.trim();
  if (trimmed.startsWith("hf:"))
    return parseHuggingFaceReference(trimmed, huggingFaceEndpoint(env));
  if (/^https?:\/\//i.test(trimmed)) return parseUrlReference(trimmed);
  throw invalidReference(reference, "it is neither an hf: reference nor an http(s) URL");
}

function parseHuggingFaceReference(reference: string, endpoint: string): ModelReference {
  const body = reference.slice("hf:".length);
  const quantSeparator = body.lastIndexOf(":");
  let repository: string;
  let filePath: string;
  if (quantSeparator !== -1) {
    repository = body.slice(0, quantSeparator);
    const quant = body.slice(quantSeparator + 1);
    if (!isRepository(repository))
      throw invalidReference(reference, "expected <user>/<repo> before the quant");
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(quant)) {
      throw invalidReference(reference, "the quant after ':' must look like Q4_K_M");
    }
    // The naming convention of official GGUF repos: <repo without -GGUF>-<quant>.gguf, lowercased.
    const repoName = repository.split("/")[1] ?? "";
    filePath = `${repoName.replace(/-gguf$/i, "").toLowerCase()}-${quant.toLowerCase()}.gguf`;
  } else {
    const segments = body.split("/");
    repository = segments.slice(0, 2).join("/");
    filePath = segments.slice(2).join("/");
    if (
      !isRepository(repository) ||
      filePath === "" ||
      segments.some((segment) => segment === "")
    ) {
      throw invalidReference(
        reference,
        "expected <user>/<repo>:<quant> or <user>/<repo>/<file>.gguf",
      );
    }
    if (!filePath.toLowerCase().endsWith(".gguf")) {
      throw invalidReference(reference, "the file must be a .gguf");
    }
  }
  const encodedPath = filePath.split("/").map(encodeURIComponent).join("/");
  const encodedRepository = repository.split("/").map(encodeURIComponent).join("/");
  return {
    kind: "huggingface",
    repository,
    filePath,
    url: `${endpoint}/${encodedRepository}/resolve/main/${encodedPath}`,
    fileName: filePath.split("/").at(-1) ?? filePath,
  };
}

function parseUrlReference(reference: string): ModelReference {
  let url: URL;
  try {
    url = new URL(reference);
  } catch {
    throw invalidReference(reference, "it is not a valid URL");
  }
  const fileName = decodeURIComponent(url.pathname.split("/").at(-1) ?? "");
  if (!fileName.toLowerCase().endsWith(".gguf")) {
    throw invalidReference(reference, "the URL's path must end in a .gguf file name");
  }
  return { kind: "url", url: url.href, fileName };
}

function huggingFaceEndpoint(env: Record<string, string | undefined>): string {
  const configured = env.SPARK_HF_ENDPOINT?.trim();
  if (configured === undefined || configured === "") return DEFAULT_HF_ENDPOINT;
  if (!/^https?:\/\/[^/]/i.test(configured)) {
    throw new SparkError(
      "invalid_config",
      `SPARK_HF_ENDPOINT: expected an http(s) URL such as ${DEFAULT_HF_ENDPOINT}, got ${JSON.stringify(configured)}`,
    );
  }
  return configured.replace(/\/+$/, "");
}

function isRepository(value: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value);
}

function invalidReference(reference: string, reason: string): SparkError {
  return new SparkError(
    "invalid_request",
    `Cannot use ${JSON.stringify(reference)} as a model: ${reason}. ${EXAMPLES}`,
  );
}
