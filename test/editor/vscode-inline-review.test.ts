// Inline review end to end in code-server + chromium against a real `spark serve` (scripted
// engine): a quick edit's proposal is written into the file's own editor, deleted lines struck
// through and added ones beside them, each change with ✓ Accept / ✗ Reject code lenses; one change
// accepted by its lens and the rest rejected with Ctrl+Backspace leave exactly that; a save by
// hand during review writes the file without the pending proposal; Ctrl+Y / Ctrl+N answer the
// change under the cursor and move to the next one, Alt+F5 goes to the next change, and on a line
// that is no pending change Ctrl+Y is VS Code's Redo again and answers nothing.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { chromiumMissingReason } from "../web/support/chromium.ts";
import { codeServerMissingReason } from "./support/code-server.ts";
import { useEditorSuite } from "./support/editor-suite.ts";
import { editorText, lenses, ORIGINAL, REWRITTEN } from "./support/inline-review-page.ts";
import { quickEdit, selectLines } from "./support/quick-edit-steps.ts";
import { fileSettles, openFile, saveAll, screenshot, sleep } from "./support/workbench.ts";

const missing = chromiumMissingReason() ?? codeServerMissingReason();
if (missing !== undefined) console.warn(`Skipping the inline review tests: ${missing}.`);

const lineCount = (page: Page): Promise<number> =>
  page.locator(".monaco-editor .line-numbers").count();

/** Whether the rendered line holding `text` is struck through. */
async function struck(page: Page, text: string): Promise<boolean> {
  return page
    .locator(".monaco-editor .view-line", { hasText: text })
    .first()
    .evaluate((line: Element) =>
      Array.from(line.querySelectorAll("span")).some((span: Element) =>
        getComputedStyle(span).textDecorationLine.includes("line-through"),
      ),
    );
}

/** The 1-based line the cursor is on, from the status bar's "Ln 4, Col 1". */
const cursorLine = async (page: Page): Promise<number> => {
  const text = await page
    .locator(".statusbar-item", { hasText: /^Ln \d+/ })
    .first()
    .innerText();
  return Number(/Ln (\d+)/.exec(text)?.[1]);
};

/** Quick edit of the function (lines 1–5) until its review shows `changes` lenses. */
async function startReview(page: Page, changes: number): Promise<void> {
  await selectLines(page, 1, 4);
  await quickEdit(page, "default the items and truncate the sum");
  await expect.poll(() => lenses(page, "Accept").count(), { timeout: 60_000 }).toBe(changes);
}

describe.skipIf(missing !== undefined)("inline review in code-server", { timeout: 240_000 }, () => {
  const editor = useEditorSuite({ shareWindows: true });

  /** `name`: a file of the test's own, since the tests share a window (see shared-window.ts). */
  async function reviewReady(
    name: string,
    ...turnTexts: string[]
  ): Promise<{ page: Page; file: string }> {
    const workbench = await editor.open({
      turns: turnTexts.map((text) => ({ text })),
      files: { [name]: ORIGINAL },
      settings: { "spark.editReview": "inline" },
    });
    const { page } = workbench;
    await openFile(page, name);
    await page.locator(".monaco-editor .view-line").first().click();
    await startReview(page, 2);
    return { page, file: path.join(workbench.root, name) };
  }

  it("shows the proposal in the file: struck deleted lines, lenses per change; one accepted by its lens, the rest rejected by Ctrl+Backspace", async () => {
    const { page, file } = await reviewReady("sum.js", REWRITTEN);
    const shown = await editorText(page);
    expect(shown).toContain("function sum(items) {");
    expect(shown).toContain("function sum(items = []) {");
    expect(shown).toContain("  return total;");
    expect(shown).toContain("  return total | 0;");
    // The strike-through is a decoration the window may paint after the lenses.
    await expect.poll(() => struck(page, "function sum(items) {"), { timeout: 10_000 }).toBe(true);
    expect(await struck(page, "function sum(items = []) {")).toBe(false);
    expect(await struck(page, "let total = 0;")).toBe(false);
    await screenshot(page, "inline-review");
    // The first change's lens: the default parameter is kept.
    await lenses(page, "Accept").first().click();
    await expect.poll(() => lenses(page, "Accept").count(), { timeout: 30_000 }).toBe(1);
    // The rest rejected with the key, in the file's editor.
    await page.locator(".monaco-editor .view-line", { hasText: "let total" }).first().click();
    await page.keyboard.press("Control+Backspace");
    await expect.poll(() => lenses(page, "Accept").count(), { timeout: 30_000 }).toBe(0);
    const settled = await editorText(page);
    expect(settled).not.toContain("function sum(items) {");
    expect(settled).not.toContain("| 0");
    // Ctrl+Backspace answered the review: it deleted no word.
    expect(settled).toContain("  let total = 0;");
    await saveAll(page);
    const expected = ORIGINAL.replace("sum(items)", "sum(items = [])");
    expect(await fileSettles(file, expected)).toBe(expected);
  });

  it("a save by hand during review writes the file without the pending proposal, and ends the review", async () => {
    const { page, file } = await reviewReady("saved.js", REWRITTEN);
    await saveAll(page);
    await expect.poll(() => lenses(page, "Accept").count(), { timeout: 30_000 }).toBe(0);
    expect(await fileSettles(file, ORIGINAL)).toBe(ORIGINAL);
    expect(await editorText(page)).not.toContain("items = []");
  });

  it("Ctrl+Y / Ctrl+N answer the change under the cursor, Alt+F5 goes to the next; elsewhere Ctrl+Y is Redo", async () => {
    const { page, file } = await reviewReady("keys.js", REWRITTEN);
    // On an unchanged line the review's keys do nothing: Ctrl+Y is VS Code's Redo.
    await page.locator(".monaco-editor .view-line", { hasText: "let total" }).first().click();
    await page.keyboard.press("End");
    await page.keyboard.type(" // x");
    await page.keyboard.press("Control+Z");
    await expect.poll(() => editorText(page), { timeout: 10_000 }).not.toContain("// x");
    await page.keyboard.press("Control+Y");
    await expect.poll(() => editorText(page), { timeout: 10_000 }).toContain("let total = 0; // x");
    await sleep(500);
    expect(await lenses(page, "Accept").count()).toBe(2);

    // Alt+F5: from line 3 to the next change, its struck "return total;" on line 5.
    await page.keyboard.press("Alt+F5");
    await expect.poll(() => cursorLine(page), { timeout: 10_000 }).toBe(5);
    await screenshot(page, "inline-review-next-change");
    // Ctrl+N rejects that change alone; the cursor goes on to the one left (wrapping to line 1).
    await page.keyboard.press("Control+N");
    await expect.poll(() => lenses(page, "Accept").count(), { timeout: 30_000 }).toBe(1);
    expect(await editorText(page)).not.toContain("| 0");
    expect(await editorText(page)).toContain("  return total;");
    await expect.poll(() => cursorLine(page), { timeout: 10_000 }).toBe(1);
    // No new untitled file: Ctrl+N answered the change.
    expect(await page.locator(".tab", { hasText: "Untitled" }).count()).toBe(0);
    // Ctrl+Y accepts it.
    await page.keyboard.press("Control+Y");
    await expect.poll(() => lenses(page, "Accept").count(), { timeout: 30_000 }).toBe(0);
    const settled = await editorText(page);
    expect(settled).toContain("function sum(items = []) {");
    expect(settled).not.toContain("function sum(items) {");
    await saveAll(page);
    const expected = ORIGINAL.replace("sum(items)", "sum(items = [])").replace(
      "let total = 0;",
      "let total = 0; // x",
    );
    expect(await fileSettles(file, expected)).toBe(expected);
  });

  it("Ctrl+Enter accepts every change and is VS Code's again after; Cancel on the notice rejects", async () => {
    const truncated = REWRITTEN.replace("total | 0", "Math.trunc(total)");
    const { page } = await reviewReady("total.js", REWRITTEN, truncated);
    await page.locator(".monaco-editor .view-line", { hasText: "let total" }).first().click();
    await page.keyboard.press("Control+Enter");
    await expect.poll(() => lenses(page, "Accept").count(), { timeout: 30_000 }).toBe(0);
    const accepted = await editorText(page);
    expect(accepted).toContain("function sum(items = []) {");
    expect(accepted).toContain("  return total | 0;");
    expect(accepted).not.toContain("function sum(items) {");
    expect(accepted).not.toContain("  return total;");
    // No review: Ctrl+Enter is Insert Line Below again.
    const lines = await lineCount(page);
    await page.locator(".monaco-editor .view-line", { hasText: /^\}$/ }).first().click();
    await page.keyboard.press("Control+Enter");
    await expect.poll(() => lineCount(page), { timeout: 10_000 }).toBe(lines + 1);
    await page.locator(".monaco-editor .view-line").first().click();
    await startReview(page, 1);
    expect(await editorText(page)).toContain("Math.trunc(total)");
    await page
      .locator(".notification-toast", { hasText: /Spark's edit to total\.js .* is ready/ })
      .getByRole("button", { name: "Cancel" })
      .click();
    await expect.poll(() => lenses(page, "Accept").count(), { timeout: 30_000 }).toBe(0);
    const rejected = await editorText(page);
    expect(rejected).not.toContain("Math.trunc");
    expect(rejected).toContain("  return total | 0;");
    expect(await lineCount(page)).toBe(lines + 1);
  });
});
