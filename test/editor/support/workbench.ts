// One code-server window for the extension's end-to-end tests (a test's own, or one tests share:
// see shared-window.ts): a real `spark serve` (scripted engine; the suite's are started ahead,
// see spark-serve-pool.ts), a window of the test file's code-server on a new workspace folder, in
// a new browser context (its own storage: secrets, state). The helpers drive it the way a user
// does: the command palette, the explorer, notifications.
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { startSparkServe, type SparkServeProcess } from "../../web/support/spark-serve-process.ts";
import type { CodeServer } from "./code-server.ts";
import type { SparkServePool, WindowFolder } from "./spark-serve-pool.ts";
import { SuiteTimings } from "./suite-timings.ts";

/** Monaco renders spaces as no-break spaces. */
export const visibleText = (text: string): string => text.replace(/\u00a0/g, " ");
export const SCREENSHOTS = fileURLToPath(new URL("../../../test-results/editor/", import.meta.url));

export interface WorkbenchOptions {
  /** The scripted model's turns, one per request. */
  turns: unknown[];
  files?: Record<string, string>;
  /** spark serve's config.toml (e.g. API keys). */
  configToml?: string;
  /**
   * spark.serverUrl; default: the started server's URL. A test whose messages quote the address
   * (or that starts a server there) names it here, and has a window of its own.
   */
  serverUrl?: (server: SparkServeProcess) => string | Promise<string>;
  /**
   * Where the window's requests go instead of the test's server (a proxy in front of it, a server
   * that hangs), when no message the test reads quotes that address: a shared window's switch
   * forwards there (see shared-window.ts); a window of its own names it as `serverUrl`.
   */
  forwardTo?: (server: SparkServeProcess) => string | Promise<string>;
  settings?: Record<string, unknown>;
  /** Ghost text on (default off). */
  completions?: boolean;
}

export interface Workbench {
  page: Page;
  /** The browser context of this window alone. */
  context: BrowserContext;
  server: SparkServeProcess;
  editor: CodeServer;
  root: string;
  close(): Promise<void>;
}

export interface WorkbenchSetup {
  /** Where the phases of opening and closing the window are timed. */
  timings?: SuiteTimings;
  /** Where the window's `spark serve` comes from (default: one started for it). */
  servers?: Pick<SparkServePool, "take">;
  /** The folder the window opens (default: its server's workspace). */
  folder?: WindowFolder;
}

/** Opens a window on `editor` for a new `spark serve`; its user settings are the test's alone. */
export async function openWorkbench(
  browser: Browser,
  editor: CodeServer,
  options: WorkbenchOptions,
  {
    timings = new SuiteTimings(),
    servers = { take: startSparkServe },
    folder,
  }: WorkbenchSetup = {},
): Promise<Workbench> {
  const server = await timings.time("open: spark serve", () =>
    servers.take(options.turns, { configToml: options.configToml }),
  );
  const windowFolder: WindowFolder = folder ?? server.workspace;
  const { root } = windowFolder;
  for (const [name, content] of Object.entries(options.files ?? {}))
    windowFolder.write(name, content);
  const address = options.serverUrl ?? options.forwardTo;
  const serverUrl = address === undefined ? server.url : await address(server);
  editor.resetUserSettings({
    "spark.serverUrl": serverUrl,
    "workbench.startupEditor": "none",
    "security.workspace.trust.enabled": false,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "update.mode": "none",
    "editor.inlineSuggest.enabled": true,
    // Where TypeScript is on (see disabled-extensions.ts): no `npm install` of type packages.
    "typescript.disableAutomaticTypeAcquisition": true,
    // VS Code's own suggest widget, which pops up as the tests type (under load at any key):
    // while it is open an inline suggestion shows as a preview inside it and Tab takes the
    // widget's item, so the tests of Spark's ghost text keep it closed.
    "editor.quickSuggestions": { other: false, comments: false, strings: false },
    "editor.suggestOnTriggerCharacters": false,
    "chat.disableAIFeatures": true,
    // An empty secondary side bar (Chat's place) took a third of the editor's width, so the diff
    // tab fell back to its inline view; a full run once found the focus outside the proposal after
    // three clicks in that view. A desktop window this size shows the diff side by side.
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    // VS Code desktop's default; code-server (a web build) saves after a second by default,
    // which would hide whether the extension saved a file itself.
    "files.autoSave": "off",
    // Painting no test looks at: every keystroke redraws these in each window, on the CPU
    // (chromium runs without a GPU here). Off, two editor files took ~6% less CPU.
    "editor.minimap.enabled": false,
    "breadcrumbs.enabled": false,
    "editor.stickyScroll.enabled": false,
    "editor.occurrencesHighlight": "off",
    "editor.bracketPairColorization.enabled": false,
    "editor.guides.indentation": false,
    "editor.lightbulb.enabled": "off",
    // Ghost-text requests would use up the scripted turns meant for other requests.
    "spark.enableCompletions": options.completions ?? false,
    // The existing quick-edit and Apply tests drive the diff tab; vscode-inline-review tests the
    // default, inline review, by setting "inline".
    "spark.editReview": "diff",
    ...options.settings,
  });
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    // code-server gzips every response it sends (workbench.js alone is 19 MB, ~0.5 s of CPU at
    // gzip's default level), for each window again, since each has its own browser cache; over
    // loopback the bytes cost nothing. Uncompressed, code-server's CPU for the vscode-extension
    // file's three windows went from 9.6 to 6.8 s.
    extraHTTPHeaders: { "Accept-Encoding": "identity" },
  });
  const page = await context.newPage();
  const close = async (): Promise<void> => {
    // Leaving the page disconnects the window gracefully: code-server ends its extension host
    // now instead of keeping it for a reconnection.
    await timings.time("close: leave the page", async () => {
      for (const open of context.pages())
        await open.goto("about:blank", { timeout: 10_000 }).catch(() => undefined);
    });
    await timings.time("close: browser context", () => context.close());
    await timings.time("close: spark serve", () => server.close());
  };
  try {
    await timings.time("open: workbench", async () => {
      await page.goto(`${editor.url}/?folder=${encodeURIComponent(root)}`);
      await page.locator(".monaco-workbench").waitFor({ timeout: 90_000 });
    });
    // The status-bar item appears once the extension has activated.
    await timings.time("open: extension activated", () =>
      sparkStatus(page).waitFor({ timeout: 60_000 }),
    );
  } catch (error) {
    await screenshotPages(context, "window-did-not-open");
    await close();
    throw error;
  }
  return { page, context, server, editor, root, close };
}

/** Screenshots of every page of the window (what the editor showed at the end). */
export async function screenshotPages(context: BrowserContext, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const [index, page] of context.pages().entries()) {
    const file = `${name.replace(/\W+/g, "-")}-${index}.png`;
    await page.screenshot({ path: path.join(SCREENSHOTS, file) }).catch(() => undefined);
  }
}

/** A named screenshot of what the page shows now, for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

export function sparkStatus(page: Page): Locator {
  // The item's id is the extension's.
  return page.locator('[id="spark.spark-vscode"]').first();
}

export async function openFile(page: Page, name: string): Promise<void> {
  await page.locator(".monaco-list-row", { hasText: name }).first().click({ timeout: 30_000 });
  await page.locator(".monaco-editor .view-lines").first().waitFor();
}

export async function runCommand(page: Page, title: string): Promise<void> {
  // Under load the palette can open after the keys meant for it (which then land in the editor)
  // or lose them: type only once its input has the focus, and press Enter only once the focused
  // row is the command (the list may still show an earlier filter's focus). The title goes in as
  // one input, as a paste does: typed key by key, every key listed all the commands again and
  // scored them by TF-IDF for "similar commands" (the quick-edit file: 63-67 → 47-49 core-s).
  for (let attempt = 1; ; attempt += 1) {
    await page.keyboard.press("F1");
    await page.locator(".quick-input-widget input").waitFor();
    const focused = await page
      .waitForFunction(
        () => document.activeElement?.closest(".quick-input-widget") != null,
        undefined,
        { timeout: 5_000 },
      )
      .then(
        () => true,
        () => false,
      );
    if (focused) {
      await page.keyboard.insertText(title);
      const row = page
        .locator(".quick-input-list .monaco-list-row.focused", { hasText: title })
        .first();
      const shown = await row.waitFor({ timeout: 10_000 }).then(
        () => true,
        () => false,
      );
      if (shown) {
        await page.keyboard.press("Enter");
        return;
      }
    }
    if (attempt === 3) throw new Error(`the command palette did not run "${title}"`);
    await page.keyboard.press("Escape");
  }
}

/** File: Save All, until no editor tab is dirty (a command the palette dropped is run again). */
export async function saveAll(page: Page): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    await runCommand(page, "File: Save All");
    const saved = await page
      .waitForFunction(() => document.querySelectorAll(".tab.dirty").length === 0, undefined, {
        timeout: 5_000,
      })
      .then(
        () => true,
        () => false,
      );
    if (saved) return;
    if (attempt === 3) throw new Error("File: Save All left an editor unsaved three times");
  }
}

/**
 * Changes user settings the way a user does, in the settings.json editor: code-server does not
 * notice the file changing on disk under it.
 */
export async function updateUserSettings(
  workbench: Workbench,
  changes: Record<string, unknown>,
): Promise<void> {
  const { page, editor } = workbench;
  editor.updateUserSettings(changes);
  await runCommand(page, "Preferences: Open User Settings (JSON)");
  // It may open as a tab or as a floating editor: either way, the editor showing the settings.
  const settingsEditor = page.locator(".monaco-editor", { hasText: "workbench.startupEditor" });
  await settingsEditor.first().waitFor();
  await settingsEditor.locator(".view-lines").first().click();
  await page.keyboard.press("Control+A");
  // insertText on one line: no auto-closed brackets or quotes, no auto-indented lines.
  await page.keyboard.insertText(JSON.stringify(editor.userSettings()));
  await page.keyboard.press("Control+S");
  await sleep(500);
  // Under load a key can land before the workbench is ready for it, and the "Save?" dialog can
  // come late: close (saving if asked) until the settings editor is gone.
  const save = page.locator(".monaco-dialog-box .monaco-button", { hasText: /^Save$/ });
  const deadline = Date.now() + 45_000;
  while ((await settingsEditor.count()) > 0) {
    if (Date.now() > deadline) throw new Error("The settings.json editor did not close.");
    if (await save.isVisible()) await save.click();
    else await page.keyboard.press("Control+W");
    await settingsEditor
      .first()
      .waitFor({ state: "detached", timeout: 3_000 })
      .catch(() => undefined);
  }
}

export function toast(page: Page, text: string | RegExp): Locator {
  return page.locator(".notification-toast", { hasText: text });
}

/** Reads the file until it holds `expected` (or 20 s pass); returns what it last held. */
export async function fileSettles(file: string, expected: string): Promise<string> {
  let content = "";
  for (let attempt = 0; attempt < 200; attempt++) {
    content = readFileSync(file, "utf8");
    if (content === expected) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return content;
}

/** How many requests spark serve logged for this method and path with this status. */
export function requestCount(server: SparkServeProcess, route: string, status = 200): number {
  const escaped = route.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return (server.output().match(new RegExp(`${escaped} ${status}\\b`, "g")) ?? []).length;
}

/**
 * requestCount once it has stopped changing for a second (at most 10 s): a request the editor sent
 * for an earlier keystroke may still be on its way, and under load it is logged late.
 */
export async function settledRequestCount(
  server: SparkServeProcess,
  route: string,
): Promise<number> {
  let count = requestCount(server, route);
  for (let attempt = 0; attempt < 10; attempt++) {
    await sleep(1_000);
    const now = requestCount(server, route);
    if (now === count) break;
    count = now;
  }
  return count;
}

export function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
