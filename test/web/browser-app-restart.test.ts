// The browser app across a `spark serve` restart, in chromium (issue 37): the session open in the
// page stays in the sidebar once the new server is up (it was gone until something happened in
// it: the list answered while the page's attach was resuming the session, so it was in neither
// the list's live part nor its logged part).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { send, shoot, useBrowserApp, waitForIdle } from "./support/browser-app-harness.ts";
import { chromiumMissingReason } from "./support/chromium.ts";
import { startSparkServe } from "./support/spark-serve-process.ts";

const missing = chromiumMissingReason();

/** A loopback port free right now, for two servers in turn on one URL. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe.skipIf(missing !== undefined)("the browser app across a server restart", () => {
  const harness = useBrowserApp();

  it("keeps the open session in the sidebar after spark serve restarts", async () => {
    const port = await freePort();
    const turns = [{ text: "First reply." }];
    harness.server = await startSparkServe(turns, { extraArgs: ["--port", String(port)] });
    const page = await harness.newPage();
    await send(page, "Remember this session");
    await waitForIdle(page);
    await page.locator(".transcript", { hasText: "First reply." }).waitFor();
    const sessionId = new URL(page.url()).hash.replace("#session=", "");
    const current = page.locator(".session-list .session.current");
    await current.waitFor();

    const first = harness.server;
    await first.stop();
    // A user's many saved sessions: listing them takes the new server a while, long enough for
    // the page's attach to resume its session meanwhile.
    const sessions = first.workspace.sessionsDirectory;
    const [log] = readdirSync(sessions).filter((name) => name.endsWith(`-${sessionId}.jsonl`));
    const text = readFileSync(path.join(sessions, log ?? ""), "utf8");
    for (let index = 0; index < 400; index += 1) {
      const id = (0x10000000 + index).toString(16);
      writeFileSync(path.join(sessions, `2020-01-01-${id}.jsonl`), text.replaceAll(sessionId, id));
    }
    harness.server = await startSparkServe(turns, {
      workspace: first.workspace,
      extraArgs: ["--port", String(port)],
    });
    await page.getByTestId("connection").filter({ hasText: "connected" }).waitFor();
    await waitForIdle(page);
    // Once the list has answered (the 400 saved sessions are in it), the open one is there too.
    await page.waitForFunction(
      (id) => {
        const { sessions } = (
          window as unknown as {
            sparkApp: { getState(): { sessions: Array<{ sessionId: string }> } };
          }
        ).sparkApp.getState();
        return sessions.length > 400 && sessions.some((session) => session.sessionId === id);
      },
      sessionId,
      { timeout: 15_000 },
    );
    await shoot(page, "after-restart");
    expect(await current.count()).toBe(1);
    expect(await current.innerText()).toContain("Remember this session");
  });
});
