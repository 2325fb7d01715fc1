// gateway_overhead_ms is the gateway's own work: preparing a turn counts its parsing and building,
// not the time the model resolver (a router) keeps it waiting.
import { describe, expect, it } from "vitest";
import { createSyntheticEngine } from "../../engines/synthetic/synthetic-engine.ts";
import { GatewayClock } from "../gateway-clock.ts";
import { modelsFromEngine, type GatewayModels } from "../gateway-models.ts";
import { prepareTurn } from "./prepare-turn.ts";
import { MemoryGatewayStore } from "../store/memory-gateway-store.ts";

const RESOLVER_WAIT_MS = 300;

describe("prepareTurn", () => {
  it("times its own work into the clock, not the wait for the model resolver", async () => {
    const engine = createSyntheticEngine({ tokens: 1 });
    const direct = modelsFromEngine(engine);
    const slowResolver: GatewayModels = {
      list: () => direct.list(),
      async resolve(model, request) {
        await new Promise((resolve) => setTimeout(resolve, RESOLVER_WAIT_MS));
        return direct.resolve(model, request);
      },
    };
    const clock = new GatewayClock();
    const startedAt = performance.now();
    const turn = await prepareTurn(
      { body: { model: "synthetic", input: "hello" }, apiKey: undefined, receivedAt: 0, clock },
      {
        models: slowResolver,
        store: new MemoryGatewayStore({
          responses: { maxEntries: 10, maxBytes: 1 << 20, ttlMs: 60_000 },
          liveGraceMs: 0,
        }),
        contextLimitTokens: 1000,
      },
    );
    const elapsedMs = performance.now() - startedAt;
    expect(turn.model).toBe("synthetic");
    expect(elapsedMs).toBeGreaterThanOrEqual(RESOLVER_WAIT_MS - 1);
    // Whatever the machine's load, the resolver's wait is not in it (it was, whole, before).
    expect(clock.overheadMs).toBeGreaterThan(0);
    expect(clock.overheadMs).toBeLessThan(elapsedMs - RESOLVER_WAIT_MS + 1);
    await engine.dispose();
  });
});
