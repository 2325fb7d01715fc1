// Asks `spark serve` whether it answers and takes the key, with GET /v1/models (which needs the key,
// unlike /healthz): the launcher must not start a second server where one answers, and a refused
// key must be named as such, not as "no server".
import type { SparkServer } from "./spark-http.ts";

export type ServerProbe =
  | { state: "up"; models: string[] }
  | { state: "unauthorized" }
  | { state: "unreachable" }
  /** Something answers, but not as spark serve does (another program on the port, a 500). */
  | { state: "error"; status: number };

export async function probeServer(server: SparkServer, timeoutMs = 2_000): Promise<ServerProbe> {
  const headers: Record<string, string> = {};
  if (server.apiKey) headers.authorization = `Bearer ${server.apiKey}`;
  let response: Response;
  try {
    response = await (server.fetch ?? fetch)(new URL("v1/models", withSlash(server.baseUrl)), {
      headers,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch {
    return { state: "unreachable" };
  }
  if (response.status === 401) return { state: "unauthorized" };
  if (!response.ok) return { state: "error", status: response.status };
  try {
    const body = (await response.json()) as { data?: { id?: unknown }[] };
    const models = (body.data ?? []).flatMap((model) =>
      typeof model.id === "string" ? [model.id] : [],
    );
    return { state: "up", models };
  } catch {
    return { state: "error", status: response.status };
  }
}

function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}
