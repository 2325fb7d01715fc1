// What the browser app tests share: one chromium for the file, a fresh `spark serve` per case
// (the script plays its lines in order), pages that fail the case on any page error, and the
// steps every case takes (send a message, wait for the turn to end, take a screenshot).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { launchChromium, type LaunchedChromium } from "./chromium.ts";
import { startSparkServe, type SparkServeProcess } from "./spark-serve-process.ts";

export const SCREENSHOTS = fileURLToPath(new URL("../../../test-results/web/", import.meta.url));

export interface BrowserAppHarness {
  readonly chromium: LaunchedChromium;
  server: SparkServeProcess | undefined;
  readonly pageErrors: string[];
  /** Starts a server playing these turns and opens the app in a new tab. */
  open: (turns: unknown[], hash?: string) => Promise<Page>;
  /** Another tab on the running server. */
  newPage: (hash?: string) => Promise<Page>;
}

/** Call inside a describe: registers the hooks that launch chromium and clean up after cases. */
export function useBrowserApp(): BrowserAppHarness {
  const harness = {
    chromium: undefined as unknown as LaunchedChromium,
    server: undefined as SparkServeProcess | undefined,
    pageErrors: [] as string[],
    async open(turns: unknown[], hash = ""): Promise<Page> {
      harness.server = await startSparkServe(turns);
      return harness.newPage(hash);
    },
    async newPage(hash = ""): Promise<Page> {
      if (harness.server === undefined) throw new Error("start a server first");
      const page = await harness.chromium.context.newPage();
      page.on("pageerror", (error) => harness.pageErrors.push(error.message));
      await page.goto(`${harness.server.url}/${hash}`);
      await page.getByTestId("connection").filter({ hasText: "connected" }).waitFor();
      return page;
    },
  };
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    harness.chromium = await launchChromium();
  });
  afterAll(() => harness.chromium?.close());
  afterEach(async () => {
    for (const page of harness.chromium.context.pages()) await page.close();
    await harness.server?.close();
    harness.server = undefined;
    expect(harness.pageErrors.splice(0)).toEqual([]);
  });
  return harness;
}

export async function send(page: Page, text: string, key = "Enter"): Promise<void> {
  const input = page.locator("#composer-input");
  await input.fill(text);
  await input.press(key);
  await page.waitForFunction(
    () => (document.querySelector("#composer-input") as HTMLTextAreaElement).value === "",
  );
}

export const lastReply = (page: Page) => page.getByTestId("assistant-message").last();

export const waitForIdle = (page: Page) =>
  page.waitForFunction(() => {
    const app = (
      window as unknown as {
        sparkApp: {
          getState(): { view: { transcript: { status: string; activeTurnId?: string } } };
        };
      }
    ).sparkApp;
    const transcript = app.getState().view.transcript;
    return transcript.status === "idle" && transcript.activeTurnId === undefined;
  });

export const shoot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), animations: "disabled" });

export const slowText = (words: number): string =>
  Array.from({ length: words }, (_, index) => `word${index}`).join(" ");

/** How far the conversation's end is below what is in view, in pixels (0: at the end). */
export const distanceFromEnd = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const transcript = document.querySelector(".transcript") as HTMLElement;
    return transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight;
  });
