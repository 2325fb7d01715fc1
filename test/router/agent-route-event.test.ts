// The agent surfaces each route decision as a `route` event: in process through the router (auto
// decided per model call on the request), and through a gateway from response.created.
import { afterEach, describe, expect, it } from "vitest";
import { GatewayModelClient } from "../../src/agent/model-client/gateway-model-client.ts";
import type { ModelRoute } from "../../src/agent/model-client/model-client.ts";
import { RoutedModelClient } from "../../src/agent/model-client/routed-model-client.ts";
import type { LoadedConfig } from "../../src/config/config-types.ts";
import { collectStream } from "../../src/engines/collect-stream.ts";
import { createScriptEngine } from "../../src/engines/script/script-engine.ts";
import { ModelRegistry } from "../../src/router/model-registry.ts";
import { Router } from "../../src/router/router.ts";
import {
  createAgentWorkspace,
  eventsOfType,
  startScriptedSession,
  type AgentWorkspace,
} from "../agent/support/agent-workspace.ts";
import { ReplayServer } from "../openai-compatible/replay-server.ts";
import { startRoutedGateway } from "./routed-gateway.ts";

const config: LoadedConfig = {
  models: {
    spark: { engine: "script", path: "spark.jsonl" },
    codex: { engine: "script", path: "codex.jsonl" },
  },
  serve: {} as LoadedConfig["serve"],
  agent: { workspaceRoots: [] },
  sandbox: { mode: "auto", network: false, env: [] },
  router: {
    routes: { fast: ["spark"], deep: ["codex"] },
    clientModels: {},
    retry: {},
    breaker: {},
  },
  providerKeys: {},
  sources: [],
  sparkHome: "/nonexistent",
};

let workspace: AgentWorkspace | undefined;
afterEach(() => workspace?.remove());

describe("route events", () => {
  it("an in-process agent on auto says which model each turn went to and why", async () => {
    const registry = new ModelRegistry({
      config,
      createEngine: (name) =>
        createScriptEngine({ turns: [{ text: `${name} answered.` }], model: name }),
    });
    const router = new Router({ registry, config: config.router });
    workspace = createAgentWorkspace();
    const { session, events } = await startScriptedSession(workspace, [], {
      client: new RoutedModelClient(router, "auto"),
    });
    const deep = await session.submit("Check the session cookie handling for CSRF.");
    expect(deep.text).toBe("codex answered.");
    const fast = await session.submit("rename x to y in a.ts");
    expect(fast.text).toBe("spark answered.");
    const routes = eventsOfType(events, "route");
    expect(routes.map(({ model, reason }) => ({ model, reason }))).toEqual([
      { model: "codex", reason: 'auto → deep: security-sensitive work: mentions "session cookie"' },
      { model: "spark", reason: "auto → fast: short targeted instruction: 21 chars (≤ 600)" },
    ]);
    const types = events.map((event) => event.type);
    expect(types.indexOf("route")).toBeGreaterThan(types.indexOf("turn-started"));
    expect(types.indexOf("route")).toBeLessThan(types.indexOf("text-delta"));
    await registry.dispose();
  });

  it("a gateway client reports the gateway's spark_route", async () => {
    const upstream = await ReplayServer.start();
    const gateway = await startRoutedGateway(`
[models.spark]
engine = "openai-compatible"
base_url = "${upstream.baseUrl}"
[routes]
fast = "spark"
`);
    const client = new GatewayModelClient({ url: gateway.url });
    try {
      const told: ModelRoute[] = [];
      const result = await collectStream(
        client.stream(
          { model: "fast", messages: [{ role: "user", content: "hi" }] },
          { onRoute: (route) => told.push(route) },
        ),
      );
      expect(result.finishReason).toBe("stop");
      expect(told).toEqual([{ model: "spark", reason: "route fast → spark (requested)" }]);
    } finally {
      await client.close();
      await gateway.close();
      await upstream.close();
    }
  });
});
