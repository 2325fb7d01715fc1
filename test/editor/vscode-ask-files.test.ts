// `@file` in Ask end to end in code-server + chromium against a real `spark serve`: typing `@` and
// part of a path lists the session's workspace files (workspace/files), Enter chooses one as a
// chip, and the question goes to the server with the file listed as the browser app lists it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { chromiumMissingReason } from "../web/support/chromium.ts";
import { codeServerMissingReason } from "./support/code-server.ts";
import { useEditorSuite } from "./support/editor-suite.ts";
import { runCommand, visibleText } from "./support/workbench.ts";

const missing = chromiumMissingReason() ?? codeServerMissingReason();
if (missing !== undefined) console.warn(`Skipping the Ask @file test: ${missing}.`);

/** Every file's text under `directory` (the server's session logs), joined. */
function textUnder(directory: string): string {
  let text = "";
  let names: string[] = [];
  try {
    names = readdirSync(directory);
  } catch {
    return "";
  }
  for (const name of names) {
    const file = path.join(directory, name);
    text += statSync(file).isDirectory() ? textUnder(file) : readFileSync(file, "utf8");
  }
  return text;
}

describe.skipIf(missing !== undefined)("Ask's @file in code-server", { timeout: 240_000 }, () => {
  const editor = useEditorSuite();

  it("completes workspace files after @ and sends the chosen one with the question", async () => {
    const workbench = await editor.open({
      turns: [{ text: "It exports one constant." }],
      files: { "src/util.js": "export const answer = 42;\n", "README.md": "# demo\n" },
    });
    const { page } = workbench;
    await runCommand(page, "Focus on Ask Spark View");
    const view = page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
    const prompt = view.locator("#prompt");
    await prompt.waitFor();
    await prompt.click();
    await prompt.pressSequentially("What does @util", { delay: 20 });
    const option = view.locator("#file-suggestions .file-option", { hasText: "src/util.js" });
    await option.waitFor({ timeout: 60_000 });
    await prompt.press("Enter");
    // Enter chose the file (it did not send): the mention became a chip.
    await expect
      .poll(() => view.locator("#files .file-chip").innerText(), { timeout: 10_000 })
      .toContain("@src/util.js");
    expect(await prompt.inputValue()).toBe("What does ");
    await prompt.pressSequentially("export?");
    await prompt.press("Enter");
    const echo = view.locator(".user").first();
    await expect.poll(() => echo.innerText().then(visibleText)).toContain("@src/util.js");
    await view.locator(".assistant", { hasText: "It exports one constant." }).waitFor({
      timeout: 60_000,
    });
    expect(await view.locator("#files .file-chip").count()).toBe(0);
    // What the server got: the question, then the file listed as the browser app lists it.
    await expect
      .poll(() => textUnder(workbench.server.workspace.sessionsDirectory), { timeout: 10_000 })
      .toContain("What does export?\\n\\nFiles from the workspace to look at:\\n- @src/util.js");
  });
});
