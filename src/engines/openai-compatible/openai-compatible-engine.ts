// The OpenAI-compatible Engine: one upstream (a preset or a base URL) and one model over a shared
// keep-alive pool, warmed at creation. Streams run in run-chat-stream.ts; this file owns the
// lifecycle (warm-up, models, dispose). With `transport = "websocket"` streams run over the
// engine's Responses WebSockets instead (responses-websocket/).
import type {
  Engine,
  EngineEvent,
  EngineRequest,
  EngineStreamOptions,
  ModelInfo,
} from "../engine.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { refusedStream } from "../end-stream.ts";
import { acquireHttpPool, type HttpPoolLease } from "./http-pool.ts";
import { listUpstreamModels } from "./list-models.ts";
import type { UpstreamErrorContext } from "./map-http-error.ts";
import {
  resolveOpenAICompatibleOptions,
  type OpenAICompatibleEngineOptions,
  type ResolvedOpenAICompatibleOptions,
} from "./openai-compatible-options.ts";
import { runChatStream } from "./run-chat-stream.ts";
import { createSocketPool } from "./responses-websocket/create-socket-pool.ts";
import type {
  ResponsesSocketPool,
  WebSocketStats,
} from "./responses-websocket/responses-socket-pool.ts";
import { runWebSocketStream } from "./responses-websocket/run-websocket-stream.ts";
import { warmUpConnection } from "./warm-up-connection.ts";

export interface OpenAICompatibleEngine extends Engine {
  readonly kind: "openai-compatible";
  readonly options: ResolvedOpenAICompatibleOptions;
  /** Opens (or refreshes) a pooled connection; rejects with a SparkError if the upstream is unreachable. */
  warmUp(): Promise<void>;
  /** The engine's WebSockets (websocket transport only): opened so far, held now, busy now. */
  readonly webSocketStats: WebSocketStats | undefined;
}

/** Throws `invalid_config` for unusable options; never does I/O that can fail synchronously. */
export function createOpenAICompatibleEngine(
  options: OpenAICompatibleEngineOptions,
): OpenAICompatibleEngine {
  const engine = new OpenAICompatibleChatEngine(resolveOpenAICompatibleOptions(options));
  const keyMissing = engine.options.apiKey === undefined && engine.options.apiKeyEnv !== undefined;
  // Best effort: a failed warm-up changes nothing, the first request reports the real error.
  if (engine.options.warmUp && !keyMissing) engine.warmUp().catch(() => undefined);
  return engine;
}

class OpenAICompatibleChatEngine implements OpenAICompatibleEngine {
  readonly kind = "openai-compatible";
  readonly options: ResolvedOpenAICompatibleOptions;
  private readonly lease: HttpPoolLease;
  private readonly errorContext: UpstreamErrorContext;
  /** Only with transport = "websocket". */
  private readonly sockets: ResponsesSocketPool | undefined;
  private readonly running = new Set<(error: SparkError) => void>();
  private disposed = false;
  private warming: Promise<void> | undefined;
  private model: Promise<string> | undefined;

  constructor(options: ResolvedOpenAICompatibleOptions) {
    this.options = options;
    this.lease = acquireHttpPool(options.origin, {
      connectMs: options.timeouts.connectMs,
      keepAliveMs: options.keepAliveMs,
    });
    this.errorContext = {
      baseUrl: options.baseUrl,
      model: options.model ?? "(the server's default model)",
      apiKeyEnv: options.apiKeyEnv,
      apiKeySent: options.apiKey !== undefined,
      timeouts: options.timeouts,
    };
    this.sockets =
      options.transport === "websocket" ? createSocketPool(options, this.errorContext) : undefined;
  }

  stream(
    request: EngineRequest,
    streamOptions: EngineStreamOptions = {},
  ): AsyncIterable<EngineEvent> {
    if (this.disposed) return refusedStream(disposedError());
    const shared = {
      options: this.options,
      errorContext: this.errorContext,
      resolveModel: async () => this.resolveModel(),
      track: (stop: (error: SparkError) => void) => {
        // A stream created before dispose but first read after it must not touch the closed pool.
        if (this.disposed) stop(disposedError());
        this.running.add(stop);
        return () => this.running.delete(stop);
      },
    };
    if (this.sockets !== undefined)
      return runWebSocketStream({ ...shared, pool: this.sockets }, request, streamOptions.signal);
    return runChatStream({ ...shared, dispatcher: this.lease.pool }, request, streamOptions.signal);
  }

  get webSocketStats(): WebSocketStats | undefined {
    return this.sockets?.stats();
  }

  async listModels(): Promise<ModelInfo[]> {
    if (this.disposed) throw disposedError();
    return listUpstreamModels(this.lease.pool, this.options, this.errorContext);
  }

  /** The configured model, else the first one the server lists; a failed lookup is retried next time. */
  private async resolveModel(): Promise<string> {
    if (this.options.model !== undefined) return this.options.model;
    this.model ??= listUpstreamModels(this.lease.pool, this.options, this.errorContext).then(
      (models) => {
        const first = models[0]?.id;
        if (first === undefined) {
          throw new SparkError(
            "model_not_found",
            `${this.options.baseUrl}/models lists no models; set model = "..." in the model's config.`,
          );
        }
        return first;
      },
    );
    this.model.catch(() => {
      this.model = undefined;
    });
    return this.model;
  }

  /** Concurrent calls share one in-flight warm-up, so awaiting it after creation sends nothing new. */
  async warmUp(): Promise<void> {
    if (this.disposed) throw disposedError();
    const warm = (): Promise<void> =>
      this.sockets === undefined
        ? warmUpConnection(this.lease.pool, this.options, this.errorContext)
        : this.sockets.warm();
    this.warming ??= warm().finally(() => {
      this.warming = undefined;
    });
    return this.warming;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const error = disposedError();
    for (const stop of this.running) stop(error);
    this.running.clear();
    this.sockets?.dispose();
    await this.lease.release();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}

function disposedError(): SparkError {
  return new SparkError("engine_disposed", "The OpenAI-compatible engine was disposed.");
}
