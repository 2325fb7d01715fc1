// The route decision reaches clients: `spark_route` on response.created and the final response
// (HTTP/SSE and WebSocket), aliases and client names in /v1/models, Chat Completions routed too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReplayServer } from "../openai-compatible/replay-server.ts";
import { RawWsClient } from "../gateway/support/raw-ws-client.ts";
import { createResponse, startRoutedGateway, type RoutedGateway } from "./routed-gateway.ts";

let fast: ReplayServer;
let deep: ReplayServer;
let gateway: RoutedGateway;

beforeAll(async () => {
  [fast, deep] = await Promise.all([ReplayServer.start(), ReplayServer.start()]);
  gateway = await startRoutedGateway(`
default_model = "auto"
[models.spark]
engine = "openai-compatible"
base_url = "${fast.baseUrl}"
[models.codex]
engine = "openai-compatible"
base_url = "${deep.baseUrl}"
[routes]
fast = "spark"
deep = "codex"
review = ["deep", "fast"]
[router]
client_models = { "gpt-5.1-codex" = "fast" }
`);
});
afterAll(async () => {
  await gateway.close();
  await Promise.all([fast.close(), deep.close()]);
});

describe("the route decision on the wire", () => {
  it("auto sends security-sensitive work to deep and says why, from response.created on", async () => {
    const result = await createResponse(gateway.url, {
      input: "Tighten the password reset flow against token reuse.",
    });
    const expected = {
      route: "deep",
      models: ["codex"],
      reason: 'auto → deep: security-sensitive work: mentions "password"',
    };
    expect(result.createdRoute).toEqual(expected);
    expect(result.spark_route).toEqual(expected);
    expect(result.model).toBe("deep");
    expect(result.spark_timings?.routing?.model).toBe("codex");
    expect(deep.chatRequests().length).toBeGreaterThan(0);
  });

  it("over WebSocket, response.created and response.completed carry spark_route", async () => {
    const client = await RawWsClient.connect(gateway.url);
    try {
      client.send({ type: "response.create", model: "auto", input: "rename x to y in a.ts" });
      const created = await client.waitFor((event) => event.type === "response.created");
      const completed = await client.waitFor((event) => event.type === "response.completed");
      const route = (event: typeof created) =>
        (event.response as { spark_route?: { route: string; reason: string } }).spark_route;
      expect(route(created)).toMatchObject({
        route: "fast",
        reason: "auto → fast: short targeted instruction: 21 chars (≤ 600)",
      });
      expect(route(completed)).toEqual(route(created));
    } finally {
      client.socket.close();
    }
  });

  it("a user-defined route and a plain model name explain themselves", async () => {
    const review = await createResponse(gateway.url, { model: "review", input: "hi" });
    expect(review.spark_route).toEqual({
      route: "review",
      models: ["codex", "spark"],
      reason: "route review → codex → spark (requested)",
    });
    const plain = await createResponse(gateway.url, { model: "spark", input: "hi" });
    expect(plain.spark_route?.reason).toBe("model spark (requested)");
  });

  it("/v1/models lists the models, the routes and the mapped client names", async () => {
    const listing = (await (await fetch(`${gateway.url}/v1/models`)).json()) as {
      data: Array<{ id: string; owned_by: string }>;
    };
    expect(listing.data.map((model) => model.id).sort()).toEqual(
      ["auto", "codex", "deep", "fast", "gpt-5.1-codex", "local", "review", "spark"].sort(),
    );
  });

  it("`local`, the name the client configs in the docs use, is the default model (issue 24)", async () => {
    const local = await createResponse(gateway.url, {
      model: "local",
      input: "Tighten the password reset flow against token reuse.",
    });
    expect(local.model).toBe("local");
    expect(local.spark_route?.route).toBe("deep");
    const chat = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "local", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(chat.status).toBe(200);
  });

  it("an unknown name is model_not_found", async () => {
    const reply = await fetch(`${gateway.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4", input: "hi" }),
    });
    expect(reply.status).toBe(404);
    expect(((await reply.json()) as { error: { code: string } }).error.code).toBe(
      "model_not_found",
    );
  });

  it("Chat Completions route too, and report the attempts in spark_timings", async () => {
    const reply = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-5.1-codex", messages: [{ role: "user", content: "hi" }] }),
    });
    const completion = (await reply.json()) as {
      model: string;
      spark_timings: { routing: { model: string } };
    };
    expect(completion.model).toBe("gpt-5.1-codex");
    expect(completion.spark_timings.routing.model).toBe("spark");
  });
});
