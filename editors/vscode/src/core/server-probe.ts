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

/**
 * Long enough for a busy machine: a 2 s probe said "No Spark server answers" at startup while the
 * server answered under load (issue 38). A server that is down refuses the connection at once.
 */
const PROBE_TIMEOUT_MS = 10_000;

export async function probeServer(
  server: SparkServer,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<ServerProbe> {
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
