// A loopback HTTP server that serves one file the way Hugging Face and its CDN do (Range support,
// a redirect carrying x-linked-etag), with switches for the misbehaviours pullModel must survive.
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ModelFileServerOptions {
  body: Buffer;
  /** Answer every request with the whole file and 200, as servers without Range support do. */
  ignoreRange?: boolean;
  /** On the first request, send only this many bytes and then hold the connection open. */
  stallFirstResponseAfterBytes?: number;
  /** Sent as x-linked-etag on the Hugging Face redirect; defaults to the body's real sha256. */
  linkedSha256?: string;
}

export interface RecordedRequest {
  path: string;
  range: string | undefined;
}

export interface ModelFileServer {
  origin: string;
  /** Serves the file with Range support at /files/<name>. */
  fileUrl(name: string): string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export function sha256Of(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

export async function startModelFileServer(
  options: ModelFileServerOptions,
): Promise<ModelFileServer> {
  const requests: RecordedRequest[] = [];
  const { body } = options;
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    requests.push({ path: url.pathname, range: request.headers.range });
    const resolveMatch = /^\/([^/]+\/[^/]+)\/resolve\/main\/(.+\.gguf)$/.exec(url.pathname);
    if (resolveMatch !== null) {
      // Hugging Face: the resolve URL redirects to a CDN and announces the LFS sha256.
      response.writeHead(302, {
        location: `/files/${resolveMatch[2] ?? ""}`,
        "x-linked-etag": `"${options.linkedSha256 ?? sha256Of(body)}"`,
        "x-linked-size": String(body.length),
      });
      response.end();
      return;
    }
    if (!url.pathname.startsWith("/files/")) {
      response.writeHead(404, { "content-type": "text/plain" }).end("Entry not found");
      return;
    }
    const range = /^bytes=(\d+)-$/.exec(request.headers.range ?? "");
    const start = range !== null && options.ignoreRange !== true ? Number(range[1]) : 0;
    if (start >= body.length && start > 0) {
      response.writeHead(416, { "content-range": `bytes */${body.length}` }).end();
      return;
    }
    const part = body.subarray(start);
    const headers: http.OutgoingHttpHeaders = {
      "content-type": "application/octet-stream",
      "content-length": part.length,
      "accept-ranges": options.ignoreRange === true ? "none" : "bytes",
    };
    if (start > 0) headers["content-range"] = `bytes ${start}-${body.length - 1}/${body.length}`;
    response.writeHead(start > 0 ? 206 : 200, headers);
    const stallAfter = options.stallFirstResponseAfterBytes;
    if (stallAfter !== undefined && requests.length === 1) {
      response.write(part.subarray(0, stallAfter));
      return; // never ends: the client has to give up (abort) on its own
    }
    response.end(part);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    fileUrl: (name) => `${origin}/files/${name}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
