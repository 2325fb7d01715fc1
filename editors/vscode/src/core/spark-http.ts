// POSTs a streamed request to `spark serve` and yields each SSE data payload parsed as JSON, until
// `[DONE]`. Connection, auth and HTTP failures become SparkClientErrors; an abort stays an abort.
import { readServerSentEvents } from "./server-sent-events.ts";
import { SparkClientError } from "./spark-client-error.ts";

export interface SparkServer {
  /** e.g. http://127.0.0.1:7777 */
  baseUrl: string;
  apiKey?: string | undefined;
  fetch?: typeof fetch;
}

export async function* postEventStream(
  server: SparkServer,
  path: string,
  body: unknown,
  signal: AbortSignal,
): AsyncGenerator<Record<string, unknown>> {
  const url = new URL(path, server.baseUrl.endsWith("/") ? server.baseUrl : `${server.baseUrl}/`);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
  };
  if (server.apiKey) headers.authorization = `Bearer ${server.apiKey}`;
  let response: Response;
  try {
    response = await (server.fetch ?? fetch)(url, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new SparkClientError(
      "server_unreachable",
      `No Spark server answers at ${server.baseUrl}. Start one with \`spark serve\` or set spark.serverUrl.`,
      { cause: error },
    );
  }
  if (!response.ok) throw await httpError(response, server.baseUrl);
  if (response.body === null)
    throw new SparkClientError("invalid_response", `${url.pathname} answered with no body.`);
  for await (const event of readServerSentEvents(response.body)) {
    if (event.data === "[DONE]") return;
    let payload: unknown;
    try {
      payload = JSON.parse(event.data);
    } catch (cause) {
      throw new SparkClientError(
        "invalid_response",
        `${url.pathname} sent an event that is not JSON.`,
        { cause },
      );
    }
    if (typeof payload !== "object" || payload === null) continue;
    const record = payload as Record<string, unknown>;
    if (record.error !== undefined && record.error !== null)
      throw new SparkClientError(
        "server_error",
        errorMessageOf(record) ?? "The server reported an error.",
      );
    yield record;
  }
}

async function httpError(response: Response, baseUrl: string): Promise<SparkClientError> {
  const text = await response.text().catch(() => "");
  let message: string | undefined;
  try {
    message = errorMessageOf(JSON.parse(text) as Record<string, unknown>);
  } catch {
    message = text.slice(0, 200) || undefined;
  }
  if (response.status === 401)
    return new SparkClientError(
      "unauthorized",
      `${baseUrl} refused the API key (401). Set it with the "Spark: Set API Key" command.`,
      { status: 401 },
    );
  return new SparkClientError(
    "http_error",
    `HTTP ${response.status}: ${message ?? response.statusText}`,
    {
      status: response.status,
    },
  );
}

function errorMessageOf(record: Record<string, unknown>): string | undefined {
  const error = record.error;
  if (typeof error === "string") return error;
  if (typeof error === "object" && error !== null) {
    const message = (error as Record<string, unknown>).message;
    if (typeof message === "string") return message;
  }
  return undefined;
}
