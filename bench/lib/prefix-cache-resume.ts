// Scenario 9's resumed conversation (issue 35: "the same for a resumed conversation of 10 turns"):
// one process holds a conversation of several turns with the cache on; then the next user message
// is sent by a fresh process on that cache folder (`spark exec --resume`) and, beside it, by a warm
// process that ran the same turns itself (cache off), and their first-token times compared.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatMessage, EngineRequest } from "../../src/engines/engine.ts";
import type { PrefixCacheChildInput, PrefixCacheChildLine } from "./prefix-cache-child.ts";

export interface ResumeRounds {
  fresh: number[];
  warm: number[];
  freshComputed: number[];
  warmComputed: number[];
  freshFromDisk: number[];
  /** Prompt tokens of the resumed request (the last round's). */
  promptTokens: number;
  sameText: boolean;
}

export interface ResumeSettings {
  child: (input: PrefixCacheChildInput) => Promise<PrefixCacheChildLine[]>;
  /** Every process's engine settings but the cache folder. */
  base: Omit<PrefixCacheChildInput, "steps" | "directory">;
  /** The system prompt and tools, sampling; no user message yet. */
  request: EngineRequest;
  /** Per round, the conversation's user messages, then the one the resumed process sends. */
  userMessages: (round: number) => { turns: string[]; next: string };
  rounds: number;
  signal: AbortSignal;
}

export async function measureResume(settings: ResumeSettings): Promise<ResumeRounds> {
  const result: ResumeRounds = {
    fresh: [],
    warm: [],
    freshComputed: [],
    warmComputed: [],
    freshFromDisk: [],
    promptTokens: 0,
    sameText: true,
  };
  for (let round = 0; round < settings.rounds; round += 1) {
    settings.signal.throwIfAborted();
    const { turns, next } = settings.userMessages(round);
    const directory = await mkdtemp(join(tmpdir(), "spark-bench-resume-"));
    try {
      // The earlier process: the conversation, each turn saved as it finishes.
      const [held] = await settings.child({
        ...settings.base,
        directory,
        steps: [{ kind: "conversation", request: settings.request, userMessages: turns }],
      });
      const history: ChatMessage[] = held?.messages ?? [];
      const resumed: EngineRequest = {
        ...settings.request,
        messages: [...history, { role: "user", content: next }],
      };
      const [fromDisk] = await settings.child({
        ...settings.base,
        directory,
        steps: [{ kind: "request", request: resumed }],
      });
      // The warm session sends the same turns (the same history, answer by answer), then the next.
      const firstTurn = settings.request.messages.length;
      const replayed = turns.map((_, index) => ({
        kind: "request" as const,
        request: { ...settings.request, messages: history.slice(0, firstTurn + 2 * index + 1) },
      }));
      const warmLines = await settings.child({
        ...settings.base,
        steps: [...replayed, { kind: "request", request: resumed }],
      });
      const inSession = warmLines.at(-1);
      result.fresh.push(fromDisk?.timeToFirstTokenMs ?? Number.NaN);
      result.freshComputed.push(fromDisk?.computedTokens ?? Number.NaN);
      result.freshFromDisk.push(fromDisk?.fromDisk ?? 0);
      result.warm.push(inSession?.timeToFirstTokenMs ?? Number.NaN);
      result.warmComputed.push(inSession?.computedTokens ?? Number.NaN);
      result.promptTokens = fromDisk?.inputTokens ?? 0;
      if (fromDisk?.text !== inSession?.text) result.sameText = false;
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }
  return result;
}
