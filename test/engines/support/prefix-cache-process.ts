// A process of its own for the prefix-cache tests: opens the embedded engine on the model and
// cache folder its argument names, runs the requests one after another, prints one JSON line per
// request (its text and usage) and per cache notice, and disposes the engine (writing the cache).
import { collectStream } from "../../../src/engines/collect-stream.ts";
import type { ChatMessage } from "../../../src/engines/engine.ts";
import { createLlamaCppEngine } from "../../../src/engines/llama-cpp/llama-cpp-engine.ts";

export interface PrefixCacheProcessInput {
  modelPath: string;
  /** Unset: no prefix cache. */
  directory?: string;
  maxBytes?: number;
  requests: { messages: ChatMessage[]; cacheScope?: string }[];
}

const input = JSON.parse(process.argv[2] ?? "{}") as PrefixCacheProcessInput;
const print = (value: unknown): void => void process.stdout.write(JSON.stringify(value) + "\n");
const engine = await createLlamaCppEngine({
  modelPath: input.modelPath,
  threads: 1,
  // A sequence for each conversation of a process (none holds another's); every process alike,
  // since the number of sequences shapes the saved state.
  sequences: 3,
  contextSize: 4096,
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
for (const request of input.requests) {
  const result = await collectStream(
    engine.stream({
      messages: request.messages,
      sampling: { temperature: 0, maxOutputTokens: 16 },
      ...(request.cacheScope === undefined ? {} : { cacheScope: request.cacheScope }),
    }),
  );
  print({ text: result.text, usage: result.usage, error: result.error?.message });
}
await engine.dispose();
