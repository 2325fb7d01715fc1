// Does a model complete as well in each FIM prompt layout? Lines of code the model was not trained
// on are cut mid-line, the rest of the line is the answer, and the same greedy completion is asked
// for on one engine per layout: PSM and SPM split at the cursor (the typed part of the line ends
// the prefix), and PSM and SPM split at the line start (the typed part after <|fim_middle|>).
// Counted: rest of the line exactly right, and the share of its characters the completion gets
// right before its first mistake.
// `npx tsx bench/fim-order-quality.ts [model.gguf]` (default: ../shared/models/spark-code-tiny.gguf).
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { collectStream } from "../src/engines/collect-stream.ts";
import type { CompletionPrompt } from "../src/engines/engine.ts";
import type { FimOrder, FimSplit } from "../src/engines/llama-cpp/completion-prompt.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../src/engines/llama-cpp/llama-cpp-engine.ts";
import { formatTable } from "./lib/print-table.ts";

const modelPath =
  process.argv[2] ??
  fileURLToPath(new URL("../../shared/models/spark-code-tiny.gguf", import.meta.url));
// Packages spark-code-tiny never saw: ISC-licensed (skipped by its training) or held out.
const FILES = [
  "semver/classes/range.js",
  "semver/classes/semver.js",
  "semver/classes/comparator.js",
  "eventemitter3/index.js",
  "lodash.debounce/index.js",
  "env-var/lib/variable.js",
];
const CASES_PER_FILE = 10;
const PREFIX_CHARS = 1500;
const SUFFIX_CHARS = 400;
const MAX_TOKENS = 40;

interface Case {
  file: string;
  before: string;
  typed: string;
  expected: string;
  after: string;
}

/** Lines with enough to type, evenly spread over the file, each cut at its middle. */
function casesOf(file: string, text: string): Case[] {
  const lines = text.split("\n");
  const offsets: number[] = [];
  for (
    let index = 0, offset = 0;
    index < lines.length;
    offset += (lines[index] ?? "").length + 1, index++
  )
    offsets.push(offset);
  const candidates = lines
    .map((line, index) => ({ line, index }))
    .filter(({ line, index }) => line.trim().length >= 16 && index > 10);
  const step = Math.max(1, Math.floor(candidates.length / CASES_PER_FILE));
  const cases: Case[] = [];
  for (let pick = 0; pick < candidates.length && cases.length < CASES_PER_FILE; pick += step) {
    const candidate = candidates[pick];
    if (candidate === undefined) break;
    const lineStart = offsets[candidate.index] ?? 0;
    const indent = candidate.line.length - candidate.line.trimStart().length;
    const cut = indent + Math.floor((candidate.line.length - indent) / 2);
    const lineEnd = lineStart + candidate.line.length;
    const before = text.slice(Math.max(0, lineStart - PREFIX_CHARS), lineStart);
    cases.push({
      file,
      // The prefix window starts at a line start, as editors cut it.
      before: before.slice(before.indexOf("\n") + 1),
      typed: candidate.line.slice(0, cut),
      expected: candidate.line.slice(cut),
      after: text.slice(lineEnd, lineEnd + SUFFIX_CHARS),
    });
  }
  return cases;
}

interface Layout {
  name: string;
  fimOrder: FimOrder;
  fimSplit: FimSplit;
}

const LAYOUTS: Layout[] = [
  { name: "PSM, cursor split", fimOrder: "psm", fimSplit: "cursor" },
  { name: "SPM, cursor split", fimOrder: "spm", fimSplit: "cursor" },
  { name: "PSM, line split (default)", fimOrder: "psm", fimSplit: "line" },
  { name: "SPM, line split", fimOrder: "spm", fimSplit: "line" },
];

async function complete(engine: LlamaCppEngine, completion: CompletionPrompt): Promise<string> {
  const result = await collectStream(
    engine.stream({
      messages: [],
      completion,
      sampling: { temperature: 0, maxOutputTokens: MAX_TOKENS },
    }),
  );
  if (result.error !== undefined) throw result.error;
  return result.text.split("\n")[0] ?? "";
}

function matchedShare(expected: string, actual: string): number {
  let index = 0;
  while (index < expected.length && expected[index] === actual[index]) index++;
  return expected.length === 0 ? 1 : index / expected.length;
}

const cases: Case[] = [];
for (const file of FILES) {
  const path = fileURLToPath(new URL(`../node_modules/${file}`, import.meta.url));
  cases.push(...casesOf(file, await readFile(path, "utf8")));
}
const totals = new Map(LAYOUTS.map((layout) => [layout.name, { exact: 0, share: 0 }]));
const answers = new Map<number, string[]>();
// One engine at a time: the same model loaded once per layout.
for (const layout of LAYOUTS) {
  const { fimOrder, fimSplit } = layout;
  const engine = await createLlamaCppEngine({
    modelPath,
    threads: 1,
    sequences: 1,
    contextSize: 4096,
    fimOrder,
    fimSplit,
  });
  const total = { exact: 0, share: 0 };
  for (const [index, item] of cases.entries()) {
    const answer = await complete(engine, { prefix: item.before + item.typed, suffix: item.after });
    if (answer.trimEnd() === item.expected.trimEnd()) total.exact += 1;
    total.share += matchedShare(item.expected.trimEnd(), answer);
    if (index % 10 === 0)
      answers.set(index, [
        ...(answers.get(index) ?? []),
        `  ${layout.name.padEnd(28)} ${JSON.stringify(answer)}`,
      ]);
  }
  totals.set(layout.name, total);
  await engine.dispose();
}
const examples = [...answers].flatMap(([index, lines]) => {
  const item = cases[index];
  if (item === undefined) return [];
  const header = `${item.file}: typed ${JSON.stringify(item.typed.trim())}, expected ${JSON.stringify(item.expected)}`;
  return [header, ...lines];
});

console.log(
  `${cases.length} cases from ${FILES.length} files the model was not trained on; ${modelPath}\n`,
);
console.log(
  formatTable({
    title: "Completing the rest of the line",
    columns: ["layout", "rest of line exact", "characters right before the first mistake"],
    rows: LAYOUTS.map((layout) => {
      const total = totals.get(layout.name) ?? { exact: 0, share: 0 };
      return [
        layout.name,
        `${total.exact}/${cases.length}`,
        `${((100 * total.share) / cases.length).toFixed(1)}%`,
      ];
    }),
  }),
);
console.log(`\nExamples (every tenth case):\n${examples.join("\n")}`);
