// GET that follows redirects itself, because Hugging Face puts the file's sha256 in the
// `x-linked-etag` header of its redirect, which fetch's automatic redirects would hide. undici is
// imported when a download starts: every command that may pull a model imports this file, and
// undici's import cost each start of `spark serve` or `spark exec` ~50 ms of CPU.
import type { Response } from "undici";
import { SparkError } from "../protocol/spark-error.ts";

export interface FetchedDownload {
  response: Response;
  /** A sha256 announced by any hop (x-linked-etag, or an etag that is a sha256). */
  announcedSha256: string | undefined;
}

const MAX_REDIRECTS = 10;

export async function fetchFollowingRedirects(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal | undefined,
): Promise<FetchedDownload> {
  let currentUrl = new URL(url);
  let currentHeaders = { ...headers };
  let announcedSha256: string | undefined;
  // undici is CommonJS: its exports are the default export, in Node's loader as in the bundle.
  const { fetch } = (await import("undici")).default;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    const response = await fetch(currentUrl, {
      headers: currentHeaders,
      redirect: "manual",
      signal,
    });
    announcedSha256 ??= sha256FromHeader(response.headers.get("x-linked-etag"));
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || location === null) {
      announcedSha256 ??= sha256FromHeader(response.headers.get("etag"));
      return { response, announcedSha256 };
    }
    await response.body?.cancel();
    const nextUrl = new URL(location, currentUrl);
    if (nextUrl.origin !== currentUrl.origin) {
      // Credentials are for the origin that asked for them, not the CDN it redirects to.
      currentHeaders = Object.fromEntries(
        Object.entries(currentHeaders).filter(([name]) => name.toLowerCase() !== "authorization"),
      );
    }
    currentUrl = nextUrl;
  }
  throw new SparkError("download_failed", `${url} redirected more than ${MAX_REDIRECTS} times.`);
}

/** ETags are opaque in general; a bare 64-hex one is Hugging Face's sha256 of an LFS file. */
export function sha256FromHeader(value: string | null): string | undefined {
  if (value === null) return undefined;
  const unquoted = value.trim().replace(/^W\//, "").replace(/^"|"$/g, "");
  return /^[0-9a-f]{64}$/i.test(unquoted) ? unquoted.toLowerCase() : undefined;
}
