// Ask's Apply end to end in code-server + chromium against a real `spark serve`: a code block that
// rewrites code in the file is proposed as a diff over those lines (the copy nearest the cursor
// when the file holds two), and Accept writes it there, not at the cursor.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chromiumMissingReason } from "../web/support/chromium.ts";
import { codeServerMissingReason } from "./support/code-server.ts";
import { useEditorSuite } from "./support/editor-suite.ts";
import { acceptProposal, diffClosed, diffText, goToLine } from "./support/quick-edit-steps.ts";
import { fileSettles, openFile, runCommand, saveAll } from "./support/workbench.ts";

const missing = chromiumMissingReason() ?? codeServerMissingReason();
if (missing !== undefined) console.warn(`Skipping the Ask Apply test: ${missing}.`);

const LOOP = "  for (const item of items) total += item;";
const sum = (name: string, loop: string): string =>
  `function ${name}(items) {\n  let total = 0;\n${loop}\n  return total;\n}\n`;

describe.skipIf(missing !== undefined)("Ask's Apply in code-server", { timeout: 240_000 }, () => {
  const editor = useEditorSuite();

  it("proposes a block as a diff over the lines it rewrites, nearest the cursor, and Accept writes it there", async () => {
    const coerced = "  for (const item of items) total += Number(item);";
    const answer = `Coerce them:\n\n\`\`\`js\n  let total = 0;\n${coerced}\n  return total;\n\`\`\``;
    const workbench = await editor.open({
      turns: [{ text: answer }],
      files: { "sum.js": `${sum("sumA", LOOP)}\n${sum("sumB", LOOP)}` },
    });
    const { page } = workbench;
    await openFile(page, "sum.js");
    await page.locator(".monaco-editor .view-line").first().click();
    // The cursor in sumB, below the blank line: its copy of the loop is the one rewritten.
    await goToLine(page, 10);
    await runCommand(page, "Focus on Ask Spark View");
    const view = page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
    await view.locator("#prompt").fill("Coerce items to numbers");
    await view.locator("#prompt").press("Enter");
    const apply = view.locator(".assistant .code-block button", { hasText: "Apply" });
    await apply.waitFor({ timeout: 30_000 });
    await apply.click();
    await expect.poll(() => diffText(page), { timeout: 30_000 }).toContain("Number(item)");
    await acceptProposal(page);
    await diffClosed(page, /Number\(item\)/);
    await saveAll(page);
    const expected = `${sum("sumA", LOOP)}\n${sum("sumB", coerced)}`;
    expect(await fileSettles(join(workbench.root, "sum.js"), expected)).toBe(expected);
  });
});
