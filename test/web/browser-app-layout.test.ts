// The browser app's layout in chromium against a real `spark serve`: a 390 px phone screen
// without sideways scrolling, the light theme from the system setting, and a conversation that
// keeps its end in view while it streams (after a reload too) unless the user scrolled up.
// Screenshots, wide and narrow, dark and light, go to test-results/web/.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  distanceFromEnd,
  send,
  shoot,
  useBrowserApp,
  waitForIdle,
} from "./support/browser-app-harness.ts";
import { chromiumMissingReason } from "./support/chromium.ts";

const missing = chromiumMissingReason();

/** A reply about `lines` paragraphs tall, with a code block, streamed a token at a time. */
const tallReply = (lines: number): string =>
  "## Plan\n\n```ts\nexport const greeting = `hi`; // a long line that would not fit a phone screen at all\n```\n\n" +
  Array.from({ length: lines }, (_, index) => `Line ${index} of the answer.`).join("\n\n") +
  "\n\nThe end of the answer.";

const phone = { width: 390, height: 844 };

const backgroundOf = (page: Page): Promise<string> =>
  page.evaluate(() => getComputedStyle(document.body).backgroundColor);

describe.skipIf(missing !== undefined)("the browser app's layout in chromium", () => {
  const harness = useBrowserApp();

  it("fits a 390 px screen: no sideways scroll, sessions and files behind a button", async () => {
    const page = await harness.open([{ text: tallReply(12), delayMs: 1 }]);
    await page.setViewportSize(phone);
    // Headless chromium reports a light system theme unless told otherwise.
    await page.emulateMedia({ colorScheme: "dark" });
    await expect.poll(() => backgroundOf(page)).toBe("rgb(20, 22, 26)");
    const sidebar = page.locator("#sidebar");
    const toggle = page.getByRole("button", { name: "☰ Sessions" });
    expect(await sidebar.isVisible()).toBe(false);
    await send(page, "Plan the greeting change for a phone screen, with a long first message");
    await waitForIdle(page);
    await page.getByText("The end of the answer.").waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    // The conversation has the width of the screen, not what a sidebar leaves of it.
    const transcriptWidth = await page.locator(".transcript").evaluate((node) => node.clientWidth);
    expect(transcriptWidth).toBeGreaterThan(350);
    await shoot(page, "narrow-dark");
    await toggle.click();
    await sidebar.getByRole("button", { name: /Plan the greeting/ }).waitFor();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    await shoot(page, "narrow-sidebar-dark");
    // Picking a session closes the panel; Esc does too.
    await sidebar.getByRole("button", { name: /Plan the greeting/ }).click();
    await expect.poll(() => sidebar.isVisible()).toBe(false);
    await toggle.click();
    await sidebar.getByRole("button", { name: /Plan the greeting/ }).waitFor();
    await page.keyboard.press("Escape");
    await expect.poll(() => sidebar.isVisible()).toBe(false);

    await page.emulateMedia({ colorScheme: "light" });
    await expect.poll(() => backgroundOf(page)).toBe("rgb(246, 247, 249)");
    await shoot(page, "narrow-light");
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await sidebar.isVisible()).toBe(true);
    expect(await toggle.isVisible()).toBe(false);
    await shoot(page, "wide-light");
    await page.emulateMedia({ colorScheme: "dark" });
    await expect.poll(() => backgroundOf(page)).toBe("rgb(20, 22, 26)");
    await shoot(page, "wide-dark");
    await page.emulateMedia({ colorScheme: null });
  });

  it("keeps the end in view while it streams, in a tab reloaded mid-stream too", async () => {
    // Fast enough that each frame adds more than the 40 px "at the end" slack.
    const first = await harness.open([{ text: tallReply(300), delayMs: 1 }]);
    await send(first, "Write a long plan");
    await first.getByText("Line 20 of the answer.").waitFor();
    const sessionId = new URL(first.url()).hash.replace("#session=", "");
    const second = await harness.newPage(`#session=${sessionId}`);
    await second.getByText("Line 60 of the answer.").waitFor();
    await second.reload();
    await second.getByTestId("connection").filter({ hasText: "connected" }).waitFor();
    // A loaded browser delivers scroll events late, after more output has grown the page: such
    // an event (the page's own scroll to the end, seen with the end further down) is no reason
    // to stop following. Here they come every few milliseconds, at any point of a frame.
    await second.evaluate(() => {
      const transcript = document.querySelector(".transcript") as HTMLElement;
      setInterval(() => transcript.dispatchEvent(new Event("scroll")), 3);
    });
    for (const page of [second, first]) {
      await waitForIdle(page);
      await page.getByText("The end of the answer.").waitFor();
      await expect.poll(() => distanceFromEnd(page)).toBeLessThan(40);
    }
    expect(
      await second.locator(".transcript").evaluate((node) => node.scrollHeight),
    ).toBeGreaterThan(4000);
  });

  it("stays where the user scrolled up to, and ↓ new output goes back to following", async () => {
    const page = await harness.open([{ text: tallReply(250), delayMs: 4 }]);
    await send(page, "Write a long plan");
    await page.getByText("Line 40 of the answer.").waitFor();
    await page.locator(".transcript").hover();
    await page.mouse.wheel(0, -600);
    const newOutput = page.getByRole("button", { name: "↓ new output" });
    await newOutput.waitFor();
    const readingAt = await page.locator(".transcript").evaluate((node) => node.scrollTop);
    await page.getByText("Line 120 of the answer.").waitFor({ state: "attached" });
    // More output arrived; the view stayed where the user is reading.
    expect(await page.locator(".transcript").evaluate((node) => node.scrollTop)).toBe(readingAt);
    expect(await distanceFromEnd(page)).toBeGreaterThan(600);
    await newOutput.click();
    await newOutput.waitFor({ state: "detached" });
    await waitForIdle(page);
    await page.getByText("The end of the answer.").waitFor();
    await expect.poll(() => distanceFromEnd(page)).toBeLessThan(40);
  });
});
