// The browser app's sessions over time, in chromium against a real `spark serve`: two tabs on
// one session, a reload mid-stream, a dropped network (with the "not connected" banner that goes
// once connected again), and a session `spark exec` started.
import { execFileSync } from "node:child_process";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  lastReply,
  send,
  shoot,
  slowText,
  useBrowserApp,
  waitForIdle,
} from "./support/browser-app-harness.ts";
import { chromiumMissingReason } from "./support/chromium.ts";
import { startDroppableProxy } from "./support/droppable-proxy.ts";
import { SPARK_BIN, startSparkServe, writeScript } from "./support/spark-serve-process.ts";

const missing = chromiumMissingReason();

describe.skipIf(missing !== undefined)("the browser app's sessions in chromium", () => {
  const harness = useBrowserApp();
  const { open, newPage } = harness;

  it("keeps two pages on one session in step, either one may steer", async () => {
    const first = await open([
      { text: slowText(200), delayMs: 20 },
      { text: "Second answer.", expect: { lastMessageIncludes: "from the second page" } },
    ]);
    await send(first, "Start something long");
    await first.waitForFunction(() =>
      (document.querySelector(".assistant")?.textContent ?? "").includes("word2"),
    );
    const sessionId = new URL(first.url()).hash.replace("#session=", "");
    const second = await newPage(`#session=${sessionId}`);
    await second.waitForFunction(() =>
      (document.querySelector(".assistant")?.textContent ?? "").includes("word5"),
    );
    await send(second, "now from the second page");
    // The first page is a background tab now: it renders on a (throttled) timer, not per frame.
    for (const page of [first, second]) {
      await waitForIdle(page);
      await page.locator(".transcript", { hasText: "Second answer." }).waitFor();
    }
    const transcriptOf = (page: Page) => page.locator(".transcript").innerText();
    const [firstText, secondText] = [await transcriptOf(first), await transcriptOf(second)];
    if (firstText !== secondText) console.log(JSON.stringify({ firstText, secondText }));
    expect(secondText).toBe(firstText);
    expect(await transcriptOf(first)).toContain("Second answer.");
    await shoot(second, "second-page");
  });

  it("reload mid-stream resumes from the last sequence: nothing lost, nothing twice", async () => {
    const words = slowText(150);
    const page = await open([{ text: words, delayMs: 20 }]);
    await send(page, "Stream for a while");
    await page.waitForFunction(() =>
      (document.querySelector(".assistant")?.textContent ?? "").includes("word20"),
    );
    await page.reload();
    await page.getByTestId("connection").filter({ hasText: "connected" }).waitFor();
    await waitForIdle(page);
    expect(await page.getByTestId("user-message").count()).toBe(1);
    expect((await lastReply(page).textContent())?.trim()).toBe(words);
  });

  it("a dropped network reconnects and replays what was missed, nothing twice", async () => {
    const words = slowText(150);
    harness.server = await startSparkServe([{ text: words, delayMs: 20 }]);
    const proxy = await startDroppableProxy(harness.server.url);
    try {
      const page = await harness.chromium.context.newPage();
      page.on("pageerror", (error) => harness.pageErrors.push(error.message));
      await page.goto(`${proxy.url}/`);
      await page.getByTestId("connection").filter({ hasText: "connected" }).waitFor();
      await send(page, "Stream through a flaky network");
      await page.waitForFunction(() =>
        (document.querySelector(".assistant")?.textContent ?? "").includes("word20"),
      );
      proxy.refuseNew(true);
      proxy.dropAll();
      await page.getByTestId("connection").filter({ hasText: "reconnecting" }).waitFor();
      // Sent while the network is down: refused with a banner, which goes once connected again.
      await page.locator("#composer-input").fill("are you there?");
      await page.locator("#composer-input").press("Enter");
      await page.getByTestId("flash").filter({ hasText: "Not connected" }).waitFor();
      proxy.refuseNew(false);
      await page.getByTestId("connection").filter({ hasText: "connected" }).waitFor();
      await page.getByTestId("flash").waitFor({ state: "detached" });
      await waitForIdle(page);
      expect((await lastReply(page).textContent())?.trim()).toBe(words);
      expect(await page.getByTestId("user-message").count()).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it("resumes a session `spark exec` started, showing its history", async () => {
    harness.server = await startSparkServe([{ text: "Served reply." }]);
    const script = writeScript(harness.server.workspace, "exec.jsonl", [
      { text: "Exec reply here." },
    ]);
    execFileSync(
      process.execPath,
      [SPARK_BIN, "exec", "--model", `script:${script}`, "Task from exec"],
      {
        cwd: harness.server.workspace.root,
        env: { ...process.env, SPARK_HOME: harness.server.home },
        stdio: "ignore",
      },
    );
    const page = await newPage();
    await page.getByRole("button", { name: /Task from exec/ }).click();
    await page.locator(".transcript", { hasText: "Exec reply here." }).waitFor();
    expect(await page.getByTestId("user-message").first().textContent()).toContain(
      "Task from exec",
    );
  });
});
