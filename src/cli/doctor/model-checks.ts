// Each configured model checked the way it will be used: a GGUF or script file that exists and
// reads as one, an upstream whose base URL answers (any HTTP status counts: no key is sent).
import { access, constants } from "node:fs/promises";
import type { ModelConfig } from "../../config/config-types.ts";
import { describeModelFile, formatModelFile } from "../../engines/llama-cpp/inspect.ts";
import { describeTruncation } from "../../engines/llama-cpp/inspect.ts";
import { checkModelFile } from "../../engines/llama-cpp/inspect.ts";
import { SparkError } from "../../protocol/spark-error.ts";

export type CheckStatus = "ok" | "warning" | "error" | "skipped";

export interface ModelCheck {
  name: string;
  engine: ModelConfig["engine"];
  isDefault: boolean;
  /** The file or base URL(s) checked. */
  target: string;
  status: CheckStatus;
  detail: string;
}

export interface ModelCheckOptions {
  offline: boolean;
  /** Per upstream request. */
  timeoutMs: number;
}

export async function checkModel(
  name: string,
  model: ModelConfig,
  isDefault: boolean,
  options: ModelCheckOptions,
): Promise<ModelCheck> {
  const base = { name, engine: model.engine, isDefault };
  switch (model.engine) {
    case "llama-cpp":
      return { ...base, target: model.path, ...(await checkGguf(model.path)) };
    case "script":
      return { ...base, target: model.path, ...(await checkReadable(model.path)) };
    case "openai-compatible": {
      const urls = model.baseUrls ?? [model.baseUrl];
      const target = urls.join(", ");
      if (options.offline) return { ...base, target, status: "skipped", detail: "--offline" };
      const results = await Promise.all(urls.map((url) => checkReachable(url, options.timeoutMs)));
      const failed = results.filter((result) => result.status !== "ok");
      return {
        ...base,
        target,
        status: failed.length === 0 ? "ok" : "error",
        detail: results.map((result) => result.detail).join("; "),
      };
    }
    default:
      return model satisfies never;
  }
}

/**
 * Reads the header once; only when that fails does `checkModelFile` look again, to word why
 * (missing, not a file, not GGUF) the way loading the model would.
 */
async function checkGguf(path: string): Promise<{ status: CheckStatus; detail: string }> {
  try {
    const description = await describeModelFile(path, { tensorData: true });
    const truncation =
      description.tensorData === undefined ? undefined : describeTruncation(description.tensorData);
    if (truncation !== undefined) {
      return {
        status: "error",
        detail: `${path}: ${truncation}; download it again (\`spark pull\` resumes).`,
      };
    }
    return { status: "ok", detail: formatModelFile(description) };
  } catch (headerError) {
    try {
      await checkModelFile(path);
    } catch (error) {
      const message =
        error instanceof SparkError ? error.message : `cannot read it: ${String(error)}`;
      return { status: "error", detail: message };
    }
    return { status: "error", detail: `cannot read its GGUF header: ${String(headerError)}` };
  }
}

async function checkReadable(path: string): Promise<{ status: CheckStatus; detail: string }> {
  try {
    await access(path, constants.R_OK);
    return { status: "ok", detail: "readable" };
  } catch (error) {
    return { status: "error", detail: `cannot read ${path}: ${String(error)}` };
  }
}

/** GET {baseUrl}/models without credentials: any HTTP answer means the server is there. */
async function checkReachable(
  baseUrl: string,
  timeoutMs: number,
): Promise<{ status: CheckStatus; detail: string }> {
  const url = `${baseUrl.replace(/\/+$/, "")}/models`;
  const startedAt = performance.now();
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    const milliseconds = Math.round(performance.now() - startedAt);
    return {
      status: "ok",
      detail: `${baseUrl} answered HTTP ${response.status} in ${milliseconds} ms`,
    };
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const reason =
      error instanceof Error && error.name === "TimeoutError"
        ? `no answer within ${timeoutMs} ms`
        : String(cause instanceof Error ? cause.message : cause);
    return { status: "error", detail: `${baseUrl} unreachable: ${reason}` };
  }
}
