// The browser app end to end: Debian's chromium (playwright-core) against a real `spark serve`
// with the scripted engine. Each case starts its own server (the script plays its lines in
// order) and a fresh browser context; screenshots of the main views go to test-results/web/.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAgentWorkspace, type AgentWorkspace } from "../agent/support/agent-workspace.ts";
import {
  chromiumMissingReason,
  launchChromium,
  type LaunchedChromium,
} from "./support/chromium.ts";
import { startDroppableProxy } from "./support/droppable-proxy.ts";
import {
  SPARK_BIN,
  startSparkServe,
  writeScript,
  type SparkServeProcess,
} from "./support/spark-serve-process.ts";

const SCREENSHOTS = fileURLToPath(new URL("../../test-results/web/", import.meta.url));
const missing = chromiumMissingReason();
if (missing !== undefined) console.warn(`Skipping the browser app tests: ${missing}.`);

const slowText = (words: number): string =>
  Array.from({ length: words }, (_, index) => `word${index}`).join(" ");

describe.skipIf(missing !== undefined)("the browser app in chromium", () => {
  let chromium: LaunchedChromium;
  let server: SparkServeProcess | undefined;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    chromium = await launchChromium();
  });
  afterAll(() => chromium?.close());
  afterEach(async () => {
    for (const page of chromium.context.pages()) await page.close();
    await server?.close();
    server = undefined;
    expect(pageErrors.splice(0)).toEqual([]);
  });

  async function open(turns: unknown[], hash = ""): Promise<Page> {
    server = await startSparkServe(turns);
    return newPage(hash);
  }

  async function newPage(hash = ""): Promise<Page> {
    if (server === undefined) throw new Error("start a server first");
    const page = await chromium.context.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(`${server.url}/${hash}`);
    await page.getByTestId("connection").filter({ hasText: "connected" }).waitFor();
    return page;
  }

  async function send(page: Page, text: string, key = "Enter"): Promise<void> {
    const input = page.locator("#composer-input");
    await input.fill(text);
    await input.press(key);
    await page.waitForFunction(
      () => (document.querySelector("#composer-input") as HTMLTextAreaElement).value === "",
    );
  }

  const lastReply = (page: Page) => page.getByTestId("assistant-message").last();
  const waitForIdle = (page: Page) =>
    page.waitForFunction(() => {
      const app = (
        window as unknown as {
          sparkApp: {
            getState(): { view: { transcript: { status: string; activeTurnId?: string } } };
          };
        }
      ).sparkApp;
      const transcript = app.getState().view.transcript;
      return transcript.status === "idle" && transcript.activeTurnId === undefined;
    });
  const shoot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });

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

  it("queues: the Queue button sends the message after the running turn", async () => {
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
    await page.locator(".transcript", { hasText: "Queued one done." }).waitFor();
    await waitForIdle(page);
    // The first reply ran to its end: queueing did not interrupt it.
    expect(await page.getByTestId("assistant-message").first().textContent()).toContain("word149");
    expect(await page.locator(".assistant .badge", { hasText: "interrupted" }).count()).toBe(0);
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

  it("asks before running a command and runs it once approved", async () => {
    const page = await open([
      {
        text: "Running it.",
        toolCalls: [{ name: "run_command", arguments: { command: "echo approved-ok" } }],
      },
      { text: "It printed approved-ok.", expect: { lastMessageIncludes: "approved-ok" } },
    ]);
    await send(page, "Run the echo");
    const approval = page.getByTestId("approval");
    await approval.getByRole("button", { name: "Approve" }).waitFor();
    expect(await approval.textContent()).toContain("echo approved-ok");
    await page
      .locator("#session-list [data-testid=session-status]", { hasText: "waiting for approval" })
      .waitFor();
    await shoot(page, "approval");
    await approval.getByRole("button", { name: "Approve" }).click();
    await waitForIdle(page);
    await approval.locator(".badge", { hasText: "approved" }).waitFor();
    expect(await lastReply(page).textContent()).toContain("It printed approved-ok.");
    // The tool call is one line; its output opens on demand.
    const tool = page.getByTestId("tool-call").last();
    expect(await tool.locator(".tool-output").count()).toBe(0);
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
    ];
    server = await startSparkServe(turns, {
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
    expect(server.workspace.read("src/greet.ts")).toBe('export const greeting = "hi";\n');
    await shoot(page, "edit");
    await edit.getByRole("button", { name: "Undo" }).click();
    await edit.locator(".badge", { hasText: "undone" }).waitFor();
    expect(server.workspace.read("src/greet.ts")).toBe('export const greeting = "hello";\n');
    // The workspace tree: open src/, tick the file, and it is attached to the next message.
    await page.locator(".file-tree button.folder", { hasText: "src/" }).click();
    await page.locator('input[data-path="src/greet.ts"]').check();
    await page.locator(".chips .chip", { hasText: "@src/greet.ts" }).waitFor();
  });

  it("uploads a text file into the message, refuses one past the cap, writes nothing", async () => {
    const page = await open([
      {
        text: "Your notes say remember-the-milk.",
        expect: { lastMessageIncludes: "remember-the-milk" },
      },
    ]);
    const uploads = path.join(server?.home ?? "", "uploads");
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
    expect(existsSync(path.join(server?.workspace.root ?? "", "notes.txt"))).toBe(false);
  });

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
    server = await startSparkServe([{ text: words, delayMs: 20 }]);
    const proxy = await startDroppableProxy(server.url);
    try {
      const page = await chromium.context.newPage();
      page.on("pageerror", (error) => pageErrors.push(error.message));
      await page.goto(`${proxy.url}/`);
      await page.getByTestId("connection").filter({ hasText: "connected" }).waitFor();
      await send(page, "Stream through a flaky network");
      await page.waitForFunction(() =>
        (document.querySelector(".assistant")?.textContent ?? "").includes("word20"),
      );
      proxy.dropAll();
      await page.getByTestId("connection").filter({ hasText: "reconnecting" }).waitFor();
      await page.getByTestId("connection").filter({ hasText: "connected" }).waitFor();
      await waitForIdle(page);
      expect((await lastReply(page).textContent())?.trim()).toBe(words);
      expect(await page.getByTestId("user-message").count()).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it("resumes a session `spark exec` started, showing its history", async () => {
    server = await startSparkServe([{ text: "Served reply." }]);
    const script = writeScript(server.workspace, "exec.jsonl", [{ text: "Exec reply here." }]);
    execFileSync(
      process.execPath,
      [SPARK_BIN, "exec", "--model", `script:${script}`, "Task from exec"],
      {
        cwd: server.workspace.root,
        env: { ...process.env, SPARK_HOME: server.home },
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

  it("asks for the api key when the server has keys, refuses a wrong one, connects with the right one", async () => {
    server = await startSparkServe([{ text: "Keyed reply." }], {
      configToml: '[serve]\napi_keys = ["web-test-key-1"]\n',
    });
    const page = await chromium.context.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(`${server.url}/`);
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
