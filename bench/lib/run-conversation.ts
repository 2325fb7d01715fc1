// Plays one multi-turn conversation against a server over one transport: a WebSocket session that
// sends only each new message (previous_response_id), or a stateless HTTP path that resends the
// whole conversation every turn (Responses SSE, or Chat Completions as llama-server speaks it).
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
  const { transport } = options;
  const records: TurnRecord[] = [];
  const history: Message[] = [];
  // One keep-alive connection, as a real stateless client would hold.
  const dispatcher = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
  const socket =
    transport.kind === "ws-session"
      ? await WsTurnClient.connect(options.baseUrl, options.signal)
      : undefined;
  const common = { model: options.model, temperature: 0 };
  try {
    for (const [index, userMessage] of options.userMessages.entries()) {
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
    }
  } finally {
    socket?.close();
    await dispatcher.close();
  }
  return records;
}
