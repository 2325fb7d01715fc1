// The browser app at engine speed: Debian's chromium renders one agent reply streamed by the
// synthetic engine at 5,000 tokens/s through the real gateway and app server. Measured in the
// page: frame intervals while streaming, long tasks, and per frame the lag of the newest
// rendered token behind the moment the engine produced it (both clocks are the machine's
// epoch clock). Not a test: it prints numbers, and asserts nothing about speed.
//
//   npx tsx bench/web-app-render.ts [--tokens 20000] [--rate 5000]
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import type { Page } from "playwright-core";
import { InProcessModelClient } from "../src/agent/model-client/in-process-model-client.ts";
import { createAgentUpgrade } from "../src/app-server/agent-upgrade.ts";
import { createAppServer } from "../src/app-server/app-server.ts";
import type { Engine, EngineEvent } from "../src/engines/engine.ts";
import { createSyntheticEngine } from "../src/engines/synthetic/synthetic-engine.ts";
import { createGateway, modelsFromEngine } from "../src/gateway/index.ts";
import { AGENT_PROTOCOL_PATH } from "../src/protocol/agent/index.ts";
import { chromiumMissingReason, launchChromium } from "../test/web/support/chromium.ts";
import { summarize } from "./lib/stats.ts";

const { values } = parseArgs({
  options: {
    tokens: { type: "string", default: "20000" },
    rate: { type: "string", default: "5000" },
  },
});
const tokens = Number(values.tokens);
const tokensPerSecond = Number(values.rate);
const epochNow = (): number => performance.timeOrigin + performance.now();

/** Unique words (w0, w1, …) in paragraphs, every fifth one a fenced code block, with some bold. */
function replyText(count: number): string {
  const parts: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const word = index % 7 === 3 ? `**w${index}**` : `w${index}`;
    const paragraph = Math.floor(index / 40);
    const inCode = paragraph % 5 === 4;
    const start = index % 40 === 0;
    const end = index % 40 === 39;
    parts.push(
      `${start && inCode ? "```ts\n" : ""}${inCode ? `w${index}` : word}${end ? (inCode ? "\n```\n\n" : "\n\n") : " "}`,
    );
  }
  return parts.join("");
}

/** Before the app loads: when each word arrived over the WebSocket, to split lag into transport and render. */
const ARRIVALS = `(() => {
  const arrivals = new Map();
  window.benchArrivals = arrivals;
  const Original = window.WebSocket;
  window.WebSocket = class extends Original {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        if (typeof event.data !== "string" || !event.data.includes("text-delta")) return;
        const at = performance.timeOrigin + performance.now();
        for (const match of event.data.matchAll(/w(\\d+)/g)) if (!arrivals.has(Number(match[1]))) arrivals.set(Number(match[1]), at);
      });
    }
  };
})()`;

/** Every frame: the newest word in the last rendered block of the last reply, and the interval. */
const SAMPLER = `(() => {
  const samples = [];
  const longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longTasks.push(entry.duration);
  }).observe({ type: "longtask" });
  let previous = performance.now();
  const sample = (now) => {
    const block = Array.from(document.querySelectorAll(".assistant .markdown")).at(-1)?.lastElementChild;
    const match = /w(\\d+)\\D*$/.exec(block?.textContent ?? "");
    samples.push({ at: performance.timeOrigin + now, word: match === null ? -1 : Number(match[1]), interval: now - previous });
    previous = now;
    requestAnimationFrame(sample);
  };
  requestAnimationFrame(sample);
  window.benchSamples = { samples, longTasks };
})()`;

async function pollPage(page: Page, condition: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(condition))) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting in the page for: ${condition}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const missing = chromiumMissingReason();
if (missing !== undefined) {
  console.log(`Skipped: ${missing}.`);
  process.exit(0);
}

// The engine's clock: when each word token was produced (indexed by its number).
const producedAt = new Map<number, number>();
const deltaTimes: number[] = [];
const synthetic = createSyntheticEngine({
  tokensPerSecond,
  tokens,
  text: replyText(tokens),
  model: "synthetic",
});
const engine: Engine = {
  kind: synthetic.kind,
  listModels: () => synthetic.listModels(),
  dispose: () => synthetic.dispose(),
  [Symbol.asyncDispose]: () => synthetic.dispose(),
  async *stream(request, options): AsyncGenerator<EngineEvent> {
    for await (const event of synthetic.stream(request, options)) {
      if (event.type === "text-delta") {
        const now = epochNow();
        deltaTimes.push(now);
        for (const match of event.text.matchAll(/w(\d+)/g)) producedAt.set(Number(match[1]), now);
      }
      yield event;
    }
  },
};

const base = mkdtempSync(path.join(os.tmpdir(), "spark-web-bench-"));
const appServer = createAppServer({
  workspaceRoots: [base],
  sessionsDirectory: path.join(base, "sessions"),
  models: {
    defaultModel: "synthetic",
    list: async () => [{ id: "synthetic", engine: "synthetic" }],
    open: async () => ({
      name: "synthetic",
      client: new InProcessModelClient(engine),
      close: async () => {},
    }),
  },
  instructions: "Benchmark.",
});
const agentUpgrade = createAgentUpgrade({ appServer, apiKeys: [], allowedOrigins: [] });
const gateway = createGateway({
  models: modelsFromEngine(engine),
  config: { host: "127.0.0.1", port: 0 },
  webSocketRoutes: { [AGENT_PROTOCOL_PATH]: agentUpgrade.handleUpgrade },
});
const { url } = await gateway.listen();
const chromium = await launchChromium();

try {
  const page = await chromium.context.newPage();
  await page.addInitScript(ARRIVALS);
  await page.goto(`${url}/`);
  await page.getByTestId("connection").filter({ hasText: "connected" }).waitFor();
  // The sampler: every frame, the newest word in the last rendered block of the reply.
  // A string, not a function: tsx's name-keeping helpers do not exist in the page.
  await page.evaluate(SAMPLER);
  await page.locator("#composer-input").fill("Stream a long answer.");
  await page.locator("#composer-input").press("Enter");
  // Markdown markers take tokens too, so the last word is whichever the engine produced last.
  // Polled from here: the page's CSP forbids the eval that waitForFunction would need.
  await pollPage(
    page,
    `window.sparkApp.getState().view.transcript.status === "idle" && window.sparkApp.getState().view.transcript.items.length > 1`,
  );
  const last = Math.max(...producedAt.keys());
  await pollPage(page, `window.benchSamples.samples.some((sample) => sample.word === ${last})`);
  await page.waitForTimeout(200);
  const { samples, longTasks } = await page.evaluate(
    () =>
      (
        window as unknown as {
          benchSamples: {
            samples: { at: number; word: number; interval: number }[];
            longTasks: number[];
          };
        }
      ).benchSamples,
  );
  const arrivals = new Map(
    await page.evaluate<[number, number][]>("Array.from(window.benchArrivals.entries())"),
  );
  const transport = summarize([...arrivals].map(([word, at]) => at - (producedAt.get(word) ?? at)));
  const renderLags = samples
    .filter((sample) => arrivals.has(sample.word))
    .map((sample) => sample.at - (arrivals.get(sample.word) ?? 0));
  const render = summarize(renderLags);
  const first = producedAt.get(0) ?? 0;
  const end = producedAt.get(last) ?? 0;
  const streaming = samples.filter((sample) => sample.at >= first && sample.at <= end + 50);
  const lags = streaming
    .filter((sample) => producedAt.has(sample.word))
    .map((sample) => sample.at - (producedAt.get(sample.word) ?? 0));
  const lastShown = samples.find((sample) => sample.word === last);
  const frames = summarize(streaming.map((sample) => sample.interval));
  const lag = summarize(lags);
  const format = (value: number): string => value.toFixed(1);
  console.log(
    `Browser app render bench: ${tokens} tokens at ${tokensPerSecond} tokens/s (synthetic engine, chromium ${chromium.context.browser()?.version() ?? ""})`,
  );
  const streamedMs = (deltaTimes.at(-1) ?? 0) - (deltaTimes[0] ?? 0);
  console.log(
    `  engine streamed ${deltaTimes.length} text deltas in ${format(streamedMs)} ms (${format((deltaTimes.length / streamedMs) * 1000)} tokens/s achieved)`,
  );
  console.log(
    `  frames while streaming: ${streaming.length}; interval p50 ${format(frames.p50)} ms, p90 ${format(frames.p90)} ms, p99 ${format(frames.p99)} ms, max ${format(frames.max)} ms; over 50 ms: ${streaming.filter((sample) => sample.interval > 50).length}`,
  );
  console.log(
    `  lag of the newest rendered token: p50 ${format(lag.p50)} ms, p90 ${format(lag.p90)} ms, p99 ${format(lag.p99)} ms, max ${format(lag.max)} ms`,
  );
  console.log(
    `    of which engine → page (server, socket): p50 ${format(transport.p50)} ms, p90 ${format(transport.p90)} ms, max ${format(transport.max)} ms`,
  );
  console.log(
    `    of which arrival → on screen (the page): p50 ${format(render.p50)} ms, p90 ${format(render.p90)} ms, p99 ${format(render.p99)} ms, max ${format(render.max)} ms`,
  );
  console.log(
    `  last token on screen ${format((lastShown?.at ?? Number.NaN) - end)} ms after the engine produced it`,
  );
  console.log(
    `  long tasks: ${longTasks.length}, ${format(longTasks.reduce((sum, duration) => sum + duration, 0))} ms in all`,
  );
} finally {
  await chromium.close();
  await appServer.close();
  agentUpgrade.close();
  await gateway.close();
  rmSync(base, { recursive: true, force: true });
}
