// Quick edit end to end in code-server + chromium against a real `spark serve` (scripted engine):
// the diff opens at the selection; Accept writes the document where the selected code now is and
// leaves saving to the user; a file edited while the rewrite streamed is not corrupted; Esc keeps
// the original's tail; a chatty reply's prose stays out. The keys: an edit lands on the lines it was
// started on and never on an identical line elsewhere; closing the proposal's diff rejects it;
// Ctrl+I starts an edit on the current line; Ctrl+Enter and Esc act on a proposal only while it has
// the focus (elsewhere they stay VS Code's). The tests share one window (see
// support/shared-window.ts). Failures and the Problems panel are in
// vscode-quick-edit-problems.test.ts.
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
  quickEditLines,
  selectLines,
  typeInstruction,
} from "./support/quick-edit-steps.ts";
import { fileSettles, openFile, saveAll, screenshot, sleep, toast } from "./support/workbench.ts";

const missing = chromiumMissingReason() ?? codeServerMissingReason();
if (missing !== undefined) console.warn(`Skipping the quick edit tests: ${missing}.`);

const FUNCTION = "function add(x, y) {\n  return x + y;\n}";
const LOOP = "  for (const item of items) total += item;";
const COERCED = "  for (const item of items) total += Number(item);";
/** The keys' file: the same loop on line 3 (sumA) and line 9 (sumB). */
const SUMS =
  `function sumA(items) {\n  let total = 0;\n${LOOP}\n  return total;\n}\n\n` +
  `function sumB(items) {\n  let total = 0;\n${LOOP}\n  return total;\n}\n`;

describe.skipIf(missing !== undefined)("quick edit in code-server", { timeout: 240_000 }, () => {
  const editor = useEditorSuite({ shareWindows: true });

  it("opens the diff at the selection; Accept writes the document and leaves saving to the user", async () => {
    // The selection near the end of a long file: line 157 of 161, as in the report.
    const filler = Array.from({ length: 155 }, (_, index) => `const value${index} = ${index};`);
    const content = `${filler.join("\n")}\n\n${FUNCTION}\n\n`;
    const rewritten = "function add(x, y) {\n  return (x + y) | 0;\n}";
    const workbench = await editor.open({
      turns: [{ text: rewritten }],
      files: { "sample.js": content },
    });
    const { page, root } = workbench;
    await openFile(page, "sample.js");
    await quickEditLines(page, { line: 157, extra: 2 }, "truncate the sum to an integer");
    const apply = proposalNotice(page);
    await apply.waitFor({ timeout: 30_000 });
    // Without scrolling, the changed line is on screen, and line 1 is not. (The diff's modified
    // side can render after the notice shows.)
    await expect.poll(() => diffText(page), { timeout: 30_000 }).toContain("return (x + y) | 0;");
    const shown = await diffText(page);
    await screenshot(page, "quick-edit-proposal");
    expect(shown).toContain("return (x + y) | 0;");
    expect(shown).not.toContain("const value0 = 0;");
    // The notice names the file and line, and outlasts VS Code's 10 s for a plain one.
    expect(await apply.innerText()).toContain("sample.js (line 157)");
    await sleep(11_000);
    expect(await apply.isVisible()).toBe(true);
    await acceptProposal(page);
    await diffClosed(page, /\|\s0;/);
    // Answered: the notice goes with the proposal.
    await apply.waitFor({ state: "detached", timeout: 10_000 });
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
    const workbench = await editor.open({
      turns: [
        { text: rewritten, delayMs: 250 },
        { text: "function multiply(x, y) {\n  return (x * y) | 0;\n}", delayMs: 250 },
      ],
      files: { "multiply.js": content },
    });
    const { page, root } = workbench;
    const file = path.join(root, "multiply.js");
    await openFile(page, "multiply.js");
    await quickEditLines(page, { line: 3, extra: 2 }, "use Math.imul");
    await page.locator(".monaco-diff-editor").first().waitFor({ timeout: 30_000 });
    // Meanwhile, the user adds a line at the top of the file.
    await editFileWhileStreaming(page, "multiply.js", "Control+Home", "let added = 0;\n");
    await proposalReady(page);
    await acceptProposal(page);
    await diffClosed(page, /Math\.imul/);
    await saveAll(page);
    const expected = `let added = 0;\nconst a = 1;\n\n${rewritten}\n`;
    expect(await fileSettles(file, expected)).toBe(expected);

    // Now the selected code itself changes while the edit streams: Accept must refuse.
    await selectLines(page, 4, 2);
    await quickEdit(page, "use Math.imul");
    await page.locator(".monaco-diff-editor").first().waitFor({ timeout: 30_000 });
    await editFileWhileStreaming(page, "multiply.js", undefined, "x", 5);
    await proposalReady(page);
    await acceptProposal(page);
    await toast(page, "was not applied").waitFor({ timeout: 10_000 });
    await saveAll(page);
    await sleep(1_000);
    // The user's edit stays, and Spark's second rewrite went nowhere.
    expect(readFileSync(file, "utf8")).toBe(
      `let added = 0;\nconst a = 1;\n\nfunction multiply(x, y) {\nx  return Math.imul(x, y);\n}\n`,
    );
  });

  it("keeps the selection's original tail while streaming and after Esc", async () => {
    const rewrite =
      "function add(x, y) {\n  if (typeof x !== 'number') throw new TypeError('x');\n" +
      "  if (typeof y !== 'number') throw new TypeError('y');\n  const sum = x + y;\n" +
      "  const checked = Number.isFinite(sum) ? sum : 0;\n  return checked;\n}";
    const content = `${FUNCTION}\n`;
    const workbench = await editor.open({
      turns: [{ text: rewrite, delayMs: 150 }],
      files: { "sum.js": content },
    });
    const { page, root } = workbench;
    await openFile(page, "sum.js");
    await quickEditLines(page, { line: 1, extra: 2 }, "validate the arguments");
    // The rewrite is on its second line; the original's body and brace are still in the proposal.
    await expect.poll(() => diffText(page), { timeout: 30_000 }).toContain("typeof x");
    const whileStreaming = await diffText(page);
    await screenshot(page, "quick-edit-streaming");
    expect(whileStreaming.match(/return x \+ y;/g)?.length).toBe(2);
    await expect.poll(() => diffText(page), { timeout: 30_000 }).toContain("const sum");
    await focusProposal(page);
    await page.keyboard.press("Escape");
    await proposalReady(page);
    await acceptProposal(page);
    await diffClosed(page, /typeof\sx/);
    await saveAll(page);
    const file = path.join(root, "sum.js");
    await expect.poll(() => readFileSync(file, "utf8"), { timeout: 10_000 }).not.toBe(content);
    // Whole rewritten lines, then the original's `return x + y;` and `}`: never a fragment.
    expect(readFileSync(file, "utf8")).toMatch(
      /^function add\(x, y\) \{\n {2}if \(typeof x [^\n]*\('x'\);\n {2}if \(typeof y [^\n]*\('y'\);\n( {2}const sum = x \+ y;\n)?( {2}const checked = [^\n]*;\n)? {2}return x \+ y;\n\}\n$/,
    );
  });

  it("proposes only the code of a chatty reply's fence, without the prose around it", async () => {
    const doubled = "function double(n) {\n  return n * 2;\n}";
    const chatty = `Sure! Here is the updated code:\n\n\`\`\`js\n${doubled}\n\`\`\`\n\nThis doubles the number.`;
    const content = "function double(n) {\n  return n;\n}\n";
    const workbench = await editor.open({
      turns: [{ text: chatty }],
      files: { "double.js": content },
    });
    const { page, root } = workbench;
    await openFile(page, "double.js");
    await quickEditLines(page, { line: 1, extra: 2 }, "double it");
    await proposalReady(page);
    // The diff's modified side can render after ✓ shows.
    await expect.poll(() => diffText(page), { timeout: 30_000 }).toContain("return n * 2;");
    const shown = await diffText(page);
    expect(shown).not.toContain("Sure!");
    expect(shown).not.toContain("doubles the number");
    await acceptProposal(page);
    await diffClosed(page, /n\s\*\s2/);
    await saveAll(page);
    const expected = `${doubled}\n`;
    expect(await fileSettles(path.join(root, "double.js"), expected)).toBe(expected);
  });

  it("refuses when the selected line changed while the edit streamed, and leaves the identical line 9 alone", async () => {
    const workbench = await editor.open({
      // Slow enough to type into the file while it streams.
      turns: [{ text: COERCED.trim(), delayMs: 700 }],
      files: { "sums.js": SUMS },
    });
    const { page, root } = workbench;
    await openFile(page, "sums.js");
    await quickEditLines(page, { line: 3 }, "coerce items to numbers");
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
    await quickEditLines(page, { line: 3 }, "coerce items to numbers");
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
    await quickEditLines(page, { line: 3 }, "check every item");
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
});
