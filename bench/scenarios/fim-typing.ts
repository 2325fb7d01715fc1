// Scenario 8: FIM completions while typing. A real file from node_modules is typed back one key at
// a time against the real gateway (its own process), one streamed /v1/completions request per
// keystroke after a debounce, the document's cache kept between them and the stale one cancelled.
// The same session runs against one server per FIM prompt layout in one run: PSM split at the
// cursor (the suffix after the prefix, re-evaluated on every keystroke: Spark before issue 27), SPM
// split at the cursor (the suffix first, kept in cache) and PSM split at the line start (the
// default: the typed part of the line after <|fim_middle|>, the suffix re-evaluated once per line).
// Measured per layout: keystroke → first completion token, prompt tokens each request evaluated,
// the share served from the KV cache, and how many requests a newer keystroke cancelled.
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import type { FimOrder, FimSplit } from "../../src/engines/llama-cpp/completion-prompt.ts";
import { ensureTestModel } from "../../test/support/test-model.ts";
import { BenchServer } from "../lib/bench-server.ts";
import { requestFimCompletion, type FimRequestOptions } from "../lib/fim-completion-client.ts";
import type { BenchSettings, Scenario } from "../lib/scenario.ts";
import { figure, type Figure, type ScenarioResult } from "../lib/scenario-result.ts";
import { round, summarize, type Summary } from "../lib/stats.ts";
import { debounced, typingSession, type Keystroke } from "../lib/typing-session.ts";

const FILE = fileURLToPath(new URL("../../node_modules/ws/lib/sender.js", import.meta.url));
const EXTRA_FILE = fileURLToPath(
  new URL("../../node_modules/ws/lib/constants.js", import.meta.url),
);
const DEBOUNCE_MS = 20;
const MAX_TOKENS = 16;
const TIME_BUDGET_MS = 300;
const SUFFIX_CHARS = 120;

interface Layout {
  name: string;
  fimOrder: FimOrder;
  fimSplit: FimSplit;
}

const LAYOUTS: readonly Layout[] = [
  { name: "PSM, cursor split", fimOrder: "psm", fimSplit: "cursor" },
  { name: "SPM, cursor split", fimOrder: "spm", fimSplit: "cursor" },
  { name: "PSM, line split (default)", fimOrder: "psm", fimSplit: "line" },
];

interface RequestSample {
  layout: string;
  round: number;
  keystroke: number;
  /** Keystroke → first text chunk (null: none came, e.g. cancelled first). */
  firstTokenMs: number | null;
  /** Request sent → first text chunk. */
  requestToFirstTokenMs: number | null;
  finishReason: string;
  promptTokens: number;
  cachedTokens: number;
}

export const fimTyping: Scenario = {
  number: 8,
  id: "fim-typing",
  title: "FIM completions while typing",
  async run(settings) {
    const startedAt = new Date();
    const keystrokeCount = { full: 240, quick: 80, smoke: 8 }[settings.size];
    const rounds = settings.size === "full" ? 2 : 1;
    const modelPath = settings.modelPath ?? (await ensureTestModel({ fimTokens: true }));
    const keystrokes = await typingSession({
      path: FILE,
      keystrokes: keystrokeCount,
      prefixChars: 1500,
      suffixChars: SUFFIX_CHARS,
    });
    const request: FimRequestOptions = {
      extra: [{ filename: "lib/constants.js", text: await readFile(EXTRA_FILE, "utf8") }],
      document: "lib/sender.js",
      maxTokens: MAX_TOKENS,
      timeBudgetMs: TIME_BUDGET_MS,
    };
    const servers = new Map<string, BenchServer>();
    const samples: RequestSample[] = [];
    try {
      for (const layout of LAYOUTS)
        servers.set(layout.name, await startServer(settings, modelPath, layout));
      // The layouts' order reverses every round so drift in the machine's load falls on all alike.
      for (let roundIndex = 0; roundIndex < rounds; roundIndex++) {
        const layouts = roundIndex % 2 === 0 ? LAYOUTS : [...LAYOUTS].reverse();
        for (const { name } of layouts) {
          const server = servers.get(name);
          if (server === undefined) continue;
          const session = await typeSession(server, keystrokes, request, settings.signal);
          samples.push(
            ...session.map((sample) => ({ ...sample, layout: name, round: roundIndex })),
          );
        }
      }
    } finally {
      for (const server of servers.values()) await server.close();
    }
    return buildResult(samples, keystrokes.length, startedAt, {
      model: settings.modelPath ?? "test model (tiny, FIM tokens)",
      threads: settings.threads,
      file: "node_modules/ws/lib/sender.js (typed back from a third of the way in)",
      extraContext: "node_modules/ws/lib/constants.js as input_extra",
      keystrokes: keystrokes.length,
      rounds,
      layouts: LAYOUTS.map((layout) => layout.name).join("; "),
      debounceMs: DEBOUNCE_MS,
      keyGapsMs: "40–180, varied",
      prefixWindowChars: 1500,
      suffixChars: SUFFIX_CHARS,
      maxTokens: MAX_TOKENS,
      timeBudgetMs: TIME_BUDGET_MS,
      size: settings.size,
    });
  },
};

function startServer(
  settings: BenchSettings,
  modelPath: string,
  { fimOrder, fimSplit }: Layout,
): Promise<BenchServer> {
  return BenchServer.start(
    {
      engine: {
        kind: "llama-cpp",
        modelPath,
        threads: settings.threads,
        contextSize: 4096,
        sequences: 4,
        fimOrder,
        fimSplit,
      },
      probe: false,
    },
    settings.signal,
  );
}

/** One typing session against one server: the document opened, then a request per sent key. */
async function typeSession(
  server: BenchServer,
  keystrokes: readonly Keystroke[],
  request: FimRequestOptions,
  signal: AbortSignal,
): Promise<Omit<RequestSample, "layout" | "round">[]> {
  const samples: Omit<RequestSample, "layout" | "round">[] = [];
  // The file was open before typing began: an editor's first request (opening it, or the
  // cursor's first stop) has already put the other file and the prefix window in the cache.
  const opened = keystrokes[0];
  if (opened !== undefined)
    await requestFimCompletion(server, { ...opened, prefix: opened.prefix.slice(0, -1) }, request);
  const sent = debounced(keystrokes, DEBOUNCE_MS);
  const sessionStart = performance.now();
  const running: Promise<void>[] = [];
  for (const [index, keystroke] of sent.entries()) {
    signal.throwIfAborted();
    const wait = sessionStart + keystroke.atMs + DEBOUNCE_MS - performance.now();
    if (wait > 0) await sleep(wait);
    const keystrokeAt = sessionStart + keystroke.atMs;
    running.push(
      requestFimCompletion(server, keystroke, request).then((result) => {
        samples.push({
          keystroke: index,
          finishReason: result.finishReason,
          promptTokens: result.promptTokens,
          cachedTokens: result.cachedTokens,
          firstTokenMs: result.firstTokenAt === null ? null : result.firstTokenAt - keystrokeAt,
          requestToFirstTokenMs:
            result.firstTokenAt === null ? null : result.firstTokenAt - result.sentAt,
        });
      }),
    );
  }
  await Promise.all(running);
  return samples.sort((left, right) => left.keystroke - right.keystroke);
}

interface LayoutSummary {
  firstToken: Summary;
  requestToFirst: Summary;
  /** Prompt tokens each request that reached the engine evaluated (not served from cache). */
  evaluated: Summary;
  cachedShare: number | null;
  cancelled: number;
  withoutText: number;
  requests: number;
  prompt: number;
  cached: number;
}

function summarizeLayout(samples: RequestSample[]): LayoutSummary {
  const timed = (pick: (sample: RequestSample) => number | null): Summary =>
    summarize(
      samples.flatMap((sample) => {
        const value = pick(sample);
        return value === null ? [] : [value];
      }),
    );
  const reached = samples.filter((sample) => sample.promptTokens > 0);
  const prompt = reached.reduce((sum, sample) => sum + sample.promptTokens, 0);
  const cached = reached.reduce((sum, sample) => sum + sample.cachedTokens, 0);
  return {
    firstToken: timed((sample) => sample.firstTokenMs),
    requestToFirst: timed((sample) => sample.requestToFirstTokenMs),
    evaluated: summarize(reached.map((sample) => sample.promptTokens - sample.cachedTokens)),
    cachedShare: prompt === 0 ? null : (100 * cached) / prompt,
    cancelled: samples.filter((sample) => sample.finishReason === "cancelled").length,
    withoutText: samples.filter((sample) => sample.firstTokenMs === null).length,
    requests: samples.length,
    prompt,
    cached,
  };
}

function buildResult(
  samples: RequestSample[],
  keystrokes: number,
  startedAt: Date,
  configuration: Record<string, unknown>,
): ScenarioResult {
  const byLayout = new Map(
    LAYOUTS.map(({ name }) => [
      name,
      summarizeLayout(samples.filter((sample) => sample.layout === name)),
    ]),
  );
  const figures: Figure[] = [];
  for (const [name, summary] of byLayout) {
    figures.push(
      figure(
        `${name}: keystroke → first completion token p50`,
        round(summary.firstToken.p50, 1),
        "ms",
        { comparison: "<=", value: 50 },
      ),
      figure(
        `${name}: keystroke → first completion token p90`,
        round(summary.firstToken.p90, 1),
        "ms",
      ),
      figure(
        `${name}: prompt tokens evaluated per request p50`,
        round(summary.evaluated.p50, 1),
        "tokens",
      ),
      figure(
        `${name}: prompt tokens served from cache`,
        summary.cachedShare === null ? null : round(summary.cachedShare, 1),
        "%",
        { comparison: ">=", value: 90 },
      ),
    );
  }
  const before = byLayout.get(LAYOUTS[0]?.name ?? "");
  for (const [name, summary] of [...byLayout].slice(1)) {
    if (before === undefined || before.firstToken.p50 <= 0) break;
    figures.push(
      figure(
        `${name} ÷ ${LAYOUTS[0]?.name}: keystroke → first token p50`,
        round(summary.firstToken.p50 / before.firstToken.p50, 2),
        "×",
      ),
    );
  }
  const latencyRow = (label: string, summary: Summary): (string | number)[] => [
    label,
    summary.count,
    round(summary.p50, 1),
    round(summary.p90, 1),
    round(summary.p99, 1),
    round(summary.max, 1),
  ];
  return {
    scenario: 8,
    id: "fim-typing",
    title: "FIM completions while typing",
    status: "ran",
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    configuration,
    figures,
    tables: [
      {
        title: "Latency (ms); keystroke → first token includes the debounce",
        columns: ["layout, measure", "n", "p50", "p90", "p99", "max"],
        rows: [...byLayout].flatMap(([name, summary]) => [
          latencyRow(`${name} keystroke → first token`, summary.firstToken),
          latencyRow(`${name} request → first token`, summary.requestToFirst),
        ]),
      },
      {
        title: "Requests per layout",
        columns: [
          "layout",
          "keystrokes",
          "requests (after debounce)",
          "cancelled",
          "no text",
          "prompt tokens",
          "cached",
          "evaluated per request p50 / p90",
        ],
        rows: [...byLayout].map(([name, summary]) => [
          name,
          keystrokes,
          summary.requests,
          summary.cancelled,
          summary.withoutText,
          summary.prompt,
          summary.cached,
          `${round(summary.evaluated.p50, 1)} / ${round(summary.evaluated.p90, 1)}`,
        ]),
      },
    ],
    charts: [],
    notes: [
      `Keystroke → first token counts the ${DEBOUNCE_MS} ms debounce: Cody waits 75–125 ms and Continue 350 ms before they even send.`,
      "A request that ends without text (cancelled first, or every line truncated) has no first-token time; it is counted under 'no text'.",
      "Before the first keystroke the document is opened (one untimed request with the prefix window), as an editor's first request after opening a file would; the typing that follows is what is measured.",
      `PSM split at the cursor puts the suffix (${SUFFIX_CHARS} characters here) after the prefix, so every keystroke evaluates it again; SPM puts it before the prefix, so a keystroke evaluates the typed tokens and <|fim_middle|>; the line split (the default) ends the prefix at the cursor line's start and puts the line's typed text after <|fim_middle|>, so a keystroke evaluates the typed tokens and the suffix is evaluated again when a line is done. Every server runs the same model and the same keystrokes, one after the other.`,
    ],
    data: { samples },
  };
}
