// The browser app end to end: Debian's chromium (playwright-core) against a real `spark serve`
// with the scripted engine. Each case starts its own server (the script plays its lines in
// order) and a fresh browser context; screenshots of the main views go to test-results/web/.
// The narrow layout, the light theme and following the stream: browser-app-layout.test.ts;
// tabs, reloads and reconnects: browser-app-sessions.test.ts.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAgentWorkspace, type AgentWorkspace } from "../agent/support/agent-workspace.ts";
import {
  distanceFromEnd,
  lastReply,
  send,
  shoot,
  slowText,
  useBrowserApp,
  waitForIdle,
} from "./support/browser-app-harness.ts";
import { chromiumMissingReason } from "./support/chromium.ts";
import { startSparkServe } from "./support/spark-serve-process.ts";

const missing = chromiumMissingReason();
if (missing !== undefined) console.warn(`Skipping the browser app tests: ${missing}.`);

describe.skipIf(missing !== undefined)("the browser app in chromium", () => {
  const harness = useBrowserApp();
  const { open, newPage } = harness;

  it("starts a session, streams Markdown with a highlighted code block, and shows HTML as text", async () => {
    const reply =
      "## Plan\n\nI'll **rename** `getUser` first.\n\n```ts\nconst user = await fetchUser(id); // renamed\n```\n\n" +
      'A tricky reply: <img src=x onerror="window.sparkXss = 1"> <script>window.sparkXss = 2</script>';
    const page = await open([{ text: reply, delayMs: 5 }]);
    await send(page, "Rename getUser");
    await waitForIdle(page);
    const transcript = page.locator(".transcript");
    await transcript.locator("h4", { hasText: "Plan" }).waitFor();
    expect(await transcript.locator("strong").first().textContent()).toBe("rename");
    expect(await transcript.locator(".code-block .token-keyword").first().textContent()).toBe(
      "const",
    );
    expect(await transcript.locator(".code-block .token-comment").textContent()).toBe("// renamed");
    // Copy puts the code, exactly as written, on the clipboard.
    await harness.chromium.context.grantPermissions(["clipboard-read", "clipboard-write"], {
      origin: harness.server?.url ?? "",
    });
    await transcript.getByRole("button", { name: "Copy code" }).click();
    await transcript
      .getByRole("button", { name: "Copy code" })
      .filter({ hasText: "Copied" })
      .waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      "const user = await fetchUser(id); // renamed",
    );
    expect(await lastReply(page).textContent()).toContain(
      '<img src=x onerror="window.sparkXss = 1">',
    );
    expect(await page.locator(".transcript img, .transcript script").count()).toBe(0);
    expect(
      await page.evaluate(() => (window as unknown as { sparkXss?: number }).sparkXss),
    ).toBeUndefined();
    // The session list shows it, with the first message as its title.
    await page.locator("#session-list .session-title", { hasText: "Rename getUser" }).waitFor();
    await page
      .getByTestId("live-strip")
      .locator("dd", { hasText: /^script/ })
      .waitFor();
    await shoot(page, "conversation");
    // Keyboard: ? lists the shortcuts, Esc closes the list.
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("?");
    await page.getByRole("dialog").waitFor();
    await shoot(page, "shortcuts");
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    // `/` puts the focus in the message box; Alt+S on the open session in the list.
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("/");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("composer-input");
    await page.keyboard.press("Alt+KeyS");
    expect(await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 300))).toContain(
      'aria-current="page"',
    );
  });

  it("stops mid-stream with the Stop button and with Esc, keeping the partial reply", async () => {
    const page = await open([
      { text: slowText(400), delayMs: 25 },
      { text: slowText(400), delayMs: 25 },
    ]);
    await send(page, "Write a long answer");
    await page.waitForFunction(() =>
      (document.querySelector(".assistant")?.textContent ?? "").includes("word5"),
    );
    await page.getByRole("button", { name: "Stop" }).click();
    await waitForIdle(page);
    await lastReply(page).locator(".badge", { hasText: "interrupted" }).waitFor();
    expect(await lastReply(page).textContent()).not.toContain("word399");

    await send(page, "Again, please");
    await page.waitForFunction(() =>
      (document.querySelectorAll(".assistant")[1]?.textContent ?? "").includes("word5"),
    );
    await page.keyboard.press("Escape");
    await waitForIdle(page);
    // The badge is drawn on the next animation frame after the status: wait for it, then count.
    await lastReply(page).locator(".badge", { hasText: "interrupted" }).waitFor();
    expect(await page.locator(".assistant .badge", { hasText: "interrupted" }).count()).toBe(2);
    // One marker per interrupt: the badge on the cut reply, no "Interrupted." line besides.
    expect(await page.locator(".notice", { hasText: "Interrupted" }).count()).toBe(0);
  });

  it("steers: Enter while the model streams reaches the running turn", async () => {
    const page = await open([
      { text: slowText(400), delayMs: 25 },
      { text: "Keeping the old name.", expect: { lastMessageIncludes: "keep the old name" } },
    ]);
    await send(page, "Rename it");
    await page.waitForFunction(() =>
      (document.querySelector(".assistant")?.textContent ?? "").includes("word3"),
    );
    await send(page, "no, keep the old name");
    await waitForIdle(page);
    await page.locator(".user .role", { hasText: "steer" }).waitFor();
    expect(await lastReply(page).textContent()).toContain("Keeping the old name.");
  });

  it("queues: shown until sent, removable, and sent as the next turn once this one ends", async () => {
    const page = await open([
      // Long enough (3 s) that a loaded machine still clicks Queue while it runs.
      { text: slowText(150), delayMs: 20 },
      { text: "Queued one done.", expect: { lastMessageIncludes: "then the queued task" } },
    ]);
    await send(page, "First task");
    await page.waitForFunction(() =>
      (document.querySelector(".assistant")?.textContent ?? "").includes("word3"),
    );
    await page.locator("#composer-input").fill("then the queued task");
    await page.getByRole("button", { name: "Queue" }).click();
    await send(page, "and a second thought", "Alt+Enter");
    const queued = page.getByTestId("queued-message");
    await queued.filter({ hasText: "then the queued task" }).waitFor();
    await expect.poll(() => queued.count()).toBe(2);
    await queued
      .filter({ hasText: "a second thought" })
      .getByRole("button", { name: "Remove queued message" })
      .click();
    // The list is drawn on the next animation frame: wait for it.
    await expect.poll(() => queued.count()).toBe(1);
    await shoot(page, "queue");
    // Still pending while the first reply streams: nothing joined the running turn.
    expect(await page.getByTestId("user-message").count()).toBe(1);
    await page.locator(".transcript", { hasText: "Queued one done." }).waitFor();
    await waitForIdle(page);
    await queued.first().waitFor({ state: "detached" });
    // The first reply ran to its end, then the queued message started a turn of its own.
    expect(await page.getByTestId("assistant-message").first().textContent()).toContain("word149");
    expect(await page.locator(".assistant .badge", { hasText: "interrupted" }).count()).toBe(0);
    const users = await page.getByTestId("user-message").allTextContents();
    expect(users).toEqual(["YouFirst task", "Youthen the queued task"]);
    // A new session in the workspace root appears in the list and opens empty.
    await page.locator("#new-session-button").click();
    await page.locator("#session-list .session").nth(1).waitFor();
    // The list shows the new session before the transcript switches to it (a frame or two later
    // on a loaded machine): wait for the switch rather than count at once.
    await expect.poll(() => page.getByTestId("user-message").count()).toBe(0);
    expect(await page.locator("#session-list .session.current .session-status").textContent()).toBe(
      "idle",
    );
  });

  it("asks before running a command, above its output; y approves; the time is the command's", async () => {
    const command = "touch approved.txt && echo approved-ok";
    const page = await open([
      { text: "Running it.", toolCalls: [{ name: "run_command", arguments: { command } }] },
      {
        text: `It printed approved-ok.\n\n${slowText(400)}\n\nThe end of the answer.`,
        expect: { lastMessageIncludes: "approved-ok" },
      },
    ]);
    await page.setViewportSize({ width: 1280, height: 500 });
    await send(page, "Run the echo");
    const approval = page.getByTestId("approval");
    await approval.getByRole("button", { name: "Approve" }).waitFor();
    expect(await approval.textContent()).toContain(command);
    await page
      .locator("#session-list [data-testid=session-status]", { hasText: "waiting for approval" })
      .waitFor();
    await shoot(page, "approval");
    // The user takes a while to answer; the focus is in the (empty) message box, where y answers.
    await page.waitForTimeout(1500);
    await page.locator("#composer-input").focus();
    await page.keyboard.press("y");
    await waitForIdle(page);
    await approval.locator(".badge", { hasText: "approved" }).waitFor();
    expect(await page.locator("#composer-input").inputValue()).toBe("");
    expect(await lastReply(page).textContent()).toContain("The end of the answer.");
    expect(harness.server?.workspace.read("approved.txt")).toBe("");
    // The card comes before the command's row, whose output opens on demand.
    const order = await page
      .locator("[data-testid=approval], [data-testid=tool-call]")
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-testid")));
    expect(order).toEqual(["approval", "tool-call"]);
    const tool = page.getByTestId("tool-call").last();
    expect(await tool.locator(".tool-output").count()).toBe(0);
    // The duration is the command's own, without the 1.5 s the approval waited.
    const duration = Number(
      (await tool.locator(".tool-duration").textContent())?.replace(" ms", ""),
    );
    expect(duration).toBeLessThan(1500);
    // The view followed the answer after Approve: its end is in view.
    await expect.poll(() => distanceFromEnd(page)).toBeLessThan(40);
    await tool.locator(".tool-line").click();
    expect(await tool.locator(".tool-output").textContent()).toContain("approved-ok");
  });

  it("shows an edit as a diff and Undo restores the file on disk", async () => {
    const patch =
      '*** Begin Patch\n*** Update File: src/greet.ts\n-export const greeting = "hello";\n+export const greeting = "hi";\n*** End Patch';
    const turns = [
      { text: "Reading.", toolCalls: [{ name: "read_file", arguments: { path: "src/greet.ts" } }] },
      { text: "Patching.", toolCalls: [{ name: "apply_patch", arguments: { patch } }] },
      { text: "Done: the greeting is now hi." },
      { text: "They match.", expect: { lastMessageIncludes: "- @src/greet.ts" } },
    ];
    harness.server = await startSparkServe(turns, {
      workspace: workspaceWith({ "src/greet.ts": 'export const greeting = "hello";\n' }),
    });
    const page = await newPage();
    await send(page, "Say hi instead");
    await waitForIdle(page);
    const edit = page.getByTestId("edit");
    expect(await edit.locator(".diff-added").textContent()).toBe('+export const greeting = "hi";');
    expect(await edit.locator(".diff-removed").textContent()).toBe(
      '-export const greeting = "hello";',
    );
    expect(harness.server.workspace.read("src/greet.ts")).toBe('export const greeting = "hi";\n');
    await shoot(page, "edit");
    await edit.getByRole("button", { name: "Undo" }).click();
    await edit.locator(".badge", { hasText: "undone" }).waitFor();
    expect(harness.server.workspace.read("src/greet.ts")).toBe(
      'export const greeting = "hello";\n',
    );
    // The workspace tree: open src/, tick the file, and it is attached to the next message.
    await page.locator(".file-tree button.folder", { hasText: "src/" }).click();
    await page.locator('input[data-path="src/greet.ts"]').check();
    await page.locator(".composer .chip", { hasText: "@src/greet.ts" }).waitFor();
    // `@` in the message box completes workspace files; Enter takes the highlighted one.
    const input = page.locator("#composer-input");
    await input.fill("");
    await input.pressSequentially("compare with @gre");
    await page.getByRole("option", { name: "src/greet.ts" }).waitFor();
    await input.press("Enter");
    expect(await input.inputValue()).toBe("compare with @src/greet.ts ");
    await input.press("Enter");
    await lastReply(page).filter({ hasText: "They match." }).waitFor();
    // The sent message shows what was typed, and the ticked file as a chip, not the wrapper.
    const message = page.getByTestId("user-message").last();
    expect(await message.locator(".user-text").textContent()).toBe("compare with @src/greet.ts");
    expect(await message.getByTestId("file-chip").textContent()).toBe("@src/greet.ts");
    expect(await message.textContent()).not.toContain("Files from the workspace");
  });

  it("uploads a text file into the message, refuses one past the cap, writes nothing", async () => {
    const page = await open([
      {
        text: "Your notes say remember-the-milk.",
        expect: { lastMessageIncludes: "remember-the-milk" },
      },
    ]);
    const uploads = path.join(harness.server?.home ?? "", "uploads");
    mkdirSync(uploads, { recursive: true });
    writeFileSync(path.join(uploads, "notes.txt"), "TODO: remember-the-milk\n");
    writeFileSync(path.join(uploads, "huge.log"), "x".repeat(300 * 1024));
    await page.getByTestId("upload-input").setInputFiles(path.join(uploads, "huge.log"));
    expect(await page.getByTestId("flash").textContent()).toContain("capped at 256 KB");
    await page.getByTestId("upload-input").setInputFiles(path.join(uploads, "notes.txt"));
    await page.getByTestId("upload-chip").filter({ hasText: "notes.txt" }).waitFor();
    await send(page, "What do my notes say?");
    await waitForIdle(page);
    expect(await lastReply(page).textContent()).toContain("remember-the-milk");
    // The sent message shows the upload as a chip; a click shows its text, as text.
    const message = page.getByTestId("user-message").last();
    expect(await message.textContent()).not.toContain("Uploaded file");
    await message
      .getByTestId("upload-chip")
      .getByRole("button", { name: /notes\.txt/ })
      .click();
    expect(await page.getByTestId("preview").locator("pre").textContent()).toBe(
      "TODO: remember-the-milk\n",
    );
    await shoot(page, "upload-preview");
    await page.keyboard.press("Escape");
    await page.getByTestId("preview").waitFor({ state: "detached" });
    expect(existsSync(path.join(harness.server?.workspace.root ?? "", "notes.txt"))).toBe(false);
  });

  it("asks for the api key when the server has keys, refuses a wrong one, connects with the right one", async () => {
    harness.server = await startSparkServe([{ text: "Keyed reply." }], {
      configToml: '[serve]\napi_keys = ["web-test-key-1"]\n',
    });
    const page = await harness.chromium.context.newPage();
    page.on("pageerror", (error) => harness.pageErrors.push(error.message));
    await page.goto(`${harness.server.url}/`);
    const keyInput = page.locator("#api-key-input");
    await keyInput.fill("wrong-key");
    await keyInput.press("Enter");
    await page.getByRole("alert").filter({ hasText: "refused" }).waitFor();
    await keyInput.fill("web-test-key-1");
    await keyInput.press("Enter");
    await page.getByTestId("connection").filter({ hasText: "connected" }).waitFor();
    await send(page, "Hello with a key");
    await waitForIdle(page);
    expect(await lastReply(page).textContent()).toContain("Keyed reply.");
    // Kept for this tab only: a reload does not ask again.
    expect(await page.evaluate(() => sessionStorage.getItem("spark.apiKey"))).toBe(
      "web-test-key-1",
    );
    await page.reload();
    await page.getByTestId("connection").filter({ hasText: "connected" }).waitFor();
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
  });

  function workspaceWith(files: Record<string, string>): AgentWorkspace {
    const workspace = createAgentWorkspace();
    for (const [file, content] of Object.entries(files)) workspace.write(file, content);
    return workspace;
  }
});
