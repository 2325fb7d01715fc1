// The prefix-cache tests' one job: open the embedded engine on a model and cache folder, run the
// requests one after another, report each answer (text and usage) and each cache notice, and
// dispose the engine (writing the cache). Run in a process of its own (prefix-cache-process.ts)
// where the test is about a fresh process, in the test's own process where it is about the disk.
import { collectStream } from "../../../src/engines/collect-stream.ts";
import type { ChatMessage, CompletionPrompt, Usage } from "../../../src/engines/engine.ts";
import { createLlamaCppEngine } from "../../../src/engines/llama-cpp/llama-cpp-engine.ts";
import type { DecodeLoop } from "../../../src/engines/llama-cpp/native-loop/open-native-loop.ts";

export interface PrefixCacheProcessInput {
  modelPath: string;
  /** Unset: no prefix cache. */
  directory?: string;
  maxBytes?: number;
  /** Default: the native loop (where it is built). */
  decodeLoop?: DecodeLoop;
  /** A chat, or a raw completion (FIM) with `completion` and no messages. */
  requests: { messages?: ChatMessage[]; completion?: CompletionPrompt; cacheScope?: string }[];
}

export type PrefixCacheLine =
  { text: string; usage: Usage | undefined; error: string | undefined } | { notice: string };

export async function runPrefixCacheRequests(
  input: PrefixCacheProcessInput,
  print: (line: PrefixCacheLine) => void,
): Promise<void> {
  const engine = await createLlamaCppEngine({
    modelPath: input.modelPath,
    threads: 1,
    // A sequence for each conversation of a run (none holds another's); every run alike, since
    // the number of sequences shapes the saved state.
    sequences: 3,
    contextSize: 4096,
    ...(input.decodeLoop === undefined ? {} : { decodeLoop: input.decodeLoop }),
    ...(input.directory === undefined
      ? {}
      : {
          prefixCache: {
            directory: input.directory,
            maxBytes: input.maxBytes ?? 1024 ** 3,
            onNotice: (line: string) => print({ notice: line }),
          },
        }),
  });
  try {
    for (const request of input.requests) {
      const result = await collectStream(
        engine.stream({
          messages: request.messages ?? [],
          ...(request.completion === undefined ? {} : { completion: request.completion }),
          sampling: { temperature: 0, maxOutputTokens: 16 },
          ...(request.cacheScope === undefined ? {} : { cacheScope: request.cacheScope }),
        }),
      );
      print({ text: result.text, usage: result.usage, error: result.error?.message });
    }
  } finally {
    await engine.dispose();
  }
}
