// A real gateway over the real router and registry, its models aimed at loopback fake upstreams,
// configured from TOML through loadConfig (the same path `spark serve` takes); as in
// create-engine.ts, a model with base_urls becomes an UpstreamPool (health-checked as configured).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config/load-config.ts";
import type { LoadedConfig } from "../../src/config/config-types.ts";
import { createGateway } from "../../src/gateway/index.ts";
import { ModelRegistry } from "../../src/router/model-registry.ts";
import { gatewayModelsFromRouter } from "../../src/router/router-gateway-models.ts";
import { Router } from "../../src/router/router.ts";
import { createUpstreamPool } from "../../src/router/create-upstream-pool.ts";
import { engineFor } from "../openai-compatible/engine-for-replay.ts";

export interface RoutedGateway {
  url: string;
  router: Router;
  config: LoadedConfig;
  close(): Promise<void>;
}

export interface RoutedGatewayOptions {
  /** The breakers' clock, to step through open and half-open without waiting. */
  now?: () => number;
  /** Upstream timeouts: short, so a stall fails an attempt quickly. */
  firstByteMs?: number;
}

export async function startRoutedGateway(
  toml: string,
  options: RoutedGatewayOptions = {},
): Promise<RoutedGateway> {
  const home = await mkdtemp(path.join(os.tmpdir(), "spark-router-"));
  await writeFile(path.join(home, "config.toml"), toml);
  const config = await loadConfig({ cwd: home, env: { SPARK_HOME: home }, homeDirectory: home });
  const timeout = options.firstByteMs ?? 400;
  const registry = new ModelRegistry({
    config,
    async createEngine(name, model) {
      if (model.engine !== "openai-compatible") throw new Error(`${name}: not an HTTP model`);
      const engineAt = (baseUrl: string) =>
        engineFor(baseUrl, {
          ...(model.model === undefined ? {} : { model: model.model }),
          ...(model.api === undefined ? {} : { api: model.api }),
          ...(model.transport === undefined ? {} : { transport: model.transport }),
          timeouts: { connectMs: timeout, firstByteMs: timeout, idleMs: timeout },
        });
      if (model.baseUrls === undefined) return engineAt(model.baseUrl);
      return createUpstreamPool(model, model.baseUrls, engineAt, undefined);
    },
  });
  const router = new Router({
    registry,
    config: config.router,
    random: () => 0.5,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const gateway = createGateway({
    models: gatewayModelsFromRouter(router, registry),
    config: { host: "127.0.0.1", port: 0 },
  });
  const { url } = await gateway.listen();
  return {
    url,
    router,
    config,
    async close() {
      await gateway.close();
      await registry.dispose();
      await rm(home, { recursive: true, force: true });
    },
  };
}

interface ResponseBody {
  id: string;
  status: string;
  model: string;
  error: { code: string; message: string; spark_code: string } | null;
  spark_route?: { route: string; models: string[]; reason: string };
  spark_timings: {
    time_to_first_token_ms: number | null;
    routing?: {
      model: string;
      attempts: Array<{ model: string; outcome: string; code?: string; duration_ms: number }>;
      retries: number;
      fallbacks: number;
      backoff_ms: number;
      deadline_exceeded: boolean;
    };
  } | null;
}

export interface RoutedResponse extends ResponseBody {
  /** The text deltas as the client received them, joined. */
  text: string;
  /** `spark_route` as response.created carried it, before any output. */
  createdRoute: ResponseBody["spark_route"];
  elapsedMs: number;
}

export interface CreateResponseOptions {
  /** Called once, when the first text delta arrives (e.g. to kill the upstream mid-stream). */
  onFirstDelta?: () => void | Promise<void>;
}

type StreamedEvent = { type: string; delta?: string; response?: ResponseBody };

/** POST /v1/responses streamed over SSE; the final response, what streamed, and the time taken. */
export async function createResponse(
  url: string,
  body: Record<string, unknown>,
  options: CreateResponseOptions = {},
): Promise<RoutedResponse> {
  const startedAt = performance.now();
  const reply = await fetch(`${url}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const events: StreamedEvent[] = [];
  let buffered = "";
  let sawDelta = false;
  const decoder = new TextDecoder();
  const reader = reply.body?.getReader();
  for (;;) {
    const chunk = await reader?.read();
    if (chunk === undefined || chunk.done) break;
    buffered += decoder.decode(chunk.value, { stream: true });
    const blocks = buffered.split("\n\n");
    buffered = blocks.pop() ?? "";
    for (const block of blocks) {
      const data = block.split("\n").find((line) => line.startsWith("data: "));
      if (data === undefined) continue;
      const event = JSON.parse(data.slice(6)) as StreamedEvent;
      events.push(event);
      if (event.type === "response.output_text.delta" && !sawDelta) {
        sawDelta = true;
        await options.onFirstDelta?.();
      }
    }
  }
  const created = events.find((event) => event.type === "response.created")?.response;
  const final = events.findLast((event) =>
    ["response.completed", "response.failed", "response.incomplete"].includes(event.type),
  )?.response;
  if (final === undefined)
    throw new Error(
      `no final event (HTTP ${reply.status}): ${JSON.stringify(events).slice(0, 400)}`,
    );
  const text = events
    .filter((event) => event.type === "response.output_text.delta")
    .map((event) => event.delta ?? "")
    .join("");
  return {
    ...final,
    text,
    createdRoute: created?.spark_route,
    elapsedMs: Math.round(performance.now() - startedAt),
  };
}

export async function readMetrics(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}
