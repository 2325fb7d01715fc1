// pullModel against a real loopback server: checksums, resuming after an abort, servers that
// ignore Range, 404, an unreachable host, and an hf: reference through SPARK_HF_ENDPOINT.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SparkError } from "../../src/protocol/spark-error.ts";
import type { DownloadProgress } from "../../src/models/download-progress.ts";
import { ensureDefaultModel } from "../../src/models/ensure-default-model.ts";
import { listLocalModels } from "../../src/models/list-local-models.ts";
import { parseModelReference } from "../../src/models/parse-model-reference.ts";
import { pullModel } from "../../src/models/pull-model.ts";
import { resolveDefaultModelPath } from "../../src/models/default-local-model.ts";
import { sha256Of, startModelFileServer, type ModelFileServer } from "./model-file-server.ts";

const body = randomBytes(256 * 1024);
let destination: string;
let server: ModelFileServer | undefined;

beforeEach(async () => {
  destination = await mkdtemp(path.join(os.tmpdir(), "spark-pull-"));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(destination, { recursive: true, force: true });
});

async function pullError(options: Parameters<typeof pullModel>[0]): Promise<SparkError> {
  const error: unknown = await pullModel(options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(SparkError);
  return error as SparkError;
}

describe("pullModel", () => {
  it("downloads the whole file and verifies the caller's checksum", async () => {
    server = await startModelFileServer({ body });
    const progress: DownloadProgress[] = [];
    const result = await pullModel({
      url: server.fileUrl("tiny.gguf"),
      destinationDirectory: path.join(destination, "models"),
      expectedSha256: sha256Of(body).toUpperCase(),
      onProgress: (update) => progress.push(update),
    });
    const finalPath = path.join(destination, "models", "tiny.gguf");
    expect(result).toMatchObject({
      path: finalPath,
      sizeBytes: body.length,
      sha256: sha256Of(body),
      verified: true,
      resumedFromBytes: 0,
      alreadyPresent: false,
    });
    expect(sha256Of(await readFile(finalPath))).toBe(sha256Of(body));
    expect(existsSync(`${finalPath}.partial`)).toBe(false);
    expect(progress.at(-1)).toMatchObject({ receivedBytes: body.length, totalBytes: body.length });
    expect(progress.every((update) => update.bytesPerSecond >= 0)).toBe(true);

    const again = await pullModel({
      url: server.fileUrl("tiny.gguf"),
      destinationDirectory: path.join(destination, "models"),
    });
    expect(again).toMatchObject({ alreadyPresent: true, sizeBytes: body.length });
    expect(server.requests).toHaveLength(1);
  });

  it("deletes the download and fails on a checksum mismatch", async () => {
    server = await startModelFileServer({ body });
    const error = await pullError({
      url: server.fileUrl("tiny.gguf"),
      destinationDirectory: destination,
      expectedSha256: "0".repeat(64),
    });
    expect(error.code).toBe("checksum_mismatch");
    expect(error.message).toContain(sha256Of(body));
    expect(existsSync(path.join(destination, "tiny.gguf"))).toBe(false);
    expect(existsSync(path.join(destination, "tiny.gguf.partial"))).toBe(false);
  });

  it("resumes with a Range request after an aborted first attempt", async () => {
    const half = body.length / 2;
    server = await startModelFileServer({ body, stallFirstResponseAfterBytes: half });
    const controller = new AbortController();
    const error = await pullError({
      url: server.fileUrl("tiny.gguf"),
      destinationDirectory: destination,
      signal: controller.signal,
      onProgress: (update) => {
        if (update.receivedBytes >= half) controller.abort();
      },
    });
    expect(error.code).toBe("cancelled");
    const partialPath = path.join(destination, "tiny.gguf.partial");
    expect((await stat(partialPath)).size).toBe(half);

    const result = await pullModel({
      url: server.fileUrl("tiny.gguf"),
      destinationDirectory: destination,
      expectedSha256: sha256Of(body),
    });
    expect(server.requests.map((request) => request.range)).toEqual([undefined, `bytes=${half}-`]);
    expect(result).toMatchObject({
      resumedFromBytes: half,
      verified: true,
      sizeBytes: body.length,
    });
    expect(sha256Of(await readFile(result.path))).toBe(sha256Of(body));
    expect(existsSync(partialPath)).toBe(false);
  });

  it("starts over when the server ignores the Range header", async () => {
    server = await startModelFileServer({ body, ignoreRange: true });
    await writeFile(path.join(destination, "tiny.gguf.partial"), randomBytes(1000));
    const result = await pullModel({
      url: server.fileUrl("tiny.gguf"),
      destinationDirectory: destination,
      expectedSha256: sha256Of(body),
    });
    expect(server.requests[0]?.range).toBe("bytes=1000-");
    expect(result).toMatchObject({ resumedFromBytes: 0, sizeBytes: body.length, verified: true });
    expect(sha256Of(await readFile(result.path))).toBe(sha256Of(body));
  });

  it("finishes a download whose bytes all arrived before it was interrupted", async () => {
    server = await startModelFileServer({ body });
    await writeFile(path.join(destination, "tiny.gguf.partial"), body);
    const result = await pullModel({
      url: server.fileUrl("tiny.gguf"),
      destinationDirectory: destination,
      expectedSha256: sha256Of(body),
    });
    expect(result).toMatchObject({ resumedFromBytes: body.length, verified: true });
  });

  it("reports a missing file as model_not_found naming the URL", async () => {
    server = await startModelFileServer({ body });
    const url = `${server.origin}/nothing/here.gguf`;
    const error = await pullError({ url, destinationDirectory: destination });
    expect(error.code).toBe("model_not_found");
    expect(error.status).toBe(404);
    expect(error.message).toContain(url);
  });

  it("reports an unreachable host as offline, with guidance", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await pullError({
      url: `http://127.0.0.1:${port}/files/tiny.gguf`,
      destinationDirectory: destination,
    });
    expect(error.code).toBe("offline");
    expect(error.message).toContain("ECONNREFUSED");
    expect(error.message).toContain("spark prompt --model /path/to/model.gguf");
    expect(error.message).toContain("SPARK_MODEL_PATH=");
    expect(error.message).toContain('preset = "cerebras"');
    expect(error.message).toContain("CEREBRAS_API_KEY");
  });
});

describe("pulling hf: references", () => {
  const reference = "hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF:Q4_K_M";

  it("follows the redirect and verifies the sha256 it announces", async () => {
    server = await startModelFileServer({ body });
    const resolved = parseModelReference(reference, { SPARK_HF_ENDPOINT: `${server.origin}/` });
    const result = await pullModel({ url: resolved.url, destinationDirectory: destination });
    expect(result).toMatchObject({
      path: path.join(destination, "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"),
      verified: true,
      sha256: sha256Of(body),
    });
    expect(server.requests.map((request) => request.path)).toEqual([
      "/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
      "/files/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    ]);
  });

  it("rejects a file that does not match the announced sha256", async () => {
    server = await startModelFileServer({ body, linkedSha256: "ab".repeat(32) });
    const resolved = parseModelReference(reference, { SPARK_HF_ENDPOINT: server.origin });
    const error = await pullError({ url: resolved.url, destinationDirectory: destination });
    expect(error.code).toBe("checksum_mismatch");
  });

  it("pulls the default model on first use, then finds it", async () => {
    server = await startModelFileServer({ body });
    const env = { SPARK_HF_ENDPOINT: server.origin };
    const sparkHome = path.join(destination, "spark-home");
    const missing = await resolveDefaultModelPath({ sparkHome, env });
    expect(missing.status).toBe("missing");
    const starts: string[] = [];
    const modelPath = await ensureDefaultModel({
      sparkHome,
      env,
      onPullStart: (details) => starts.push(details.reference),
    });
    expect(starts).toEqual([reference]);
    expect(await resolveDefaultModelPath({ sparkHome, env })).toEqual({
      status: "present",
      path: modelPath,
      sizeBytes: body.length,
    });
    expect(await ensureDefaultModel({ sparkHome, env })).toBe(modelPath);
    expect(server.requests).toHaveLength(2);
    const listed = await listLocalModels(sparkHome);
    expect(listed.map((model) => [model.fileName, model.sizeBytes])).toEqual([
      ["qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", body.length],
    ]);
  });
});
