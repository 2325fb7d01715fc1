// Drives many concurrent streams through the gateway (one WebSocket per stream, or SSE requests
// over a pool of keep-alive connections) and collects per-token lateness and first-token times.
import { Agent } from "undici";
import { runResponsesSseTurn } from "./sse-turns.ts";
import { setTimeout as sleep } from "node:timers/promises";
import { countWordTokens, staggerOffset, tokenLateness } from "./token-lateness.ts";
import type { TurnRecord } from "./turn-record.ts";
import { WsTurnClient } from "./ws-turn-client.ts";

export type StreamTransport = "ws" | "sse";

export interface ConcurrentStreamsOptions {
  baseUrl: string;
  model: string;
  transport: StreamTransport;
  concurrency: number;
  turns: number;
  tokensPerStream: number;
  intervalMs: number;
  signal: AbortSignal;
}

export interface ConcurrentStreamsResult {
  lateness: number[];
  firstTokenMs: number[];
  tokens: number;
  wallMs: number;
}

/** Holds the connections of one concurrency level, so connecting is not part of what is timed. */
export class StreamClients {
  private constructor(
    private readonly options: Omit<ConcurrentStreamsOptions, "turns">,
    private readonly sockets: WsTurnClient[],
    private readonly dispatcher: Agent,
  ) {}

  static async open(options: Omit<ConcurrentStreamsOptions, "turns">): Promise<StreamClients> {
    const sockets: WsTurnClient[] = [];
    if (options.transport === "ws") {
      for (let index = 0; index < options.concurrency; index += 1) {
        sockets.push(await WsTurnClient.connect(options.baseUrl, options.signal));
      }
    }
    const dispatcher = new Agent({ connections: options.concurrency, keepAliveTimeout: 60_000 });
    return new StreamClients(options, sockets, dispatcher);
  }

  async run(turns: number): Promise<ConcurrentStreamsResult> {
    const { options } = this;
    const body = {
      model: options.model,
      input: "Stream the benchmark tokens.",
      max_output_tokens: options.tokensPerStream,
    };
    const lateness: number[] = [];
    const firstTokenMs: number[] = [];
    let tokens = 0;
    const record = (turn: TurnRecord): void => {
      if (turn.firstDeltaAt !== null) firstTokenMs.push(turn.firstDeltaAt - turn.sentAt);
      for (const arrival of turn.arrivals) tokens += arrival.tokens;
      for (const value of tokenLateness(turn.sentAt, turn.arrivals, options.intervalMs))
        lateness.push(value);
    };
    const worker = async (index: number): Promise<void> => {
      await sleep(staggerOffset(index, options.tokensPerStream * options.intervalMs));
      for (let turn = 0; turn < turns; turn += 1) {
        options.signal.throwIfAborted();
        const socket = this.sockets[index];
        record(
          socket !== undefined
            ? await socket.runTurn(body, { countTokens: countWordTokens })
            : await runResponsesSseTurn(options.baseUrl, body, {
                // The run checks the signal between turns; one listener per request would pile up.
                dispatcher: this.dispatcher,
                countTokens: countWordTokens,
              }),
        );
      }
    };
    const startedAt = performance.now();
    await Promise.all(
      Array.from({ length: options.concurrency }, (_unused, index) => worker(index)),
    );
    return { lateness, firstTokenMs, tokens, wallMs: performance.now() - startedAt };
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.close();
    await this.dispatcher.close();
  }
}
