// A probe in the code-server page that times keystroke → ghost text visible in chromium's own
// clock: the first painted frame after a keydown in which ghost text shows and is not the text
// shown at the keydown (or was hidden since). Departing keys and typed-through keys both count.
import type { Page } from "playwright-core";
import { visibleText } from "./workbench.ts";

interface GhostProbe {
  keyAt: number;
  shownAt: number;
  atKey: string;
  hidden: boolean;
}

declare global {
  interface Window {
    sparkGhostProbe?: GhostProbe;
  }
}

/** Installs the probe (once per page). */
export async function installGhostProbe(page: Page): Promise<void> {
  await page.evaluate(() => {
    const probe: GhostProbe = { keyAt: 0, shownAt: 0, atKey: "", hidden: false };
    window.sparkGhostProbe = probe;
    const ghostText = (): string =>
      Array.from(document.querySelectorAll(".monaco-editor .ghost-text-decoration"))
        .map((element) => element.textContent ?? "")
        .join("");
    document.addEventListener(
      "keydown",
      () => {
        probe.keyAt = performance.now();
        probe.shownAt = 0;
        probe.atKey = ghostText();
        probe.hidden = false;
      },
      true,
    );
    new MutationObserver(() => {
      if (probe.keyAt === 0 || probe.shownAt !== 0) return;
      const text = ghostText();
      if (text === "") {
        probe.hidden = true;
        return;
      }
      if (text === probe.atKey && !probe.hidden) return;
      // The frame that paints it.
      probe.shownAt = -1;
      requestAnimationFrame(() => {
        probe.shownAt = performance.now();
      });
    }).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
  });
}

/** The ghost text shown now (spaces as spaces), "" when none. */
export async function shownGhostText(page: Page): Promise<string> {
  const text = await page.evaluate(() =>
    Array.from(document.querySelectorAll(".monaco-editor .ghost-text-decoration"))
      .map((element) => element.textContent ?? "")
      .join(""),
  );
  return visibleText(text);
}

/** Presses `key` and returns ms from its keydown to ghost text painted, or undefined on timeout. */
export async function pressAndTime(
  page: Page,
  key: string,
  timeoutMs: number,
): Promise<number | undefined> {
  await page.keyboard.press(key);
  const latency = await page
    .waitForFunction(
      () => {
        const probe = window.sparkGhostProbe;
        return probe !== undefined && probe.shownAt > 0 ? probe.shownAt - probe.keyAt : false;
      },
      undefined,
      { timeout: timeoutMs, polling: 10 },
    )
    .then((handle) => handle.jsonValue())
    .catch(() => false as const);
  return latency === false ? undefined : latency;
}

/** p50, p90, min, max (ms, rounded) of `values`; NaN when empty. */
export function percentiles(values: number[]): Record<string, number> {
  const sorted = [...values].sort((left, right) => left - right);
  const at = (share: number): number =>
    Math.round(
      sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN,
    );
  return {
    p50Ms: at(0.5),
    p90Ms: at(0.9),
    minMs: Math.round(sorted[0] ?? Number.NaN),
    maxMs: Math.round(sorted.at(-1) ?? Number.NaN),
  };
}
