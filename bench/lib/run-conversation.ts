// Plays one multi-turn conversation against a server over one transport: a WebSocket session that
// sends only each new message (previous_response_id), or a stateless HTTP path that resends the
// whole conversation every turn (Responses SSE, or Chat Completions as llama-server speaks it);
// whole, or one turn at a time (ConversationPlayer).
import { Agent } from "undici";
import { SparkError } from "../../src/protocol/spark-error.ts";
import { runChatCompletionsTurn, runResponsesSseTurn } from "./sse-turns.ts";
import type { TurnRecord } from "./turn-record.ts";
import { WsTurnClient } from "./ws-turn-client.ts";

export type ConversationTransport =
  | { kind: "ws-session" }
  | { kind: "responses-sse"; promptCacheKey?: string }
  | { kind: "chat-completions"; extraBody?: Record<string, unknown>; freshConnection?: boolean };

export interface ConversationOptions {
  baseUrl: string;
  model: string;
  transport: ConversationTransport;
  userMessages: readonly string[];
  maxOutputTokens: number;
  signal: AbortSignal;
  onTurn?: (turn: number, record: TurnRecord) => void;
}

interface Message {
  role: "user" | "assistant";
  content: string;
}

export async function runConversation(options: ConversationOptions): Promise<TurnRecord[]> {
  const player = await ConversationPlayer.open(options);
  try {
    while (player.hasNextTurn) await player.playTurn();
  } finally {
    await player.close();
  }
  return player.records;
}

/**
 * The same conversation played one turn at a time, so a scenario can alternate turns between
 * variants: the machine's load then drifts over all of them alike instead of one variant's run.
 */
export class ConversationPlayer {
  readonly records: TurnRecord[] = [];
  private readonly history: Message[] = [];

  private constructor(
    private readonly options: ConversationOptions,
    // One keep-alive connection, as a real stateless client would hold.
    private readonly dispatcher: Agent,
    private readonly socket: WsTurnClient | undefined,
  ) {}

  static async open(options: ConversationOptions): Promise<ConversationPlayer> {
    const dispatcher = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
    const socket =
      options.transport.kind === "ws-session"
        ? await WsTurnClient.connect(options.baseUrl, options.signal)
        : undefined;
    return new ConversationPlayer(options, dispatcher, socket);
  }

  get hasNextTurn(): boolean {
    return this.records.length < this.options.userMessages.length;
  }

  async playTurn(): Promise<TurnRecord> {
    const { options, history, records, socket, dispatcher } = this;
    const { transport } = options;
    const index = records.length;
    const userMessage = options.userMessages[index];
    if (userMessage === undefined) {
      throw new SparkError("invalid_request", "The conversation has no turn left.");
    }
    const common = { model: options.model, temperature: 0 };
    options.signal.throwIfAborted();
    history.push({ role: "user", content: userMessage });
    let record: TurnRecord;
    if (socket !== undefined) {
      const previous = records.at(-1)?.responseId;
      record = await socket.runTurn({
        ...common,
        input: userMessage,
        max_output_tokens: options.maxOutputTokens,
        ...(previous === undefined ? {} : { previous_response_id: previous }),
      });
    } else if (transport.kind === "responses-sse") {
      record = await runResponsesSseTurn(
        options.baseUrl,
        {
          ...common,
          input: history,
          max_output_tokens: options.maxOutputTokens,
          store: false,
          ...(transport.promptCacheKey === undefined
            ? {}
            : { prompt_cache_key: transport.promptCacheKey }),
        },
        { dispatcher, signal: options.signal },
      );
    } else if (transport.kind === "chat-completions") {
      record = await runChatCompletionsTurn(
        options.baseUrl,
        {
          ...common,
          messages: history,
          max_tokens: options.maxOutputTokens,
          ...transport.extraBody,
        },
        {
          dispatcher,
          signal: options.signal,
          freshConnection: transport.freshConnection === true,
        },
      );
    } else {
      throw new SparkError("invalid_request", "A WebSocket conversation needs its socket.");
    }
    if (record.status === "failed" || record.firstDeltaAt === null) {
      throw new SparkError(
        "upstream_error",
        `Turn ${index + 1} over ${transport.kind} produced no output (status ${record.status}).`,
      );
    }
    history.push({ role: "assistant", content: record.text });
    records.push(record);
    options.onTurn?.(index + 1, record);
    return record;
  }

  async close(): Promise<void> {
    this.socket?.close();
    await this.dispatcher.close();
  }
}
