// The serving process of the store benchmark: createGateway over a synthetic engine, as `spark
// serve` builds it, with the in-process memory store or a Redis one; reports its own CPU time over
// IPC, so the store's cost is measured in the process that pays it.
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { createGateway, modelsFromEngine } from "../../src/gateway/index.ts";
import { resolveServeConfig } from "../../src/gateway/serve-config.ts";
import type { GatewayStore, StoredResponse } from "../../src/gateway/store/gateway-store.ts";
import { openGatewayStore } from "../../src/gateway/store/open-gateway-store.ts";

export interface StoreBenchSpec {
  /** A Redis URL, or none for this process's memory. */
  store?: string;
  tokensPerSecond: number;
  tokens: number;
  /** Redis: false waits for each stored response's reply before the final event (the old path). */
  writeAhead?: boolean;
  /** Redis: the path before issue 39 item 5, for comparison: the stored response's command is
   * written to the connection and the final event goes out without waiting for its reply. The
   * gateway now always waits, so this is emulated here by answering putResponse at once. */
  answerBeforeReply?: boolean;
}

/** The store, its putResponse answered as soon as the command is written (not confirmed). */
function answeringBeforeReply(store: GatewayStore): GatewayStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === "putResponse") {
        return (stored: StoredResponse): Promise<void> => {
          target.putResponse(stored).catch(() => {});
          return Promise.resolve();
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as () => unknown).bind(target) : value;
    },
  });
}

export type StoreBenchMessage =
  { type: "ready"; url: string } | { type: "cpu"; userMicros: number; systemMicros: number };

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as StoreBenchSpec;
  const engine = createSyntheticEngine({
    tokensPerSecond: spec.tokensPerSecond,
    tokens: spec.tokens,
  });
  const config = resolveServeConfig({
    host: "127.0.0.1",
    port: 0,
    maxConcurrencyPerKey: 100_000,
    maxConnections: 100_000,
    ...(spec.store === undefined ? {} : { store: spec.store }),
  });
  const opened = await openGatewayStore({
    config,
    ...(spec.writeAhead === undefined ? {} : { redisWriteAhead: spec.writeAhead }),
  });
  const store = spec.answerBeforeReply === true ? answeringBeforeReply(opened) : opened;
  const gateway = createGateway({ models: modelsFromEngine(engine), config, store });
  const { url } = await gateway.listen();
  process.send?.({ type: "ready", url } satisfies StoreBenchMessage);
  process.on("message", (message: { type: string }) => {
    if (message.type === "cpu") {
      const cpu = process.cpuUsage();
      process.send?.({
        type: "cpu",
        userMicros: cpu.user,
        systemMicros: cpu.system,
      } satisfies StoreBenchMessage);
    }
    if (message.type === "stop") void gateway.close().then(() => process.exit(0));
  });
}

await main();
