// Typing through ghost text that opens pairs, in a real code-server against a real `spark serve`
// (scripted engine): VS Code auto-closes "(", "[" and '"' as they are typed, which puts a closer
// after the cursor; the extension still shows the rest of the same completion without a new
// request, and Tab then gives exactly the predicted line, with no doubled closer.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { chromiumMissingReason } from "../web/support/chromium.ts";
import { codeServerMissingReason } from "./support/code-server.ts";
import { useEditorSuite } from "./support/editor-suite.ts";
import { shownGhostText } from "./support/ghost-probe.ts";
import { fileSettles, openFile, screenshot, settledRequestCount } from "./support/workbench.ts";

const ROUTE = "POST /v1/completions";
const missing = chromiumMissingReason() ?? codeServerMissingReason();
if (missing !== undefined) console.warn(`Skipping the ghost-text pairs test: ${missing}.`);

describe.skipIf(missing !== undefined)(
  "ghost text through auto-closed pairs",
  { timeout: 240_000 },
  () => {
    const editor = useEditorSuite();

    it("typing (, [ and a quote through ghost text sends no request, and Tab leaves one closer each", async () => {
      const predicted = 'total(values[0], "sum");';
      // Every request gets the same answer: a request the typing-through sent would show it again
      // after what was typed (and is counted in the server's log).
      const turns = Array.from({ length: 40 }, () => ({ text: predicted }));
      const workbench = await editor.open({
        turns,
        files: { "sum.js": "const values = [1, 2];\n\n" },
        completions: true,
      });
      const { page, server, root } = workbench;
      await openFile(page, "sum.js");
      await page.locator(".monaco-editor .view-line").nth(1).click();
      await page.keyboard.press("End");
      await page.keyboard.type("const result = ", { delay: 30 });
      await expect.poll(() => shownGhostText(page), { timeout: 30_000 }).toBe(predicted);
      const before = await settledRequestCount(server, ROUTE);

      // Each key is the ghost text's next character; after it, the rest still shows.
      const typed = 'total(values[0], "';
      for (const character of typed) {
        await page.keyboard.type(character);
        await expect.poll(() => shownGhostText(page), { timeout: 10_000 }).not.toBe("");
      }
      await screenshot(page, "ghost-text-through-pairs");
      // The rest around the auto-closed '")': what it adds shows as ghost text.
      expect((await shownGhostText(page)).replace(/[")]/g, "")).toBe("sum;");
      expect(await settledRequestCount(server, ROUTE)).toBe(before);

      await page.keyboard.press("Tab");
      await page.keyboard.press("Control+S");
      const expected = `const values = [1, 2];\nconst result = ${predicted}\n`;
      expect(await fileSettles(path.join(root, "sum.js"), expected)).toBe(expected);
    });
  },
);
