// What sampling with a temperature costs per token before the model's own work: llama.cpp's top-k
// (a candidate per vocabulary entry, partially sorted) against the native loop's select_top_k,
// on the same random logits, checked to leave the same tokens in the same order. Compiled at
// bench time against node-llama-cpp's prebuilt libllama (bench/native/top-k-cost.cpp).
// Usage: npx tsx bench/top-k-cost.ts [--rounds 300]
import { parseArgs } from "node:util";
import { buildTopKCost, runTopKCost } from "./lib/top-k-cost-program.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "300" } } });
const executable = await buildTopKCost();

console.log(
  "| vocabulary | logits | llama.cpp top-k µs | native loop's top-k µs (select_top_k alone) | saved per token | ties → llama.cpp's path | order differs | greedy µs, llama.cpp / first_maximum | greedy token differs |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
let failed = false;
// nonzero > 0: that many logits drawn, the rest 0 (the project's random-weight test models).
for (const [vocabulary, tieStep, nonzero] of [
  [151_936, 0, 0],
  [151_936, 0.5, 0],
  [151_936, 0, 4096],
  [151_936, 0, 41],
  [32_000, 0, 0],
  [320, 0, 0],
] as const) {
  const result = await runTopKCost(
    executable,
    { vocabulary, tieStep, nonzero },
    Number(values.rounds),
  );
  if (result.mismatches > 0 || result.greedyMismatches > 0) failed = true;
  console.log(
    `| ${vocabulary.toLocaleString("en-US")} | ${tieStep === 0 ? "continuous" : `rounded to ${tieStep}`}` +
      `${nonzero > 0 ? `, ${nonzero} drawn, the rest 0` : ""} | ` +
      `${result.llamaMicroseconds.toFixed(1)} | ${result.nativeMicroseconds.toFixed(1)} (${result.selectionMicroseconds.toFixed(1)}) | ` +
      `${(result.llamaMicroseconds - result.nativeMicroseconds).toFixed(1)} µs | ` +
      `${result.fallbacks}/${result.rounds} | ${result.mismatches} | ` +
      `${result.llamaGreedyMicroseconds.toFixed(1)} / ${result.nativeGreedyMicroseconds.toFixed(1)} | ${result.greedyMismatches} |`,
  );
}
if (failed) {
  console.error(
    "select_top_k or first_maximum left other tokens than llama.cpp's samplers: the native loop would sample other text",
  );
  process.exit(1);
}
