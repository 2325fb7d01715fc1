// Quick edit end to end in code-server + chromium against a real `spark serve` (scripted engine):
// the diff opens at the selection; Accept writes the document where the selected code now is and
// leaves saving to the user; a file edited while the rewrite streamed is not corrupted; Esc keeps
// the original's tail; failures never offer Apply; a rejected proposal's problems go with it.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  chromiumMissingReason,
  launchChromium,
  type LaunchedChromium,
} from "../web/support/chromium.ts";
import { codeServerMissingReason, packageExtension } from "./support/code-server.ts";
import {
  fileSettles,
  openFile,
  openWorkbench,
  runCommand,
  saveAll,
  screenshot,
  screenshotPages,
  sleep,
  toast,
  updateUserSettings,
  visibleText,
  type Workbench,
} from "./support/workbench.ts";

const missing = chromiumMissingReason() ?? codeServerMissingReason();
if (missing !== undefined) console.warn(`Skipping the quick edit tests: ${missing}.`);

const FUNCTION = "function add(x, y) {\n  return x + y;\n}";

describe.skipIf(missing !== undefined)("quick edit in code-server", { timeout: 240_000 }, () => {
  let chromium: LaunchedChromium;
  let workbench: Workbench | undefined;

  beforeAll(async () => {
    await packageExtension();
    chromium = await launchChromium();
  }, 180_000);
  afterAll(() => chromium?.close());
  afterEach(async (context) => {
    await screenshotPages(chromium, context.task.name);
    await workbench?.close();
    workbench = undefined;
  });

  async function quickEdit(page: Page, instruction: string): Promise<void> {
    await runCommand(page, "Spark: Quick Edit Selection");
    await page
      .locator(".quick-input-widget", { hasText: "How should the selected code change?" })
      .waitFor();
    await page.keyboard.type(instruction);
    await page.keyboard.press("Enter");
  }

  async function selectFunctionAt(page: Page, line: number): Promise<void> {
    await goToLine(page, line);
    await page.keyboard.press("Home");
    await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.press("Shift+End");
  }

  async function goToLine(page: Page, line: number): Promise<void> {
    await page.keyboard.press("Control+G");
    await page.locator(".quick-input-widget input").waitFor();
    await page.keyboard.type(String(line));
    await page.keyboard.press("Enter");
  }

  const diffText = (page: Page): Promise<string> =>
    page.locator(".monaco-diff-editor").first().innerText().then(visibleText);

  it("opens the diff at the selection; Accept writes the document and leaves saving to the user", async () => {
    // The selection near the end of a long file: line 157 of 161, as in the report.
    const filler = Array.from({ length: 155 }, (_, index) => `const value${index} = ${index};`);
    const content = `${filler.join("\n")}\n\n${FUNCTION}\n\n`;
    const rewritten = "function add(x, y) {\n  return (x + y) | 0;\n}";
    workbench = await openWorkbench(chromium, {
      turns: [{ text: rewritten }],
      files: { "sample.js": content },
    });
    const { page, root } = workbench;
    await openFile(page, "sample.js");
    await page.locator(".monaco-editor .view-line").first().click();
    await selectFunctionAt(page, 157);
    await quickEdit(page, "truncate the sum to an integer");
    const apply = toast(page, "Apply Spark's edit?");
    await apply.waitFor({ timeout: 30_000 });
    // Without scrolling, the changed line is on screen, and line 1 is not.
    const shown = await diffText(page);
    await screenshot(page, "quick-edit-proposal");
    expect(shown).toContain("return (x + y) | 0;");
    expect(shown).not.toContain("const value0 = 0;");
    await apply.locator(".monaco-button", { hasText: "Accept" }).click();
    await diffClosed(page, /\|\s0;/);
    const file = path.join(root, "sample.js");
    const expected = content.replace(FUNCTION, rewritten);
    // The editor holds the edit, unsaved, like any other edit: the file on disk is untouched.
    await expect
      .poll(() => page.locator(".tab.active.dirty", { hasText: "sample.js" }).count(), {
        timeout: 10_000,
      })
      .toBe(1);
    expect(readFileSync(file, "utf8")).toBe(content);
    await saveAll(page);
    expect(await fileSettles(file, expected)).toBe(expected);
  });

  it("applies where the selection now is when the file changed while the edit streamed, and refuses when the selection itself changed", async () => {
    const content = `const a = 1;\n\n${FUNCTION.replace(/add/, "multiply").replace("+", "*")}\n`;
    const rewritten = "function multiply(x, y) {\n  return Math.imul(x, y);\n}";
    workbench = await openWorkbench(chromium, {
      turns: [
        { text: rewritten, delayMs: 250 },
        { text: "function multiply(x, y) {\n  return (x * y) | 0;\n}", delayMs: 250 },
      ],
      files: { "sample.js": content },
    });
    const { page, root } = workbench;
    const file = path.join(root, "sample.js");
    await openFile(page, "sample.js");
    await page.locator(".monaco-editor .view-line").first().click();
    await selectFunctionAt(page, 3);
    await quickEdit(page, "use Math.imul");
    await page.locator(".monaco-diff-editor").first().waitFor({ timeout: 30_000 });
    // Meanwhile, the user adds a line at the top of the file.
    await editFileWhileStreaming(page, "sample.js", "Control+Home", "let added = 0;\n");
    const apply = toast(page, "Apply Spark's edit?");
    await apply.waitFor({ timeout: 30_000 });
    await apply.locator(".monaco-button", { hasText: "Accept" }).click();
    await diffClosed(page, /Math\.imul/);
    await saveAll(page);
    const expected = `let added = 0;\nconst a = 1;\n\n${rewritten}\n`;
    expect(await fileSettles(file, expected)).toBe(expected);

    // Now the selected code itself changes while the edit streams: Accept must refuse.
    await selectFunctionAt(page, 4);
    await quickEdit(page, "use Math.imul");
    await page.locator(".monaco-diff-editor").first().waitFor({ timeout: 30_000 });
    await editFileWhileStreaming(page, "sample.js", undefined, "x", 5);
    const second = toast(page, "Apply Spark's edit?");
    await second.waitFor({ timeout: 30_000 });
    await second.locator(".monaco-button", { hasText: "Accept" }).click();
    await toast(page, "was not applied").waitFor({ timeout: 10_000 });
    await saveAll(page);
    await sleep(1_000);
    // The user's edit stays, and Spark's second rewrite went nowhere.
    expect(readFileSync(file, "utf8")).toBe(
      `let added = 0;\nconst a = 1;\n\nfunction multiply(x, y) {\nx  return Math.imul(x, y);\n}\n`,
    );
  });

  /** Switches to the file's own editor and types there while the proposal streams. */
  async function editFileWhileStreaming(
    page: Page,
    name: string,
    where: string | undefined,
    text: string,
    line?: number,
  ): Promise<void> {
    // The explorer opens the file's own editor (quick open could bring back the diff instead).
    await openFile(page, name);
    await page.locator(".tab.active", { hasText: new RegExp(`^${name}`) }).waitFor();
    // The explorer keeps the focus: click into the editor it showed.
    await page.locator(".monaco-editor .view-lines").filter({ visible: true }).first().click();
    if (line !== undefined) await goToLine(page, line);
    if (where !== undefined) await page.keyboard.press(where);
    await page.keyboard.type(text);
  }

  it("keeps the selection's original tail while streaming and after Esc", async () => {
    const rewrite =
      "function add(x, y) {\n  if (typeof x !== 'number') throw new TypeError('x');\n" +
      "  if (typeof y !== 'number') throw new TypeError('y');\n  const sum = x + y;\n" +
      "  const checked = Number.isFinite(sum) ? sum : 0;\n  return checked;\n}";
    const content = `${FUNCTION}\n`;
    workbench = await openWorkbench(chromium, {
      turns: [{ text: rewrite, delayMs: 150 }],
      files: { "sum.js": content },
    });
    const { page, root } = workbench;
    await openFile(page, "sum.js");
    await page.locator(".monaco-editor .view-line").first().click();
    await selectFunctionAt(page, 1);
    await quickEdit(page, "validate the arguments");
    // The rewrite is on its second line; the original's body and brace are still in the proposal.
    await expect.poll(() => diffText(page), { timeout: 30_000 }).toContain("typeof x");
    const whileStreaming = await diffText(page);
    await screenshot(page, "quick-edit-streaming");
    expect(whileStreaming.match(/return x \+ y;/g)?.length).toBe(2);
    await expect.poll(() => diffText(page), { timeout: 30_000 }).toContain("const sum");
    await page.locator(".monaco-diff-editor .modified .view-lines").first().click();
    await page.keyboard.press("Escape");
    const apply = toast(page, "Apply Spark's edit?");
    await apply.waitFor({ timeout: 30_000 });
    await apply.locator(".monaco-button", { hasText: "Accept" }).click();
    await diffClosed(page, /typeof\sx/);
    await saveAll(page);
    const file = path.join(root, "sum.js");
    await expect.poll(() => readFileSync(file, "utf8"), { timeout: 10_000 }).not.toBe(content);
    // Whole rewritten lines, then the original's `return x + y;` and `}`: never a fragment.
    expect(readFileSync(file, "utf8")).toMatch(
      /^function add\(x, y\) \{\n {2}if \(typeof x [^\n]*\('x'\);\n {2}if \(typeof y [^\n]*\('y'\);\n( {2}const sum = x \+ y;\n)?( {2}const checked = [^\n]*;\n)? {2}return x \+ y;\n\}\n$/,
    );
  });

  it("never offers Apply after a refused key or with no server, and says what to do", async () => {
    workbench = await openWorkbench(chromium, {
      turns: [{ text: "unused" }],
      files: { "sum.js": `${FUNCTION}\n` },
      configToml: '[serve]\napi_keys = ["editor-key"]\n',
    });
    const { page } = workbench;
    // The startup check already says the key is refused; close that notice first.
    const startup = toast(page, "refused the API key");
    await startup.waitFor({ timeout: 30_000 });
    await closeToasts(page);
    await openFile(page, "sum.js");
    await page.locator(".monaco-editor .view-line").first().click();
    await selectFunctionAt(page, 1);
    await quickEdit(page, "anything");
    const refused = toast(page, "Spark quick edit failed");
    await refused.waitFor({ timeout: 30_000 });
    expect(await refused.innerText()).toContain("refused the API key");
    await refused.locator(".monaco-button", { hasText: "Set API Key" }).waitFor();
    await closeToasts(page);
    await sleep(2_000);
    expect(await toast(page, "Apply Spark's edit?").count()).toBe(0);
    expect(await page.locator(".monaco-diff-editor").count()).toBe(0);

    // The server goes away (another URL, nothing listening): an error with its action, no Apply.
    await updateUserSettings(workbench, { "spark.serverUrl": "http://127.0.0.1:9" });
    await toast(page, "No Spark server answers at http://127.0.0.1:9").waitFor({ timeout: 30_000 });
    await closeToasts(page);
    await page.locator(".monaco-editor .view-line").first().click();
    await selectFunctionAt(page, 1);
    await quickEdit(page, "anything");
    const down = toast(page, "Spark quick edit failed");
    await down.waitFor({ timeout: 30_000 });
    expect(await down.innerText()).toContain("No Spark server answers");
    await down.locator(".monaco-button", { hasText: "Start spark serve" }).waitFor();
    await closeToasts(page);
    await sleep(2_000);
    expect(await toast(page, "Apply Spark's edit?").count()).toBe(0);
  });

  it("takes a rejected proposal's problems out of the Problems panel", async () => {
    workbench = await openWorkbench(chromium, {
      // Three syntax errors in the proposal.
      turns: [{ text: "function add(x: number, y: number): number {\n  return x +;\n  }}}\n" }],
      files: { "sum.ts": "function add(x: number, y: number): number {\n  return x + y;\n}\n" },
    });
    const { page } = workbench;
    await openFile(page, "sum.ts");
    await page.locator(".monaco-editor .view-line").first().click();
    await selectFunctionAt(page, 1);
    await quickEdit(page, "break it");
    const apply = toast(page, "Apply Spark's edit?");
    await apply.waitFor({ timeout: 30_000 });
    const errors = (): Promise<number> => problemCount(page);
    // TypeScript reports the proposal's errors (the precondition of this test)…
    await expect.poll(errors, { timeout: 90_000, interval: 500 }).toBeGreaterThan(0);
    await apply.locator(".monaco-button", { hasText: "Reject" }).click();
    // …and they leave with it.
    await expect.poll(errors, { timeout: 30_000, interval: 500 }).toBe(0);
  });
});

/**
 * The proposal's diff is gone and Accept has finished: the file's editor shows `applied` and holds
 * the focus. Accept focuses that editor after the diff closes (and under load retries an edit the
 * user's last keystrokes made stale); a command palette opened before then loses the focus to it
 * and its keys land in the file.
 */
async function diffClosed(page: Page, applied: RegExp): Promise<void> {
  await page.locator(".monaco-diff-editor").first().waitFor({ state: "detached", timeout: 30_000 });
  await page
    .locator(".monaco-editor .view-lines", { hasText: applied })
    .filter({ visible: true })
    .first()
    .waitFor({ timeout: 30_000 });
  await page.waitForFunction(
    () => document.activeElement?.closest(".monaco-editor") != null,
    undefined,
    { timeout: 30_000 },
  );
}

async function closeToasts(page: Page): Promise<void> {
  for (const close of await page.locator(".notification-toast .codicon-notifications-clear").all())
    await close.click().catch(() => undefined);
  await runCommand(page, "Notifications: Clear All Notifications");
}

/** The error count the status bar's Problems item shows. */
async function problemCount(page: Page): Promise<number> {
  const label = (await page.locator("#status\\.problems").first().getAttribute("aria-label")) ?? "";
  const match = /(\d+)\s+Errors?/i.exec(label) ?? /Errors?:\s*(\d+)/i.exec(label);
  return Number(match?.[1] ?? 0);
}
