// Paragraphs in a reply, in chromium (issue 37): a model whose tokens carry their space in front
// (" Second" after a blank line, as SentencePiece models write) showed that space at the start of
// the paragraph, which the reply's pre-wrap styling kept visible.
import { describe, expect, it } from "vitest";
import { send, shoot, useBrowserApp, waitForIdle } from "./support/browser-app-harness.ts";
import { chromiumMissingReason } from "./support/chromium.ts";

const missing = chromiumMissingReason();

describe.skipIf(missing !== undefined)("the browser app's paragraphs", () => {
  const { open } = useBrowserApp();

  it("starts a paragraph after a blank line with its first word", async () => {
    const page = await open([{ text: "First paragraph.\n\n Second paragraph starts here." }]);
    await send(page, "two paragraphs");
    await waitForIdle(page);
    const second = page.locator(".assistant p").nth(1);
    await second.waitFor();
    expect(await second.evaluate((element) => element.textContent)).toBe(
      "Second paragraph starts here.",
    );
    // Its first letter lines up with the first paragraph's.
    const lefts = await page.locator(".assistant p").evaluateAll((paragraphs) =>
      paragraphs.map((paragraph) => {
        const range = document.createRange();
        range.setStart(paragraph.firstChild ?? paragraph, 0);
        range.setEnd(paragraph.firstChild ?? paragraph, 1);
        return Math.round(range.getBoundingClientRect().left);
      }),
    );
    expect(lefts[1]).toBe(lefts[0]);
    await shoot(page, "paragraphs");
  });
});
