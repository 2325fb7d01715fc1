// Time to first token of a first turn vs a follow-up turn that reuses its session's KV cache, on
// the embedded engine in-process, side by side in one run. The same follow-up with a fresh
// session key (nothing cached) is the control.
// Usage: npx tsx bench/engine-session-ttft.ts [--model file.gguf] [--threads 1] [--prompt-bytes 4000] [--rounds 5]
import { parseArgs } from "node:util";
import { collectStream } from "../src/engines/collect-stream.ts";
import type { ChatMessage } from "../src/engines/engine.ts";
import { createLlamaCppEngine } from "../src/engines/llama-cpp/llama-cpp-engine.ts";
import { ensureTestModel } from "../test/support/test-model.ts";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    threads: { type: "string", default: "1" },
    "prompt-bytes": { type: "string", default: "4000" },
    rounds: { type: "string", default: "5" },
  },
});
const rounds = Number(values.rounds);
const engine = await createLlamaCppEngine({
  modelPath: values.model ?? (await ensureTestModel()),
  threads: Number(values.threads),
  sequences: 4,
  contextSize: 8192,
});
const source =
  "export function add(left: number, right: number): number {\n  return left + right;\n}\n";
const context = source.repeat(Math.ceil(Number(values["prompt-bytes"]) / source.length));
const median = (samples: number[]): number =>
  [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? NaN;

const first: number[] = [];
const followUp: number[] = [];
const followUpUncached: number[] = [];
const cached: number[] = [];
for (let round = 0; round < rounds; round += 1) {
  const turnOne: ChatMessage[] = [
    { role: "system", content: `Round ${round}. You edit code.` },
    { role: "user", content: `${context}\nRename add to sum.` },
  ];
  const sampling = { temperature: 0, maxOutputTokens: 16 };
  const one = await collectStream(
    engine.stream({ messages: turnOne, sampling, sessionKey: `a-${round}` }),
  );
  first.push(one.timings?.timeToFirstTokenMs ?? NaN);
  const turnTwo: ChatMessage[] = [
    ...turnOne,
    { role: "assistant", content: one.text },
    { role: "user", content: "Now add a doc comment." },
  ];
  const two = await collectStream(
    engine.stream({ messages: turnTwo, sampling, sessionKey: `a-${round}` }),
  );
  followUp.push(two.timings?.timeToFirstTokenMs ?? NaN);
  cached.push(two.usage?.cachedInputTokens ?? 0);
  // Control: the same follow-up prompt, but its sequence holds another conversation.
  const control = await collectStream(
    engine.stream({
      messages: [{ role: "system", content: `Other ${round}` }, ...turnTwo.slice(1)],
      sampling,
      sessionKey: `b-${round}`,
    }),
  );
  followUpUncached.push(control.timings?.timeToFirstTokenMs ?? NaN);
  if (round === 0)
    console.log(
      `prompt ${one.usage?.inputTokens} tokens; follow-up ${two.usage?.inputTokens} tokens, ${two.usage?.cachedInputTokens} cached`,
    );
}
console.log(`median of ${rounds}, threads ${values.threads}`);
console.log(`first turn            ${median(first).toFixed(1)} ms time to first token`);
console.log(
  `follow-up, cached     ${median(followUp).toFixed(1)} ms (${median(cached)} tokens from cache)`,
);
console.log(`follow-up, not cached ${median(followUpUncached).toFixed(1)} ms`);
console.log(`ratio cached/uncached ${(median(followUp) / median(followUpUncached)).toFixed(3)}`);
await engine.dispose();
