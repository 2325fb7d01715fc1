// Debian's chromium driven by playwright-core for the browser tests and the bench. No browser is
// ever downloaded: without /usr/bin/chromium the tests skip (and fail under CI=true, where
// .ci/run installs it).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

export const CHROMIUM_PATH = process.env.SPARK_CHROMIUM ?? "/usr/bin/chromium";

/** The flags every test's chromium starts with: no sandbox, GPU or background traffic. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Why the browser tests cannot run here, or undefined when they can. */
export function chromiumMissingReason(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const reason = `${CHROMIUM_PATH} is missing (apt-get install -y chromium)`;
  if (process.env.CI === "true") {
    throw new Error(`The browser tests must run in CI, but ${reason}.`);
  }
  return reason;
}

export interface LaunchedChromium {
  /** One browser profile in a fresh user-data directory; each page is a tab of it. */
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<LaunchedChromium> {
  const userDataDirectory = mkdtempSync(path.join(os.tmpdir(), "spark-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDirectory, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ["--headless", ...CHROMIUM_ARGS],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDirectory, { recursive: true, force: true });
    },
  };
}
