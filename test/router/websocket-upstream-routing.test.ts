// The router over a Responses WebSocket upstream (`transport = "websocket"`), through a real
// gateway: a 429 error frame's retry-after reaches the router, which retries the same upstream
// no sooner than asked, and the retry goes out on the session's socket.
import { afterAll, beforeAll, expect, it } from "vitest";
import { ResponsesWsUpstream } from "../openai-compatible/responses-ws-upstream.ts";
import { createResponse, startRoutedGateway, type RoutedGateway } from "./routed-gateway.ts";

let upstream: ResponsesWsUpstream;
let gateway: RoutedGateway;

beforeAll(async () => {
  upstream = await ResponsesWsUpstream.start();
  gateway = await startRoutedGateway(`
[models.codex]
engine = "openai-compatible"
base_url = "${upstream.baseUrl}"
model = "gpt-5.3-codex-spark"
api = "responses"
transport = "websocket"
[routes]
fast = "codex"
`);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

it(
  "retries a rate-limited WebSocket response after its retry-after",
  { timeout: 10_000 },
  async () => {
    upstream.respondInTurn([{ fixture: "rate-limited.jsonl" }]);
    const result = await createResponse(gateway.url, { model: "fast", input: "Say hello." });
    expect(result.status).toBe("completed");
    expect(result.text).toBe("Hello from the socket.");
    const routing = result.spark_timings?.routing;
    expect(routing).toMatchObject({ model: "codex", retries: 1, fallbacks: 0 });
    expect(routing?.attempts.map((attempt) => attempt.code ?? attempt.outcome)).toEqual([
      "rate_limited",
      "ok",
    ]);
    expect(routing?.backoff_ms).toBeGreaterThanOrEqual(2_000);
    // Both attempts went over the one socket the session holds.
    expect(upstream.creates().map(({ connection }) => connection)).toEqual([1, 1]);
  },
);
