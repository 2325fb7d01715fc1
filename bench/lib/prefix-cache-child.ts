// One process of the prefix-cache scenario (scenarios/prefix-cache-disk.ts), as a fresh `spark exec`
// is one: opens the embedded engine (with or without the cache on disk), runs its steps and prints
// one JSON line per step: a request's first-token time, prompt tokens computed and from disk, or
// a decode measured while another sequence's finished turn is saved, or a conversation's last turn
// with the messages it grew to (what `spark exec --resume` sends next).
import { collectStream, type CollectedStream } from "../../src/engines/collect-stream.ts";
import type { ChatMessage, EngineRequest } from "../../src/engines/engine.ts";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";

export interface PrefixCacheChildInput {
  modelPath: string;
  threads: number;
  contextSize: number;
  /** Part of the cache's key: the processes sharing a folder must agree on it. */
  sequences: number;
  /** Unset: no prefix cache. */
  directory?: string;
  steps: PrefixCacheChildStep[];
}

export type PrefixCacheChildStep =
  | { kind: "request"; request: EngineRequest }
  /** `decode` streams long while `beside`, on another sequence, finishes (and is saved). */
  | { kind: "decode"; decode: EngineRequest; beside: EngineRequest }
  /** One turn per user message after `request`'s messages, each answer kept in the history. */
  | { kind: "conversation"; request: EngineRequest; userMessages: string[] };

export interface PrefixCacheChildLine {
  timeToFirstTokenMs: number | null;
  inputTokens: number;
  computedTokens: number;
  fromDisk: number;
  decodeTokensPerSecond: number | null;
  text: string;
  /** A conversation step's messages, its last answer included. */
  messages?: ChatMessage[];
}

const input = JSON.parse(process.argv[2] ?? "{}") as PrefixCacheChildInput;
const engine = await createLlamaCppEngine({
  modelPath: input.modelPath,
  threads: input.threads,
  sequences: input.sequences,
  contextSize: input.contextSize,
  ...(input.directory === undefined
    ? {}
    : { prefixCache: { directory: input.directory, maxBytes: 8 * 1024 ** 3 } }),
});
const line = (result: CollectedStream): PrefixCacheChildLine => ({
  timeToFirstTokenMs: result.timings?.timeToFirstTokenMs ?? null,
  inputTokens: result.usage?.inputTokens ?? 0,
  computedTokens: (result.usage?.inputTokens ?? 0) - (result.usage?.cachedInputTokens ?? 0),
  fromDisk: result.usage?.diskCachedInputTokens ?? 0,
  decodeTokensPerSecond: result.timings?.decodeTokensPerSecond ?? null,
  text: result.text,
});
for (const step of input.steps) {
  if (step.kind === "conversation") {
    const messages = [...step.request.messages];
    let last: PrefixCacheChildLine | undefined;
    for (const content of step.userMessages) {
      messages.push({ role: "user", content });
      last = line(await collectStream(engine.stream({ ...step.request, messages: [...messages] })));
      messages.push({ role: "assistant", content: last.text });
    }
    process.stdout.write(JSON.stringify({ ...last, messages }) + "\n");
    continue;
  }
  if (step.kind === "request") {
    process.stdout.write(
      JSON.stringify(line(await collectStream(engine.stream(step.request)))) + "\n",
    );
    continue;
  }
  const [decoded] = await Promise.all([
    collectStream(engine.stream(step.decode)),
    collectStream(engine.stream(step.beside)),
  ]);
  process.stdout.write(JSON.stringify(line(decoded)) + "\n");
}
await engine.dispose();
