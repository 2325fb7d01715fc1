// Scenario 8: FIM completions while typing. A real file from node_modules is typed back one key at
// a time against the real gateway (its own process), one streamed /v1/completions request per
// keystroke after a debounce, the document's cache kept between them and the stale one cancelled.
// Measured: keystroke → first completion token, the share of prompt tokens served from the KV
// cache, and how many requests a newer keystroke cancelled.
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { ensureTestModel } from "../../test/support/test-model.ts";
import { BenchServer } from "../lib/bench-server.ts";
import type { Scenario } from "../lib/scenario.ts";
import { figure, type ScenarioResult } from "../lib/scenario-result.ts";
import { round, summarize, type Summary } from "../lib/stats.ts";
import { debounced, typingSession, type Keystroke } from "../lib/typing-session.ts";

const FILE = fileURLToPath(new URL("../../node_modules/ws/lib/sender.js", import.meta.url));
const EXTRA_FILE = fileURLToPath(
  new URL("../../node_modules/ws/lib/constants.js", import.meta.url),
);
const DEBOUNCE_MS = 20;
const MAX_TOKENS = 16;
const TIME_BUDGET_MS = 300;

interface RequestSample {
  keystroke: number;
  /** Keystroke → first text chunk (null: none came, e.g. cancelled first). */
  firstTokenMs: number | null;
  /** Request sent → first text chunk. */
  requestToFirstTokenMs: number | null;
  finishReason: string;
  promptTokens: number;
  cachedTokens: number;
}

interface CompletionChunk {
  choices: { text: string; finish_reason: string | null }[];
  usage?: { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } };
}

export const fimTyping: Scenario = {
  number: 8,
  id: "fim-typing",
  title: "FIM completions while typing",
  async run(settings) {
    const startedAt = new Date();
    const keystrokeCount = { full: 240, quick: 80, smoke: 8 }[settings.size];
    const server = await BenchServer.start(
      {
        engine: {
          kind: "llama-cpp",
          modelPath: settings.modelPath ?? (await ensureTestModel({ fimTokens: true })),
          threads: settings.threads,
          contextSize: 4096,
          sequences: 4,
        },
        probe: false,
      },
      settings.signal,
    );
    const extra = [{ filename: "lib/constants.js", text: await readFile(EXTRA_FILE, "utf8") }];
    const keystrokes = await typingSession({
      path: FILE,
      keystrokes: keystrokeCount,
      prefixChars: 1500,
      suffixChars: 120,
    });
    const sent = debounced(keystrokes, DEBOUNCE_MS);
    const samples: RequestSample[] = [];
    try {
      // The file was open before typing began: an editor's first request (opening it, or the
      // cursor's first stop) has already put the other file and the prefix window in the cache.
      const opened = keystrokes[0];
      if (opened !== undefined)
        await complete(
          server,
          { ...opened, prefix: opened.prefix.slice(0, -1) },
          extra,
          "lib/sender.js",
        );
      const sessionStart = performance.now();
      const running: Promise<void>[] = [];
      for (const [index, keystroke] of sent.entries()) {
        settings.signal.throwIfAborted();
        const sendAt = sessionStart + keystroke.atMs + DEBOUNCE_MS;
        const wait = sendAt - performance.now();
        if (wait > 0) await sleep(wait);
        const keystrokeAt = sessionStart + keystroke.atMs;
        running.push(
          complete(server, keystroke, extra, "lib/sender.js").then((result) => {
            samples.push({
              keystroke: index,
              ...result,
              firstTokenMs: result.firstTokenAt === null ? null : result.firstTokenAt - keystrokeAt,
              requestToFirstTokenMs:
                result.firstTokenAt === null ? null : result.firstTokenAt - result.sentAt,
            });
          }),
        );
      }
      await Promise.all(running);
    } finally {
      await server.close();
    }
    samples.sort((left, right) => left.keystroke - right.keystroke);
    return buildResult(samples, keystrokes.length, startedAt, {
      model: settings.modelPath ?? "test model (tiny, FIM tokens)",
      threads: settings.threads,
      file: "node_modules/ws/lib/sender.js (typed back from a third of the way in)",
      extraContext: "node_modules/ws/lib/constants.js as input_extra",
      keystrokes: keystrokes.length,
      debounceMs: DEBOUNCE_MS,
      keyGapsMs: "40–180, varied",
      prefixWindowChars: 1500,
      suffixChars: 120,
      maxTokens: MAX_TOKENS,
      timeBudgetMs: TIME_BUDGET_MS,
      size: settings.size,
    });
  },
};

async function complete(
  server: BenchServer,
  keystroke: Keystroke,
  extra: { filename: string; text: string }[],
  document: string,
): Promise<{
  sentAt: number;
  firstTokenAt: number | null;
  finishReason: string;
  promptTokens: number;
  cachedTokens: number;
}> {
  const sentAt = performance.now();
  const response = await fetch(`${server.url}/v1/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: server.model,
      prompt: keystroke.prefix,
      suffix: keystroke.suffix,
      input_extra: extra,
      filename: document,
      prompt_cache_key: document,
      max_tokens: MAX_TOKENS,
      temperature: 0,
      t_max_predict_ms: TIME_BUDGET_MS,
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  let firstTokenAt: number | null = null;
  let finishReason = "none";
  let promptTokens = 0;
  let cachedTokens = 0;
  let buffered = "";
  const decoder = new TextDecoder();
  if (response.body === null) throw new Error(`No body (HTTP ${response.status}).`);
  const reader = response.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffered += decoder.decode(read.value, { stream: true });
    let boundary = buffered.indexOf("\n\n");
    while (boundary !== -1) {
      const block = buffered.slice(0, boundary);
      buffered = buffered.slice(boundary + 2);
      boundary = buffered.indexOf("\n\n");
      if (!block.startsWith("data: ") || block === "data: [DONE]") continue;
      const chunk = JSON.parse(block.slice("data: ".length)) as CompletionChunk;
      const choice = chunk.choices[0];
      if (choice !== undefined && choice.text !== "") firstTokenAt ??= performance.now();
      if (choice?.finish_reason != null) finishReason = choice.finish_reason;
      if (chunk.usage !== undefined) {
        promptTokens = chunk.usage.prompt_tokens;
        cachedTokens = chunk.usage.prompt_tokens_details.cached_tokens;
      }
    }
  }
  if (response.status !== 200) finishReason = `http ${response.status}`;
  return { sentAt, firstTokenAt, finishReason, promptTokens, cachedTokens };
}

function buildResult(
  samples: RequestSample[],
  keystrokes: number,
  startedAt: Date,
  configuration: Record<string, unknown>,
): ScenarioResult {
  const firstToken = summarize(
    samples.flatMap((sample) => (sample.firstTokenMs === null ? [] : [sample.firstTokenMs])),
  );
  const requestToFirst = summarize(
    samples.flatMap((sample) =>
      sample.requestToFirstTokenMs === null ? [] : [sample.requestToFirstTokenMs],
    ),
  );
  const prompt = samples.reduce((sum, sample) => sum + sample.promptTokens, 0);
  const cached = samples.reduce((sum, sample) => sum + sample.cachedTokens, 0);
  const cachedShare = prompt === 0 ? null : (100 * cached) / prompt;
  const cancelled = samples.filter((sample) => sample.finishReason === "cancelled").length;
  const withoutText = samples.filter((sample) => sample.firstTokenMs === null).length;
  const row = (name: string, summary: Summary) => [
    name,
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
    figures: [
      figure("keystroke → first completion token p50", round(firstToken.p50, 1), "ms", {
        comparison: "<=",
        value: 50,
      }),
      figure("keystroke → first completion token p99", round(firstToken.p99, 1), "ms"),
      figure(
        "prompt tokens served from cache",
        cachedShare === null ? null : round(cachedShare, 1),
        "%",
        {
          comparison: ">=",
          value: 90,
        },
      ),
      figure("requests cancelled by a newer keystroke", cancelled, "requests"),
    ],
    tables: [
      {
        title: "Latency (ms); keystroke → first token includes the debounce",
        columns: ["measure", "n", "p50", "p90", "p99", "max"],
        rows: [
          row("keystroke → first token", firstToken),
          row("request → first token", requestToFirst),
        ],
      },
      {
        title: "Requests",
        columns: [
          "keystrokes",
          "requests (after debounce)",
          "cancelled",
          "no text",
          "prompt tokens",
          "cached",
        ],
        rows: [[keystrokes, samples.length, cancelled, withoutText, prompt, cached]],
      },
    ],
    charts: [],
    notes: [
      `Keystroke → first token counts the ${DEBOUNCE_MS} ms debounce: Cody waits 75–125 ms and Continue 350 ms before they even send.`,
      "A request that ends without text (cancelled first, or every line truncated) has no first-token time; it is counted under 'no text'.",
      "Before the first keystroke the document is opened (one untimed request with the prefix window), as an editor's first request after opening a file would; the typing that follows is what is measured.",
      "The suffix is re-evaluated on every keystroke (PSM order puts it after the prefix), so the cached share falls as the suffix sent grows.",
    ],
    data: { samples },
  };
}
