// A loopback HTTP proxy that records every request a client sends (method, target, headers, JSON
// body) on its way to a Spark server, and passes the answer back unchanged, streamed as it comes:
// what a real client really sends, checked by the test that drives it.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
}

export interface RecordingProxy {
  url: string;
  requests: RecordedRequest[];
  close: () => Promise<void>;
}

export async function startRecordingProxy(targetUrl: string): Promise<RecordingProxy> {
  const target = new URL(targetUrl);
  const requests: RecordedRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      requests.push({
        method: request.method ?? "GET",
        url: request.url ?? "/",
        headers: request.headers,
        body:
          body.length === 0 ? undefined : (JSON.parse(body.toString()) as Record<string, unknown>),
      });
      const upstream = http.request(
        {
          host: target.hostname,
          port: target.port,
          method: request.method,
          path: request.url,
          headers: { ...request.headers, host: target.host },
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on("error", () => response.destroy());
      // A client that hangs up reaches the server as a hang-up too.
      response.on("close", () => upstream.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
