// The extension's core clients against a real `spark serve` (scripted engine): FIM ghost text with
// reuse while typing, quick edit over chat completions with `prediction`, and the Ask Spark
// connection to /v1/agent through the shared protocol client.
import net from "node:net";
import { WebSocket } from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { AdaptiveDebounce } from "../../editors/vscode/src/core/adaptive-debounce.ts";
import { connectAgent } from "../../editors/vscode/src/core/agent-connection.ts";
import { emptyAskTranscript, foldAskEvent } from "../../editors/vscode/src/core/ask-transcript.ts";
import { InlineCompletionEngine } from "../../editors/vscode/src/core/inline-completion-engine.ts";
import { streamQuickEdit } from "../../editors/vscode/src/core/quick-edit-client.ts";
import { startSparkServe, type SparkServeProcess } from "../web/support/spark-serve-process.ts";

let server: SparkServeProcess | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const requestsTo = (path: string): number =>
  (server?.output().match(new RegExp(`POST ${path} 200`, "g")) ?? []).length;

describe("the editor's clients against spark serve", () => {
  it("completes at the cursor and reuses the completion while the user types what it predicted", async () => {
    server = await startSparkServe([
      { text: "add(1, 2);\nconsole.log(total);" },
      { text: "unused" },
    ]);
    const engine = new InlineCompletionEngine({
      server: () => ({ baseUrl: server?.url ?? "" }),
      debounce: new AdaptiveDebounce({ minimumMs: 1, maximumMs: 1 }),
    });
    const document = (text: string) => ({
      text: `${text}\n`,
      offset: text.length,
      documentId: "file:///repo/sum.js",
      languageId: "javascript",
    });
    const signal = new AbortController().signal;
    // Single line: the filter stops at the first newline.
    await expect(engine.complete(document("const total = "), signal)).resolves.toBe("add(1, 2);");
    await expect(engine.complete(document("const total = add("), signal)).resolves.toBe("1, 2);");
    await expect.poll(() => requestsTo("/v1/completions")).toBe(1);
    expect(engine.requestsSent).toBe(1);
  });

  it("streams a quick edit over chat completions (prediction accepted) and unwraps the fence", async () => {
    server = await startSparkServe([
      { text: "```js\nconst a = 1;\n```", expect: { lastMessageIncludes: "let a = 1;" } },
    ]);
    const snapshots: string[] = [];
    for await (const text of streamQuickEdit(
      { baseUrl: server.url },
      { selection: "let a = 1;", instruction: "use const", languageId: "javascript" },
      { signal: new AbortController().signal },
    ))
      snapshots.push(text);
    expect(snapshots.at(-1)).toBe("const a = 1;");
    await expect.poll(() => requestsTo("/v1/chat/completions")).toBe(1);
  });

  it("stops a quick edit mid-stream when it is aborted (Esc), keeping what came", async () => {
    server = await startSparkServe([
      { text: "one two three four five six seven eight", delayMs: 150 },
    ]);
    const controller = new AbortController();
    const snapshots: string[] = [];
    await expect(
      (async () => {
        for await (const text of streamQuickEdit(
          { baseUrl: server?.url ?? "" },
          { selection: "one", instruction: "count", languageId: "plaintext" },
          { signal: controller.signal },
        )) {
          snapshots.push(text);
          controller.abort();
        }
      })(),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(snapshots).toHaveLength(1);
    expect("one two three four five six seven eight".startsWith(snapshots[0] ?? "x")).toBe(true);
  });

  it("asks the agent through /v1/agent and maps its events to transcript entries", async () => {
    server = await startSparkServe([{ text: "The answer is 42." }], {
      configToml: '[serve]\napi_keys = ["editor-key"]\n',
    });
    // A refused key is named as one, not as "no server".
    await expect(
      connectAgent({ baseUrl: server.url, apiKey: "wrong" }, WebSocket),
    ).rejects.toMatchObject({ code: "unauthorized", status: 401 });
    const client = await connectAgent({ baseUrl: server.url, apiKey: "editor-key" }, WebSocket);
    const entries: string[] = [];
    let transcript = emptyAskTranscript;
    const finished = new Promise<void>((resolve) =>
      client.onSessionEvent(({ event }) => {
        const folded = foldAskEvent(transcript, event);
        transcript = folded.transcript;
        for (const entry of folded.entries)
          if (entry.kind === "assistant-delta") entries.push(entry.text);
        if (event.type === "turn-finished") resolve();
      }),
    );
    const { session } = await client.request("session/start", { cwd: server.workspace.root });
    await client.request("turn/start", {
      sessionId: session.sessionId,
      text: "What is the answer?",
    });
    await finished;
    expect(entries.join("")).toBe("The answer is 42.");
    client.close();
  });

  it("gives up connecting to a server that accepts and never answers, saying so", async () => {
    const sockets: net.Socket[] = [];
    const hanging = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
    const { port } = hanging.address() as net.AddressInfo;
    try {
      const connecting = connectAgent({ baseUrl: `http://127.0.0.1:${port}` }, WebSocket, {
        timeoutMs: 300,
      });
      await expect(connecting).rejects.toMatchObject({ code: "timeout" });
      await expect(connecting).rejects.toThrow(/did not answer within/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => hanging.close(resolve));
    }
  });
});
