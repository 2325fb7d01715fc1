// The VS Code extension end to end: its .vsix installed into a real VS Code (code-server), driven
// in Debian's chromium, against a real `spark serve` with the scripted engine. Ghost text comes
// from /v1/completions and Tab accepts it; typing through ghost text that opens pairs sends no
// request and Tab leaves one closer each; the status bar names the model and follows settings; a
// refused key and a missing server are said once, with the action that fixes them; "Start spark
// serve" works from a clone. Quick edit and Ask have their own files. The first three tests share
// a window (see support/shared-window.ts). Skips (saying why) without code-server; fails
// under CI=true.
import { createServer } from "node:net";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { chromiumMissingReason } from "../web/support/chromium.ts";
import { codeServerMissingReason } from "./support/code-server.ts";
import { useEditorSuite } from "./support/editor-suite.ts";
import { shownGhostText } from "./support/ghost-probe.ts";
import {
  fileSettles,
  openFile,
  requestCount,
  settledRequestCount,
  runCommand,
  saveAll,
  screenshot,
  sleep,
  sparkStatus,
  toast,
  updateUserSettings,
} from "./support/workbench.ts";

const COMPLETIONS = "POST /v1/completions";
const missing = chromiumMissingReason() ?? codeServerMissingReason();
if (missing !== undefined) console.warn(`Skipping the VS Code extension test: ${missing}.`);

describe.skipIf(missing !== undefined)(
  "the VS Code extension in code-server",
  { timeout: 240_000 },
  () => {
    // The first three tests take one window: each saves its file, and they ask for the same
    // settings (the refused key's config.toml is its server's); the ghost-text test changes the
    // settings, and the last test has a server address of its own.
    const editor = useEditorSuite({ shareWindows: true });

    const statusText = (page: Page): Promise<string> =>
      sparkStatus(page)
        .innerText()
        .then((text) => text.trim());

    it("typing (, [ and a quote through ghost text sends no request, and Tab leaves one closer each", async () => {
      // VS Code auto-closes "(", "[" and '"' as they are typed, which puts a closer after the
      // cursor; the extension still shows the rest of the same completion without a new request.
      const predicted = 'total(values[0], "sum");';
      // Every request gets the same answer: a request the typing-through sent would show it again
      // after what was typed (and is counted in the server's log).
      const turns = Array.from({ length: 40 }, () => ({ text: predicted }));
      const workbench = await editor.open({
        turns,
        files: { "pairs.js": "const values = [1, 2];\n\n" },
        completions: true,
      });
      const { page, server, root } = workbench;
      await openFile(page, "pairs.js");
      await page.locator(".monaco-editor .view-line").nth(1).click();
      await page.keyboard.press("End");
      await page.keyboard.type("const result = ", { delay: 30 });
      await expect.poll(() => shownGhostText(page), { timeout: 30_000 }).toBe(predicted);
      const before = await settledRequestCount(server, COMPLETIONS);

      // Each key is the ghost text's next character; after it, the rest still shows.
      const typed = 'total(values[0], "';
      for (const character of typed) {
        await page.keyboard.type(character);
        await expect.poll(() => shownGhostText(page), { timeout: 10_000 }).not.toBe("");
      }
      await screenshot(page, "ghost-text-through-pairs");
      // The rest around the auto-closed '")': what it adds shows as ghost text.
      expect((await shownGhostText(page)).replace(/[")]/g, "")).toBe("sum;");
      expect(await settledRequestCount(server, COMPLETIONS)).toBe(before);

      await page.keyboard.press("Tab");
      await page.keyboard.press("Control+S");
      const expected = `const values = [1, 2];\nconst result = ${predicted}\n`;
      expect(await fileSettles(path.join(root, "pairs.js"), expected)).toBe(expected);
    });

    it("a refused key: one notice with Set API Key, no 401 per keystroke, and the key fixes it", async () => {
      const workbench = await editor.open({
        turns: Array.from({ length: 20 }, () => ({ text: "(1, 2);" })),
        files: { "keyed.js": "function add(a, b) {\n  return a + b;\n}\n\n" },
        configToml: '[serve]\napi_keys = ["editor-key"]\n',
        completions: true,
      });
      const { page, server } = workbench;
      await openFile(page, "keyed.js");
      await page.locator(".monaco-editor .view-line").nth(3).click();
      await page.keyboard.press("End");
      // Eight keystrokes, each after the editor's debounce: each would ask without a backoff.
      for (const character of "const ab") {
        await page.keyboard.type(character);
        await sleep(150);
      }
      await sleep(1_000);
      const refusals = requestCount(server, COMPLETIONS, 401);
      expect(refusals).toBeGreaterThanOrEqual(1);
      expect(refusals).toBeLessThanOrEqual(3);
      const notices = toast(page, "refused the API key");
      await notices.first().waitFor({ timeout: 30_000 });
      expect(await notices.count()).toBe(1);
      await notices.locator(".monaco-button", { hasText: "Set API Key" }).click();
      await page.locator(".quick-input-widget", { hasText: "Spark API key" }).waitFor();
      await page.keyboard.type("editor-key");
      await page.keyboard.press("Enter");
      await page.locator(".monaco-editor .view-line").nth(3).click();
      await page.keyboard.press("End");
      await page.keyboard.type(" = add", { delay: 60 });
      await page.locator(".ghost-text-decoration").first().waitFor({ timeout: 30_000 });
      expect(requestCount(server, COMPLETIONS)).toBeGreaterThanOrEqual(1);
      // Saved, so that the next test can take the window.
      await saveAll(page);
    });

    it("shows ghost text while typing, Tab accepts it; the status bar names the model, its latency, and follows settings", async () => {
      // One scripted answer per completion request, whichever keystroke sends it.
      const workbench = await editor.open({
        turns: Array.from({ length: 40 }, () => ({ text: "(1, 2);" })),
        files: { "sum.js": "function add(a, b) {\n  return a + b;\n}\n\n" },
        completions: true,
      });
      const { page, server, root } = workbench;
      await openFile(page, "sum.js");
      await page.locator(".monaco-editor .view-line").nth(3).click();
      await page.keyboard.press("End");
      await page.keyboard.type("const total = add", { delay: 40 });
      await page.locator(".ghost-text-decoration").first().waitFor({ timeout: 30_000 });
      await screenshot(page, "ghost-text");
      await page.keyboard.press("Tab");
      await page.keyboard.press("Control+S");
      const file = path.join(root, "sum.js");
      const expected = "function add(a, b) {\n  return a + b;\n}\nconst total = add(1, 2);\n";
      expect(await fileSettles(file, expected)).toBe(expected);
      expect(server.output()).toMatch(/POST \/v1\/completions 200/);

      // Mid-line, with code after the cursor: no ghost text, and no request for one.
      const before = await settledRequestCount(server, COMPLETIONS);
      await page.locator(".monaco-editor .view-line").first().click();
      await page.keyboard.press("Home");
      for (let step = 0; step < "function add".length; step++)
        await page.keyboard.press("ArrowRight");
      await page.keyboard.type("x", { delay: 40 });
      await sleep(2_000);
      expect(requestCount(server, COMPLETIONS)).toBe(before);
      expect(await page.locator(".ghost-text-decoration").count()).toBe(0);

      // The model that answered, by name, and the last completion's latency.
      await expect.poll(() => statusText(page), { timeout: 10_000 }).toMatch(/^script \d+ ms$/);
      const measured = await statusText(page);
      // Off and on again (the cursor mid-line, where nothing asks): still the completion's
      // latency, not the typing pause.
      await runCommand(page, "Spark: Toggle Inline Completions");
      await expect.poll(() => statusText(page), { timeout: 10_000 }).toBe("script");
      expect(await sparkStatus(page).locator(".codicon-circle-slash").count()).toBe(1);
      await runCommand(page, "Spark: Toggle Inline Completions");
      await expect.poll(() => statusText(page), { timeout: 10_000 }).toBe(measured);
      // A model chosen in the settings shows at once, without waiting for a completion.
      await updateUserSettings(workbench, { "spark.completionModel": "my-fim-model" });
      await expect.poll(() => statusText(page), { timeout: 10_000 }).toMatch(/my-fim-model/);
    });

    it("starts spark serve from the clone when no server answers, and not while one does", async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const workbench = await editor.open({
        turns: [{ text: "unused" }],
        serverUrl: () => url,
      });
      const { page } = workbench;
      const notice = toast(page, `No Spark server answers at ${url}`);
      await notice.waitFor({ timeout: 30_000 });
      await notice.locator(".monaco-button", { hasText: "Start spark serve" }).click();
      try {
        // `spark` is not on this machine's PATH: the clone's bin/spark.js, run by node, starts.
        await expect.poll(() => isUp(url), { timeout: 90_000, interval: 1_000 }).toBe(true);
        await runCommand(page, "Spark: Start spark serve");
        await toast(page, `A server already answers at ${url}`).waitFor({ timeout: 30_000 });
        expect(
          await page.locator(".terminal-tab, .single-terminal-tab").count(),
        ).toBeLessThanOrEqual(1);
      } finally {
        // The terminal's spark serve runs in its own session: closing the terminal stops it.
        await runCommand(page, "Terminal: Kill All Terminals").catch(() => undefined);
        await expect.poll(() => isUp(url), { timeout: 30_000, interval: 500 }).toBe(false);
      }
    });
  },
);

async function isUp(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) })).ok;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
