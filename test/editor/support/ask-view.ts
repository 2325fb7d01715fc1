// The Ask Spark view in a code-server window, for the Ask test files: its page inside the
// webview's two frames, clearing it between tests that share a window, and what the server
// recorded of the questions it got.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { FrameLocator, Page } from "playwright-core";
import { expect } from "vitest";
import { runCommand } from "./workbench.ts";

/** The Ask view's page, inside the webview's two frames. */
export function askView(page: Page): FrameLocator {
  return page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
}

/**
 * Clears what an Ask test left in a shared window, once the window's connections are ended: waits
 * for the view to say so, or that its question was not sent (the next question then connects to the
 * next test's server, not over a socket that is closing), then New chat empties the transcript and
 * forgets the session, so the next test's session is no break, and the explorer is shown again.
 */
export async function startNewChat(page: Page): Promise<void> {
  if ((await page.locator("iframe.webview.ready").count()) === 0) return;
  const view = askView(page);
  if (!(await view.locator("#new-chat").isVisible()))
    await runCommand(page, "Focus on Ask Spark View");
  // A question that was not sent (a refused key, a server that did not answer) left no connection.
  if ((await view.locator(".user").count()) > 0)
    await view
      .locator(".status", { hasText: "disconnected from spark serve" })
      .or(view.locator(".user .ask-state", { hasText: /refused the API key|^not sent:/ }))
      .first()
      .waitFor({ timeout: 10_000 });
  await view.locator("#new-chat").click();
  await expect.poll(() => view.locator("#transcript > *").count()).toBe(0);
  // The side bar as a new window shows it: the explorer, where the next test opens its files.
  await runCommand(page, "View: Show Explorer");
  await page.locator(".explorer-folders-view").waitFor();
}

/** Every file's text under `directory` (a server's session logs), joined. */
export function textUnder(directory: string): string {
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
