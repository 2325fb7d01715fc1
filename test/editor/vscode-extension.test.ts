// The VS Code extension end to end: its .vsix installed into a real VS Code (code-server), driven
// in Debian's chromium, against a real `spark serve` with the scripted engine. Ghost text comes
// from /v1/completions and is accepted with Tab; quick edit streams into a diff view and Accept
// writes the file. Skips (saying why) without code-server; fails under CI=true.
import { mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  chromiumMissingReason,
  launchChromium,
  type LaunchedChromium,
} from "../web/support/chromium.ts";
import { startSparkServe, type SparkServeProcess } from "../web/support/spark-serve-process.ts";
import {
  codeServerMissingReason,
  packageExtension,
  startCodeServer,
  type CodeServer,
} from "./support/code-server.ts";

/** Monaco renders spaces as no-break spaces. */
const visibleText = (text: string): string => text.replace(/\u00a0/g, " ");
const SCREENSHOTS = fileURLToPath(new URL("../../test-results/editor/", import.meta.url));
const missing = chromiumMissingReason() ?? codeServerMissingReason();
if (missing !== undefined) console.warn(`Skipping the VS Code extension test: ${missing}.`);

describe.skipIf(missing !== undefined)("the VS Code extension in code-server", () => {
  let chromium: LaunchedChromium;
  let server: SparkServeProcess | undefined;
  let editor: CodeServer | undefined;

  beforeAll(async () => {
    packageExtension();
    chromium = await launchChromium();
  }, 180_000);
  afterAll(() => chromium?.close());
  afterEach(async (context) => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    for (const [index, page] of chromium.context.pages().entries()) {
      // What the editor showed at the end: the first thing to look at when a case fails.
      const name = `${context.task.name.replace(/\W+/g, "-")}-${index}.png`;
      await page.screenshot({ path: path.join(SCREENSHOTS, name) }).catch(() => undefined);
      await page.close();
    }
    await editor?.close();
    await server?.close();
    editor = undefined;
    server = undefined;
  });

  async function openWorkbench(turns: unknown[], files: Record<string, string>): Promise<Page> {
    server = await startSparkServe(turns);
    for (const [name, content] of Object.entries(files)) server.workspace.write(name, content);
    editor = await startCodeServer({
      folder: server.workspace.root,
      userSettings: {
        "spark.serverUrl": server.url,
        "workbench.startupEditor": "none",
        "security.workspace.trust.enabled": false,
        "telemetry.telemetryLevel": "off",
        "extensions.autoCheckUpdates": false,
        "extensions.autoUpdate": false,
        "update.mode": "none",
        "editor.inlineSuggest.enabled": true,
        "chat.disableAIFeatures": true,
      },
    });
    const page = await chromium.context.newPage();
    await page.goto(`${editor.url}/?folder=${encodeURIComponent(server.workspace.root)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: 90_000 });
    // The status-bar item appears once the extension has activated.
    await page
      .locator(".statusbar-item", { hasText: "Spark" })
      .first()
      .waitFor({ timeout: 60_000 });
    return page;
  }

  async function openFile(page: Page, name: string): Promise<void> {
    await page.locator(".monaco-list-row", { hasText: name }).first().click({ timeout: 30_000 });
    await page.locator(".monaco-editor .view-lines").first().waitFor();
  }

  async function runCommand(page: Page, title: string): Promise<void> {
    await page.keyboard.press("F1");
    await page.locator(".quick-input-widget input").waitFor();
    await page.keyboard.type(title);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor();
    await page.keyboard.press("Enter");
  }

  async function fileSettles(file: string, expected: string): Promise<string> {
    let content = "";
    for (let attempt = 0; attempt < 200; attempt++) {
      content = readFileSync(file, "utf8");
      if (content === expected) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return content;
  }

  it("shows ghost text from /v1/completions while typing and Tab accepts it", async () => {
    // One scripted answer per completion request, whichever keystroke sends it.
    const page = await openWorkbench(
      Array.from({ length: 40 }, () => ({ text: "(1, 2);" })),
      { "sum.js": "function add(a, b) {\n  return a + b;\n}\n\n" },
    );
    await openFile(page, "sum.js");
    await page.locator(".monaco-editor .view-line").nth(3).click();
    await page.keyboard.press("End");
    await page.keyboard.type("const total = add", { delay: 40 });
    await page.locator(".ghost-text-decoration").first().waitFor({ timeout: 30_000 });
    await page.keyboard.press("Tab");
    await page.keyboard.press("Control+S");
    const file = path.join(server?.workspace.root ?? "", "sum.js");
    expect(
      await fileSettles(
        file,
        "function add(a, b) {\n  return a + b;\n}\nconst total = add(1, 2);\n",
      ),
    ).toBe("function add(a, b) {\n  return a + b;\n}\nconst total = add(1, 2);\n");
    expect(server?.output()).toMatch(/POST \/v1\/completions 200/);
  });

  it("streams a quick edit into a diff view and writes the file on Accept", async () => {
    const page = await openWorkbench([{ text: "function add(x, y) {\n  return (x + y) | 0;\n}" }], {
      "sample.js": "const a = 1;\n\nfunction add(x, y) {\n  return x + y;\n}\n",
    });
    await openFile(page, "sample.js");
    await page.locator(".monaco-editor .view-line").nth(2).click();
    await page.keyboard.press("Home");
    await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.press("Shift+End");
    await runCommand(page, "Spark: Quick Edit Selection");
    await page
      .locator(".quick-input-widget", { hasText: "How should the selected code change?" })
      .waitFor();
    await page.keyboard.type("truncate the sum to an integer");
    await page.keyboard.press("Enter");
    const toast = page.locator(".notification-toast", { hasText: "Apply Spark's edit?" });
    await toast.waitFor({ timeout: 30_000 });
    await expect
      .poll(() => page.locator(".monaco-diff-editor").first().innerText().then(visibleText), {
        timeout: 10_000,
      })
      .toContain("| 0;");
    await toast.locator(".monaco-button", { hasText: "Accept" }).click();
    const file = path.join(server?.workspace.root ?? "", "sample.js");
    expect(
      await fileSettles(file, "const a = 1;\n\nfunction add(x, y) {\n  return (x + y) | 0;\n}\n"),
    ).toBe("const a = 1;\n\nfunction add(x, y) {\n  return (x + y) | 0;\n}\n");
    expect(server?.output()).toMatch(/POST \/v1\/chat\/completions 200/);
  });
  it("asks the agent from the Ask Spark view and shows its answer as text", async () => {
    const page = await openWorkbench([{ text: "The answer is <b>42</b>." }], {
      "notes.txt": "hello\n",
    });
    await runCommand(page, "Focus on Ask Spark View");
    const view = page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
    await view.locator("#prompt").fill("What is the answer?");
    await view.locator("#prompt").press("Enter");
    const answer = view.locator(".assistant").last();
    await expect
      .poll(() => answer.textContent(), { timeout: 30_000 })
      .toBe("The answer is <b>42</b>.");
    // Model text is data: the markup it contains stays text.
    expect(await view.locator(".assistant b").count()).toBe(0);
    await expect(view.locator(".user").first().textContent()).resolves.toBe("What is the answer?");
  });
});
