// Quick edit's anchor and keys end to end in code-server + chromium against a real `spark serve`
// (scripted engine): an edit lands on the lines it was started on and never on an identical line
// elsewhere; closing the proposal's diff rejects it; Ctrl+I starts an edit on the current line;
// Ctrl+Enter and Esc act on a proposal only while it has the focus (elsewhere they stay VS Code's).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { chromiumMissingReason } from "../web/support/chromium.ts";
import { codeServerMissingReason } from "./support/code-server.ts";
import { useEditorSuite } from "./support/editor-suite.ts";
import {
  acceptProposal,
  diffClosed,
  diffText,
  focusProposal,
  editFileWhileStreaming,
  focusFileEditor,
  goToLine,
  proposalNotice,
  proposalReady,
  quickEdit,
  selectLines,
  typeInstruction,
} from "./support/quick-edit-steps.ts";
import { fileSettles, openFile, saveAll, screenshot, toast } from "./support/workbench.ts";

const missing = chromiumMissingReason() ?? codeServerMissingReason();
if (missing !== undefined) console.warn(`Skipping the quick edit key tests: ${missing}.`);

const LOOP = "  for (const item of items) total += item;";
const COERCED = "  for (const item of items) total += Number(item);";
/** The report's file: the same loop on line 3 (sumA) and line 9 (sumB). */
const SUMS =
  `function sumA(items) {\n  let total = 0;\n${LOOP}\n  return total;\n}\n\n` +
  `function sumB(items) {\n  let total = 0;\n${LOOP}\n  return total;\n}\n`;

describe.skipIf(missing !== undefined)(
  "quick edit keys in code-server",
  { timeout: 240_000 },
  () => {
    const editor = useEditorSuite({ shareWindows: true });

    it("refuses when the selected line changed while the edit streamed, and leaves the identical line 9 alone", async () => {
      const workbench = await editor.open({
        // Slow enough to type into the file while it streams.
        turns: [{ text: COERCED.trim(), delayMs: 700 }],
        files: { "sums.js": SUMS },
      });
      const { page, root } = workbench;
      await openFile(page, "sums.js");
      await page.locator(".monaco-editor .view-line").first().click();
      await selectLines(page, 3);
      await quickEdit(page, "coerce items to numbers");
      await page.locator(".monaco-diff-editor").first().waitFor({ timeout: 30_000 });
      // Meanwhile the user appends a comment to the selected line itself.
      await editFileWhileStreaming(page, "sums.js", "End", " // keep as is", 3);
      await proposalReady(page);
      await acceptProposal(page);
      await toast(page, "was not applied").waitFor({ timeout: 30_000 });
      await screenshot(page, "quick-edit-anchor-refused");
      await saveAll(page);
      const expected = SUMS.replace(LOOP, `${LOOP} // keep as is`);
      // The user's comment stays on line 3; line 9 (sumB) is exactly as it was.
      expect(await fileSettles(path.join(root, "sums.js"), expected)).toBe(expected);
    });

    it("rejects when the diff tab is closed (Ctrl+Shift+Enter stays Insert Line Above); Ctrl+I edits the current line and Ctrl+Enter accepts in the proposal", async () => {
      const workbench = await editor.open({
        turns: [{ text: COERCED.trim() }, { text: COERCED }],
        files: { "coerced.js": SUMS },
      });
      const { page, root } = workbench;
      const file = path.join(root, "coerced.js");
      await openFile(page, "coerced.js");
      await page.locator(".monaco-editor .view-line").first().click();
      await selectLines(page, 3);
      await quickEdit(page, "coerce items to numbers");
      await proposalReady(page);
      // The user closes the proposal's tab instead of answering.
      const proposalTab = page.locator(".tab", { hasText: "Spark edit" }).first();
      await proposalTab.hover();
      await proposalTab.locator('[aria-label^="Close"]').first().click();
      await page.locator(".monaco-diff-editor").first().waitFor({ state: "detached" });
      // Rejected: its notice goes with it.
      await expect.poll(() => proposalNotice(page).count(), { timeout: 10_000 }).toBe(0);
      // Later, in the file: VS Code's Insert Line Above, not the forgotten rewrite.
      await focusFileEditor(page, "coerced.js");
      await goToLine(page, 9);
      await page.keyboard.press("Control+Shift+Enter");
      await page.keyboard.type("// above");
      await saveAll(page);
      const inserted = SUMS.replace(
        `function sumB(items) {\n  let total = 0;\n`,
        `function sumB(items) {\n  let total = 0;\n  // above\n`,
      );
      expect(await fileSettles(file, inserted)).toBe(inserted);

      // Ctrl+I with only a cursor: a quick edit of the current line (line 3), accepted with
      // Ctrl+Enter while the proposal has the focus.
      await goToLine(page, 3);
      await page.keyboard.press("Control+I");
      await typeInstruction(page, "coerce items to numbers");
      await proposalReady(page);
      // The diff's modified side can render after ✓ shows (once, under a full run's load, it
      // still held the file's original text).
      await expect.poll(() => diffText(page), { timeout: 30_000 }).toContain("Number(item)");
      await focusProposal(page);
      await page.keyboard.press("Control+Enter");
      await diffClosed(page, /Number\(item\)/);
      await saveAll(page);
      const accepted = inserted.replace(LOOP, COERCED);
      expect(await fileSettles(file, accepted)).toBe(accepted);
      expect(readFileSync(file, "utf8").split(COERCED).length).toBe(2);
    });

    it("Esc in another file leaves a streaming quick edit running", async () => {
      const lines = Array.from({ length: 12 }, (_, index) => `  total += check(items[${index}]);`);
      const rewrite = `${lines.join("\n")}\n  // checked every item`;
      const workbench = await editor.open({
        turns: [{ text: rewrite, delayMs: 250 }],
        files: { "checked.js": SUMS, "other.js": "const other = 1;\n" },
      });
      const { page } = workbench;
      await openFile(page, "checked.js");
      await page.locator(".monaco-editor .view-line").first().click();
      await selectLines(page, 3);
      await quickEdit(page, "check every item");
      await expect.poll(() => diffText(page), { timeout: 30_000 }).toContain("check(items[0])");
      // The user goes on in another file and presses Esc there (to dismiss ghost text, say).
      await focusFileEditor(page, "other.js");
      await page.keyboard.press("Escape");
      await page.keyboard.press("Escape");
      await proposalReady(page);
      // The whole rewrite arrived: the edit was not stopped.
      await page.locator(".tab", { hasText: "Spark edit" }).first().click();
      await expect.poll(() => diffText(page), { timeout: 30_000 }).toContain("checked every item");
    });
  },
);
