// Per-change keys of the inline review, end to end in code-server + chromium against a real
// `spark serve` (scripted engine): Ctrl+Y / Ctrl+N answer the change under the cursor and move to
// the next one, Alt+F5 goes to the next change; on a line that is no pending change Ctrl+Y is
// VS Code's Redo again and answers nothing.
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
if (missing !== undefined) console.warn(`Skipping the inline review keys test: ${missing}.`);

/** The 1-based line the cursor is on, from the status bar's "Ln 4, Col 1". */
const cursorLine = async (page: Page): Promise<number> => {
  const text = await page
    .locator(".statusbar-item", { hasText: /^Ln \d+/ })
    .first()
    .innerText();
  return Number(/Ln (\d+)/.exec(text)?.[1]);
};

describe.skipIf(missing !== undefined)(
  "inline review keys in code-server",
  { timeout: 240_000 },
  () => {
    const editor = useEditorSuite();

    it("Ctrl+Y / Ctrl+N answer the change under the cursor, Alt+F5 goes to the next; elsewhere Ctrl+Y is Redo", async () => {
      const workbench = await editor.open({
        turns: [{ text: REWRITTEN }],
        files: { "sum.js": ORIGINAL },
        settings: { "spark.editReview": "inline" },
      });
      const { page } = workbench;
      const file = path.join(workbench.root, "sum.js");
      await openFile(page, "sum.js");
      await page.locator(".monaco-editor .view-line").first().click();
      await selectLines(page, 1, 4);
      await quickEdit(page, "default the items and truncate the sum");
      await expect.poll(() => lenses(page, "Accept").count(), { timeout: 60_000 }).toBe(2);

      // On an unchanged line the review's keys do nothing: Ctrl+Y is VS Code's Redo.
      await page.locator(".monaco-editor .view-line", { hasText: "let total" }).first().click();
      await page.keyboard.press("End");
      await page.keyboard.type(" // x");
      await page.keyboard.press("Control+Z");
      await expect.poll(() => editorText(page), { timeout: 10_000 }).not.toContain("// x");
      await page.keyboard.press("Control+Y");
      await expect
        .poll(() => editorText(page), { timeout: 10_000 })
        .toContain("let total = 0; // x");
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
  },
);
