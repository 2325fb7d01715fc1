// What a user does around a quick edit in the workbench, shared by the quick-edit test files:
// select lines, start the edit, type in the file while it streams, wait for Accept to land.
import type { Locator, Page } from "playwright-core";
import { runCommand, visibleText } from "./workbench.ts";

export async function quickEdit(page: Page, instruction: string): Promise<void> {
  await runCommand(page, "Spark: Quick Edit Selection");
  await typeInstruction(page, instruction);
}

/**
 * A quick edit of lines `line` to `line + extra` of the open file: a click in its first line gives
 * the file's editor the focus, then the lines are selected and the edit started.
 */
export async function quickEditLines(
  page: Page,
  { line, extra = 0 }: { line: number; extra?: number },
  instruction: string,
): Promise<void> {
  await page.locator(".monaco-editor .view-line").first().click();
  await selectLines(page, line, extra);
  await quickEdit(page, instruction);
}

/** Enters the instruction (as one input, as a paste does) once the quick edit's input box shows. */
export async function typeInstruction(page: Page, instruction: string): Promise<void> {
  await page
    .locator(".quick-input-widget", { hasText: "How should the selected code change?" })
    .waitFor();
  await page.keyboard.insertText(instruction);
  await page.keyboard.press("Enter");
}

/** Selects from the first non-blank character of `line` to the end of `line + extra`. */
export async function selectLines(page: Page, line: number, extra = 0): Promise<void> {
  await goToLine(page, line);
  await page.keyboard.press("Home");
  for (let index = 0; index < extra; index++) await page.keyboard.press("Shift+ArrowDown");
  await page.keyboard.press("Shift+End");
}

/**
 * Go to Line, then wait until its input has closed and the editor has the focus again: under load
 * the next key otherwise reaches the input (Ctrl+Shift+Enter accepts a quick input).
 */
export async function goToLine(page: Page, line: number): Promise<void> {
  await page.keyboard.press("Control+G");
  await page.locator(".quick-input-widget input").waitFor();
  await page.keyboard.type(String(line));
  await page.keyboard.press("Enter");
  await page.locator(".quick-input-widget").waitFor({ state: "hidden", timeout: 30_000 });
  await focusReaches(page, ".monaco-editor");
}

/**
 * Puts the focus in the proposal's text (the diff's modified side), as a user clicking there does,
 * and waits until it is there: under load a click right after the diff opened once left the focus
 * where it was (the diff's selection unchanged), and the proposal's keys then went elsewhere.
 */
export async function focusProposal(page: Page): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    await page.locator(".monaco-diff-editor .modified .view-lines").first().click();
    if (await focusReaches(page, ".monaco-diff-editor .modified", 5_000).then(yes, no)) return;
  }
  throw new Error("three clicks in the proposal's text left the focus elsewhere");
}

/** Waits until the focused element is inside `selector`; rejects after `timeout` ms. */
export async function focusReaches(page: Page, selector: string, timeout = 30_000): Promise<void> {
  await page.waitForFunction(
    (inside) => document.activeElement?.closest(inside) != null,
    selector,
    { timeout },
  );
}

const yes = (): boolean => true;
const no = (): boolean => false;

export const diffText = (page: Page): Promise<string> =>
  page.locator(".monaco-diff-editor").first().innerText().then(visibleText);

/** Switches to the file's own editor (from the explorer) and puts the focus in its text. */
export async function focusFileEditor(page: Page, name: string): Promise<void> {
  await page.locator(".monaco-list-row", { hasText: name }).first().click({ timeout: 30_000 });
  await page.locator(".tab.active", { hasText: new RegExp(`^${name}`) }).waitFor();
  // The explorer keeps the focus: click into the editor it showed.
  await page.locator(".monaco-editor .view-lines").filter({ visible: true }).first().click();
  await focusReaches(page, ".monaco-editor");
}

/** Switches to the file's own editor and types there while the proposal streams. */
export async function editFileWhileStreaming(
  page: Page,
  name: string,
  where: string | undefined,
  text: string,
  line?: number,
): Promise<void> {
  await focusFileEditor(page, name);
  if (line !== undefined) await goToLine(page, line);
  if (where !== undefined) await page.keyboard.press(where);
  await page.keyboard.type(text);
}

/**
 * The proposal's diff is gone and Accept has finished: the file's editor shows `applied` and holds
 * the focus. Accept focuses that editor after the diff closes (and under load retries an edit the
 * user's last keystrokes made stale); a command palette opened before then loses the focus to it
 * and its keys land in the file.
 */
export async function diffClosed(page: Page, applied: RegExp): Promise<void> {
  await page.locator(".monaco-diff-editor").first().waitFor({ state: "detached", timeout: 30_000 });
  await page
    .locator(".monaco-editor .view-lines", { hasText: applied })
    .filter({ visible: true })
    .first()
    .waitFor({ timeout: 30_000 });
  await focusReaches(page, ".monaco-editor");
}

export async function closeToasts(page: Page): Promise<void> {
  for (const close of await page.locator(".notification-toast .codicon-notifications-clear").all())
    await close.click().catch(() => undefined);
  await runCommand(page, "Notifications: Clear All Notifications");
}

/** The error count the status bar's Problems item shows. */
export async function problemCount(page: Page): Promise<number> {
  const label = (await page.locator("#status\\.problems").first().getAttribute("aria-label")) ?? "";
  const match = /(\d+)\s+Errors?/i.exec(label) ?? /Errors?:\s*(\d+)/i.exec(label);
  return Number(match?.[1] ?? 0);
}

/** The notice that a proposal waits for an answer; it names the file and goes once answered. */
export function proposalNotice(page: Page): Locator {
  return page.locator(".notification-toast", { hasText: /Spark's edit to .+ is ready/ });
}

/**
 * The proposal is offered: its diff is the active editor (its tab clicked if the user went
 * elsewhere) and shows ✓ in its title bar, which needs a finished stream. Builds without the
 * notice show this too, so a test of an older build fails on its assertion, not here.
 */
export async function proposalReady(page: Page): Promise<void> {
  const tab = page.locator(".tab", { hasText: "Spark edit" }).first();
  await tab.waitFor({ timeout: 60_000 });
  if (!(await tab.evaluate((element) => element.classList.contains("active")))) await tab.click();
  await page
    .locator('.editor-actions [aria-label^="Spark: Accept Edit"]')
    .first()
    .waitFor({ timeout: 60_000 });
}

/** ✓ in the proposal diff's title bar (it shows once the proposal is offered). */
export async function acceptProposal(page: Page): Promise<void> {
  await proposalReady(page);
  await page.locator('.editor-actions [aria-label^="Spark: Accept Edit"]').first().click();
}

/** ✗ in the proposal diff's title bar. */
export async function rejectProposal(page: Page): Promise<void> {
  await page.locator('.editor-actions [aria-label^="Spark: Reject Edit"]').first().click();
}
