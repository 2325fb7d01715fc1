// Quick edit's failures and problems end to end in code-server + chromium against a real `spark
// serve` (scripted engine): failures never offer Apply and say what to do; a rejected proposal's
// problems go with it, and a streaming or accepted one's are never listed. Split from
// vscode-quick-edit.test.ts so the two halves run side by side.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { chromiumMissingReason } from "../web/support/chromium.ts";
import { codeServerMissingReason } from "./support/code-server.ts";
import { useEditorSuite } from "./support/editor-suite.ts";
import {
  acceptProposal,
  closeToasts,
  diffClosed,
  focusFileEditor,
  problemCount,
  proposalNotice,
  proposalReady,
  quickEditLines,
  rejectProposal,
} from "./support/quick-edit-steps.ts";
import { openFile, saveAll, sleep, toast, updateUserSettings } from "./support/workbench.ts";

const missing = chromiumMissingReason() ?? codeServerMissingReason();
if (missing !== undefined) console.warn(`Skipping the quick edit problem tests: ${missing}.`);

const FUNCTION = "function add(x, y) {\n  return x + y;\n}";
/** The last test's function, named apart from the `add` of the test it shares a folder with. */
const FUNCTION_TS = "function plus(x: number, y: number): number {\n  return x + y;\n}";

describe.skipIf(missing !== undefined)(
  "quick edit failures and problems in code-server",
  { timeout: 240_000 },
  () => {
    // The tests share a window: one TypeScript project over the tests' files, so they declare
    // functions of different names. The refused key comes last: it points the window at a server
    // that is down.
    const editor = useEditorSuite({ typescript: true, shareWindows: true });

    /**
     * A quick edit of the first function fails with a notice that `says` and offers `action`,
     * and no proposal follows it.
     */
    async function failsWithoutApply(page: Page, says: string, action: string): Promise<void> {
      await quickEditLines(page, { line: 1, extra: 2 }, "anything");
      const failed = toast(page, "Spark quick edit failed");
      await failed.waitFor({ timeout: 30_000 });
      expect(await failed.innerText()).toContain(says);
      await failed.locator(".monaco-button", { hasText: action }).waitFor();
      await closeToasts(page);
      // A proposal offered after a failure would come in the same turn as the failure's notice
      // (the outcome is decided once): a second is ample for the window to show it.
      await sleep(1_000);
      expect(await proposalNotice(page).count()).toBe(0);
      expect(await page.locator(".monaco-diff-editor").count()).toBe(0);
    }

    it("takes a rejected proposal's problems out of the Problems panel", async () => {
      const workbench = await editor.open({
        // Three syntax errors in the proposal.
        turns: [{ text: "function add(x: number, y: number): number {\n  return x +;\n  }}}\n" }],
        files: { "sum.ts": "function add(x: number, y: number): number {\n  return x + y;\n}\n" },
      });
      const { page } = workbench;
      await openFile(page, "sum.ts");
      await quickEditLines(page, { line: 1, extra: 2 }, "break it");
      await proposalReady(page);
      const errors = (): Promise<number> => problemCount(page);
      // TypeScript reports the proposal's errors (the precondition of this test)…
      await expect.poll(errors, { timeout: 90_000, interval: 500 }).toBeGreaterThan(0);
      await rejectProposal(page);
      // …and they leave with it.
      await expect.poll(errors, { timeout: 30_000, interval: 500 }).toBe(0);
    });

    it("never lists a streaming or accepted proposal's problems", async () => {
      // While it streams the proposal is half-written code ("'}' expected", an unfinished
      // statement); whole, it is valid. The file itself never has a problem. Words arrive 2 s apart:
      // TypeScript, slow on a loaded machine, checks between them (as with a slow model). Written
      // without spaces inside statements, the scripted engine (one delta a word) streams it in 9
      // deltas (18 s, not 44 s as 22): 4 states in a row, 8 s, are code with 2-3 errors each.
      const guarded =
        "function plus(x:number,y:number):number{\n" +
        "  if(x>y){\n" +
        "    return y+x;\n" +
        "  }\n" +
        "  return x+y;\n" +
        "}";
      const workbench = await editor.open({
        turns: [{ text: guarded, delayMs: 2_000 }],
        files: { "plus.ts": `${FUNCTION_TS}\n` },
      });
      const { page } = workbench;
      await openFile(page, "plus.ts");
      await quickEditLines(page, { line: 1, extra: 2 }, "guard against overflow");
      // Sampled every 100 ms for as long as the rewrite streams (about 18 s): each state it
      // streams through stands 2 s (sampled back to back, the loop's round trips to the page
      // cost more CPU than the rest of the test). Between samples it waits for Accept, so it
      // accepts as soon as the proposal is offered, as the back-to-back loop did.
      const seen: number[] = [];
      const accept = page.locator('.editor-actions [aria-label^="Spark: Accept Edit"]').first();
      const deadline = Date.now() + 150_000;
      while (!(await accept.isVisible()) && Date.now() < deadline) {
        seen.push(await problemCount(page));
        await accept.waitFor({ timeout: 100 }).catch(() => undefined);
      }
      // The counts seen, one per change: "0,1,2,1,0" (the old build's flicker).
      const changes = seen.filter((count, index) => index === 0 || count !== seen[index - 1]);
      expect(Math.max(0, ...seen), `problem counts while streaming: ${changes.join(",")}`).toBe(0);
      await acceptProposal(page);
      await diffClosed(page, /return\sy\+x;/);
      // One error typed into the file: once TypeScript lists it, it has seen the file since Accept,
      // and a proposal's problem that outlived Accept would be counted beside it. The file's
      // editor is focused first: under load a run once counted 3 where 1 belongs, most likely the
      // keys landing before the focus came back from the closed diff (a proposal, offered, lists
      // no problems here, so none could outlive Accept).
      await focusFileEditor(page, "plus.ts");
      await page.keyboard.press("Control+End");
      // As one edit: typed key by key, TypeScript checked each partial line on the way.
      await page.keyboard.insertText("\nconst broken: number = ;");
      await expect.poll(() => problemCount(page), { timeout: 60_000, interval: 500 }).toBe(1);
      // Saved, so that the next test can take the window (it reads no problems).
      await saveAll(page);
    });

    it("never offers Apply after a refused key or with no server, and says what to do", async () => {
      const workbench = await editor.open({
        turns: [{ text: "unused" }],
        files: { "sum.js": `${FUNCTION}\n` },
        configToml: '[serve]\napi_keys = ["editor-key"]\n',
      });
      const { page } = workbench;
      // A window opened for this test says at startup that the key is refused; this one, taken
      // from the tests before, was checked against their server. Either way no notice is left.
      await closeToasts(page);
      await openFile(page, "sum.js");
      await failsWithoutApply(page, "refused the API key", "Set API Key");

      // The server goes away (another URL, nothing listening): an error with its action, no Apply.
      await updateUserSettings(workbench, { "spark.serverUrl": "http://127.0.0.1:9" });
      await toast(page, "No Spark server answers at http://127.0.0.1:9").waitFor({
        timeout: 30_000,
      });
      await closeToasts(page);
      await failsWithoutApply(page, "No Spark server answers", "Start spark serve");
    });
  },
);
