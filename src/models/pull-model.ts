// Downloads a model file into <dest>/<file>.partial, resuming where an earlier attempt stopped,
// verifies its sha256 when one is known, and only then renames it into place atomically.
import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { SparkError } from "../protocol/spark-error.ts";
import type { DownloadProgress } from "./download-progress.ts";
import { httpStatusError, toDownloadError } from "./download-errors.ts";
import { fetchFollowingRedirects } from "./fetch-following-redirects.ts";

export interface PullModelOptions {
  url: string;
  destinationDirectory: string;
  /** Defaults to the last segment of the URL's path. */
  fileName?: string;
  /** Hex sha256; when absent, one announced by the server (Hugging Face does) is used. */
  expectedSha256?: string;
  /** Extra request headers, e.g. `Authorization: Bearer <HF token>` for gated repositories. */
  headers?: Record<string, string>;
  /** Download again even if the file is already there. */
  force?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: DownloadProgress) => void;
}

export interface PullModelResult {
  path: string;
  sizeBytes: number;
  /** Undefined only when the file was already present and nothing was downloaded. */
  sha256: string | undefined;
  /** Whether sha256 was checked against a known value (caller's or the server's). */
  verified: boolean;
  /** Bytes reused from an earlier, interrupted attempt. */
  resumedFromBytes: number;
  alreadyPresent: boolean;
}

export async function pullModel(options: PullModelOptions): Promise<PullModelResult> {
  const fileName = options.fileName ?? fileNameFromUrl(options.url);
  if (fileName === "" || fileName !== path.basename(fileName) || fileName.startsWith(".")) {
    throw new SparkError("invalid_request", `Cannot save a model as ${JSON.stringify(fileName)}.`);
  }
  const expectedSha256 = options.expectedSha256?.trim().toLowerCase();
  if (expectedSha256 !== undefined && !/^[0-9a-f]{64}$/.test(expectedSha256)) {
    throw new SparkError("invalid_request", "expectedSha256 must be 64 hex characters.");
  }
  const finalPath = path.join(options.destinationDirectory, fileName);
  const partialPath = `${finalPath}.partial`;
  if (options.force !== true) {
    const existing = await fileSize(finalPath);
    if (existing !== undefined) {
      return {
        path: finalPath,
        sizeBytes: existing,
        sha256: undefined,
        verified: false,
        resumedFromBytes: 0,
        alreadyPresent: true,
      };
    }
  }
  await mkdir(options.destinationDirectory, { recursive: true });

  // A second attempt happens only when the server's answer to a Range request is unusable.
  for (let attempt = 0; ; attempt += 1) {
    const outcome = await downloadOnce(options, partialPath, expectedSha256);
    if (outcome === "restart" && attempt === 0) {
      await unlink(partialPath).catch(() => undefined);
      continue;
    }
    if (outcome === "restart") {
      throw new SparkError(
        "download_failed",
        `${options.url} kept answering the wrong byte range.`,
      );
    }
    await rename(partialPath, finalPath);
    return { path: finalPath, alreadyPresent: false, ...outcome };
  }
}

type DownloadOutcome = Omit<PullModelResult, "path" | "alreadyPresent"> | "restart";

async function downloadOnce(
  options: PullModelOptions,
  partialPath: string,
  callerSha256: string | undefined,
): Promise<DownloadOutcome> {
  const { url, signal } = options;
  const offset = (await fileSize(partialPath)) ?? 0;
  // Byte offsets only mean something in the file as stored, so no transfer compression.
  const headers: Record<string, string> = { ...options.headers, "accept-encoding": "identity" };
  if (offset > 0) headers.range = `bytes=${offset}-`;

  let fetched;
  try {
    fetched = await fetchFollowingRedirects(url, headers, signal);
  } catch (error) {
    throw toDownloadError(error, url, signal, offset);
  }
  const { response, announcedSha256 } = fetched;
  const expectedSha256 = callerSha256 ?? announcedSha256;

  let startAt: number;
  let totalBytes: number | undefined;
  if (response.status === 206) {
    const range = parseContentRange(response.headers.get("content-range"));
    if (range?.start !== offset) {
      await response.body?.cancel();
      return "restart";
    }
    startAt = offset;
    totalBytes = range.total;
  } else if (response.status === 200) {
    // The server ignored the Range header and sent the whole file: start over.
    startAt = 0;
    totalBytes = contentLength(response.headers.get("content-length"));
  } else if (response.status === 416 && offset > 0) {
    await response.body?.cancel();
    const total = parseContentRange(response.headers.get("content-range"))?.total;
    if (total !== offset) return "restart";
    // The earlier attempt got every byte but stopped before verifying and renaming.
    startAt = offset;
    totalBytes = total;
  } else {
    await response.body?.cancel();
    throw httpStatusError(response.status, url);
  }

  const hash = createHash("sha256");
  if (startAt > 0) await hashFile(partialPath, hash);
  const handle = await open(partialPath, startAt > 0 ? "a" : "w");
  let receivedBytes = startAt;
  const startedAt = performance.now();
  const report = (): void => {
    const seconds = (performance.now() - startedAt) / 1000;
    const bytesPerSecond = seconds > 0 ? (receivedBytes - startAt) / seconds : 0;
    options.onProgress?.({ receivedBytes, totalBytes, bytesPerSecond });
  };
  try {
    if (response.status !== 416 && response.body !== null) {
      // undici types the body as ReadableStream<any>; a fetch body always yields Uint8Array.
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        await handle.write(chunk);
        hash.update(chunk);
        receivedBytes += chunk.byteLength;
        report();
      }
    }
    // A crash right after the rename must not leave a file whose tail is still in the page cache.
    await handle.sync();
  } catch (error) {
    throw toDownloadError(error, url, signal, receivedBytes);
  } finally {
    await handle.close();
  }
  if (totalBytes !== undefined && receivedBytes !== totalBytes) {
    throw new SparkError(
      "network_error",
      `The download of ${url} ended at ${receivedBytes} of ${totalBytes} bytes. Pull again to resume.`,
      { retryable: true },
    );
  }
  report();
  const sha256 = hash.digest("hex");
  if (expectedSha256 !== undefined && sha256 !== expectedSha256) {
    await unlink(partialPath).catch(() => undefined);
    throw new SparkError(
      "checksum_mismatch",
      `The file downloaded from ${url} has sha256 ${sha256}, expected ${expectedSha256}. ` +
        "It was deleted; pull again, and if this repeats the file on the server has changed.",
      { retryable: true },
    );
  }
  return {
    sizeBytes: receivedBytes,
    sha256,
    verified: expectedSha256 !== undefined,
    resumedFromBytes: startAt,
  };
}

function fileNameFromUrl(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.split("/").at(-1) ?? "");
  } catch {
    throw new SparkError("invalid_request", `${JSON.stringify(url)} is not a valid URL.`);
  }
}

async function fileSize(filePath: string): Promise<number | undefined> {
  try {
    const stats = await stat(filePath);
    return stats.isFile() ? stats.size : undefined;
  } catch {
    return undefined;
  }
}

async function hashFile(filePath: string, hash: Hash): Promise<void> {
  for await (const chunk of createReadStream(filePath)) hash.update(chunk as Buffer);
}

// "bytes 100-199/200" gives start 100, total 200; "bytes * /200" (no space) gives only the total.
function parseContentRange(
  value: string | null,
): { start: number | undefined; total: number | undefined } | undefined {
  const match = value === null ? null : /^bytes (?:(\d+)-\d+|\*)\/(\d+|\*)$/.exec(value.trim());
  if (match === null) return undefined;
  return {
    start: match[1] === undefined ? undefined : Number(match[1]),
    total: match[2] === undefined || match[2] === "*" ? undefined : Number(match[2]),
  };
}

function contentLength(value: string | null): number | undefined {
  return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
}
