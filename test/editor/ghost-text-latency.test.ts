// Keystroke → ghost text visible, measured in chromium's own clock inside a real code-server
// against a real `spark serve` (scripted engine: its time is included): each sample is one key
// that departs from the ghost text shown, so it needs a new completion from the server. The
// figures are written to test-results/editor/ghost-text-latency.json and printed; the test
// asserts what must hold whatever the machine's speed: every key got its ghost text, with at most
// one request per key.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { chromiumMissingReason } from "../web/support/chromium.ts";
import { codeServerMissingReason } from "./support/code-server.ts";
import { useEditorSuite } from "./support/editor-suite.ts";
import { openFile, requestCount, SCREENSHOTS, sleep } from "./support/workbench.ts";

const SAMPLES = 20;
const missing = chromiumMissingReason() ?? codeServerMissingReason();
if (missing !== undefined) console.warn(`Skipping the ghost-text latency test: ${missing}.`);

interface GhostProbe {
  keyAt: number;
  shownAt: number;
  shownText: string;
  previousText: string;
}

declare global {
  interface Window {
    sparkGhostProbe?: GhostProbe;
  }
}

describe.skipIf(missing !== undefined)("ghost text latency in code-server", () => {
  const editor = useEditorSuite();

  it("shows ghost text for each departing keystroke, one request per key at most", async () => {
    // Distinct answers, so a sample waits for its own ghost text, not the one before.
    const turns = Array.from({ length: SAMPLES + 80 }, (_, index) => ({
      text: `compute${index}(1, 2);`,
    }));
    const workbench = await editor.open({
      turns,
      files: { "sum.js": "function add(a, b) {\n  return a + b;\n}\n\n" },
      completions: true,
    });
    const { page, server } = workbench;
    await openFile(page, "sum.js");
    await page.locator(".monaco-editor .view-line").nth(3).click();
    await page.keyboard.press("End");
    await page.keyboard.type("const total = ", { delay: 30 });
    await page.locator(".ghost-text-decoration").first().waitFor({ timeout: 30_000 });
    await page.evaluate(() => {
      const probe: GhostProbe = { keyAt: 0, shownAt: 0, shownText: "", previousText: "" };
      window.sparkGhostProbe = probe;
      const ghostText = (): string =>
        Array.from(document.querySelectorAll(".monaco-editor .ghost-text-decoration"))
          .map((element) => element.textContent ?? "")
          .join("");
      probe.previousText = ghostText();
      document.addEventListener(
        "keydown",
        () => {
          probe.keyAt = performance.now();
          probe.shownAt = 0;
        },
        true,
      );
      new MutationObserver(() => {
        if (probe.keyAt === 0 || probe.shownAt !== 0) return;
        const text = ghostText();
        if (text === "" || text === probe.previousText) return;
        // The frame that paints the new ghost text.
        probe.shownAt = -1;
        requestAnimationFrame(() => {
          probe.shownAt = performance.now();
          probe.shownText = text;
          probe.previousText = text;
        });
      }).observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
    });
    const before = requestCount(server, "POST /v1/completions");
    const latencies: number[] = [];
    for (let sample = 0; sample < SAMPLES; sample++) {
      // "q" never starts a scripted answer: each key departs from the ghost text shown.
      await page.keyboard.press("q");
      const latency = await page
        .waitForFunction(
          () => {
            const probe = window.sparkGhostProbe;
            return probe !== undefined && probe.shownAt > 0 ? probe.shownAt - probe.keyAt : false;
          },
          undefined,
          { timeout: 10_000, polling: 20 },
        )
        .then((handle) => handle.jsonValue());
      if (latency !== false) latencies.push(latency);
      await sleep(300);
    }
    const requests = requestCount(server, "POST /v1/completions") - before;

    // Typing on, at a typist's uneven pace: how many requests the keystrokes cost.
    await page.keyboard.press("End");
    await page.keyboard.press("Enter");
    const beforeTyping = requestCount(server, "POST /v1/completions");
    const typed = "let answer = computeTheTotal(first, second);";
    const gapsMs = [60, 90, 120, 150, 80, 200, 70, 110];
    for (const [index, character] of [...typed].entries()) {
      await page.keyboard.type(character);
      await sleep(gapsMs[index % gapsMs.length] ?? 100);
    }
    await sleep(1_000);
    const typingRequests = requestCount(server, "POST /v1/completions") - beforeTyping;
    const sorted = [...latencies].sort((left, right) => left - right);
    const percentile = (share: number): number =>
      sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
    const report = {
      samples: latencies.length,
      medianMs: Math.round(percentile(0.5)),
      p90Ms: Math.round(percentile(0.9)),
      minMs: Math.round(sorted[0] ?? Number.NaN),
      maxMs: Math.round(sorted.at(-1) ?? Number.NaN),
      requests,
      requestsPerKey: requests / latencies.length,
      typedKeys: typed.length,
      typingRequests,
      typingRequestsPerKey: Number((typingRequests / typed.length).toFixed(2)),
      latenciesMs: latencies.map(Math.round),
    };
    mkdirSync(SCREENSHOTS, { recursive: true });
    writeFileSync(
      path.join(SCREENSHOTS, "ghost-text-latency.json"),
      JSON.stringify(report, null, 2),
    );
    console.log(`keystroke → ghost text: ${JSON.stringify(report)}`);
    expect(latencies).toHaveLength(SAMPLES);
    expect(requests).toBeLessThanOrEqual(SAMPLES);
  });
});
