// The pipeline against a real HTTP server on loopback speaking /v1/completions as SSE.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AdaptiveDebounce } from "./adaptive-debounce.ts";
import { InlineCompletionEngine, type CompletionOutcome } from "./inline-completion-engine.ts";
import { SparkClientError } from "./spark-client-error.ts";

interface Received {
  body: Record<string, unknown>;
  authorization: string | undefined;
  closedEarly: boolean;
}

let server: Server;
let baseUrl: string;
let received: Received[];
/**
 * The chunks the next request streams; `hold` keeps the response open after them; `status` other
 * than 200 answers with that status and an error body instead.
 */
let script: { chunks: string[]; hold?: boolean; status?: number };

beforeEach(async () => {
  received = [];
  script = { chunks: [] };
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let raw = "";
    request.on("data", (data: Buffer) => (raw += data.toString()));
    request.on("end", () => {
      const entry: Received = {
        body: JSON.parse(raw) as Record<string, unknown>,
        authorization: request.headers.authorization,
        closedEarly: false,
      };
      received.push(entry);
      response.on("close", () => {
        if (!response.writableFinished) entry.closedEarly = true;
      });
      const { chunks, hold, status } = script;
      if (status !== undefined && status !== 200) {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: "Invalid API key." } }));
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const text of chunks)
        response.write(
          `data: ${JSON.stringify({ object: "text_completion", model: "tiny-fim", choices: [{ index: 0, text }] })}\n\n`,
        );
      if (!hold) response.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function engine(
  outcomes: CompletionOutcome[] = [],
  errors: unknown[] = [],
): InlineCompletionEngine {
  return new InlineCompletionEngine({
    server: () => ({ baseUrl, apiKey: "secret" }),
    model: () => "tiny",
    debounce: new AdaptiveDebounce({ minimumMs: 1, maximumMs: 1 }),
    onOutcome: (outcome) => outcomes.push(outcome),
    onError: (error) => errors.push(error),
  });
}

const context = (text: string) => ({
  text,
  offset: text.length,
  documentId: "file:///work/a.ts",
  languageId: "typescript",
});

describe("InlineCompletionEngine", () => {
  it("streams a completion, sends the FIM request shape, and answers a repeat from its cache", async () => {
    script = { chunks: ["add(", "1, 2)", ";\nnext line"] };
    const outcomes: CompletionOutcome[] = [];
    const completions = engine(outcomes);
    const text = await completions.complete(context("const sum = "), new AbortController().signal);
    expect(text).toBe("add(1, 2);");
    expect(received).toHaveLength(1);
    expect(received[0]?.authorization).toBe("Bearer secret");
    expect(received[0]?.body).toMatchObject({
      model: "tiny",
      prompt: "const sum = ",
      suffix: "",
      stream: true,
      prompt_cache_key: "file:///work/a.ts",
    });
    expect(outcomes[0]?.source).toBe("network");
    expect(outcomes[0]?.latencyMs).toBeGreaterThanOrEqual(0);
    // The status bar names the model that answered.
    expect(outcomes[0]?.model).toBe("tiny-fim");

    const again = await completions.complete(context("const sum = "), new AbortController().signal);
    expect(again).toBe("add(1, 2);");
    expect(received).toHaveLength(1);
    expect(outcomes.at(-1)?.source).toBe("cache");
  });

  it("reuses the earlier completion while the user types what it predicted", async () => {
    script = { chunks: ["add(1, 2);"] };
    const completions = engine();
    await completions.complete(context("const sum = "), new AbortController().signal);
    const rest = await completions.complete(
      context("const sum = add(1"),
      new AbortController().signal,
    );
    expect(rest).toBe(", 2);");
    expect(received).toHaveLength(1);
  });

  it("reuses it through an auto-closed opener, the rest replacing the closer", async () => {
    script = { chunks: ["add(1, 2);"] };
    const completions = engine();
    await completions.complete(context("const sum = "), new AbortController().signal);
    // The user typed "add(" and the editor put ")" after the cursor.
    const text = "const sum = add()";
    const rest = await completions.suggest(
      { ...context(text), offset: text.length - 1 },
      new AbortController().signal,
    );
    expect(rest).toEqual({ text: "1, 2);", replaceLength: 1 });
    expect(received).toHaveLength(1);
  });

  it("starts at the keystroke and the editor's question joins it: one request", async () => {
    script = { chunks: ["add(", "1, 2);"] };
    const outcomes: CompletionOutcome[] = [];
    const completions = engine(outcomes);
    completions.prefetch(context("const sum = "));
    const text = await completions.complete(context("const sum = "), new AbortController().signal);
    expect(text).toBe("add(1, 2);");
    expect(received).toHaveLength(1);
    expect(outcomes.map((outcome) => outcome.source)).toEqual(["network"]);
  });

  it("offers a completion still streaming only whole", async () => {
    script = { chunks: ["add(1", ", 2);"], hold: true };
    const completions = engine();
    const first = completions.complete(context("const sum = "), new AbortController().signal);
    await expect.poll(() => received.length).toBe(1);
    // Typed through while it streams: the answer waits for the rest, not "(1" alone.
    const typed = new AbortController();
    const rest = completions.complete(context("const sum = add"), typed.signal);
    const settledEarly = await Promise.race([rest.then(() => true), pause(100).then(() => false)]);
    expect(settledEarly).toBe(false);
    typed.abort();
    await expect(rest).resolves.toBeUndefined();
    server.closeAllConnections();
    await first;
  });

  it("aborts the request in flight when the next keystroke departs from it", async () => {
    script = { chunks: ["partial"], hold: true };
    const completions = engine();
    const first = new AbortController();
    const pending = completions.complete(context("const sum = "), first.signal);
    await waitFor(() => received.length === 1);
    first.abort();
    await expect(pending).resolves.toBeUndefined();
    script = { chunks: ["1;"] };
    const second = await completions.complete(
      context("const total = "),
      new AbortController().signal,
    );
    expect(second).toBe("1;");
    await waitFor(() => received[0]?.closedEarly === true);
    expect(completions.requestsCancelled).toBe(1);
    expect(completions.requestsSent).toBe(2);
  });

  it("offers nothing mid-line, without a request, but does before closing brackets", async () => {
    script = { chunks: ["1)"] };
    const completions = engine();
    const signal = new AbortController().signal;
    const text = "const sum = add(|x);\n";
    const midLine = {
      text: text.replace("|", ""),
      offset: text.indexOf("|"),
      documentId: "file:///work/a.ts",
      languageId: "typescript",
    };
    await expect(completions.complete(midLine, signal)).resolves.toBeUndefined();
    expect(received).toHaveLength(0);
    const beforeBracket = { ...midLine, text: "const sum = add()\n", offset: 16 };
    await expect(completions.complete(beforeBracket, signal)).resolves.toBe("1)");
    expect(received).toHaveLength(1);
  });

  it("backs off while the server refuses the key: four keystrokes, one 401", async () => {
    script = { chunks: [], status: 401 };
    const errors: unknown[] = [];
    const completions = engine([], errors);
    for (const typed of ["a", "ab", "abc", "abcd"])
      await completions.complete(context(`const ${typed} = `), new AbortController().signal);
    expect(received).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect((errors[0] as SparkClientError).code).toBe("unauthorized");
    // A new key (or new settings) may ask at once, and a success ends the backoff.
    script = { chunks: ["1;"] };
    completions.resetBackoff();
    await expect(
      completions.complete(context("const e = "), new AbortController().signal),
    ).resolves.toBe("1;");
    expect(received).toHaveLength(2);
  });

  it("counts the pause from the keystroke: time the editor already waited is not waited again", async () => {
    script = { chunks: ["2;"] };
    const completions = new InlineCompletionEngine({
      server: () => ({ baseUrl }),
      // A pause far longer than the test may take: only the keystroke's age can cover it.
      debounce: new AdaptiveDebounce({ minimumMs: 60_000, maximumMs: 60_000 }),
      now: () => 100_000,
    });
    await expect(
      completions.complete(
        { ...context("const b = "), changedAt: 100_000 - 60_000 },
        new AbortController().signal,
      ),
    ).resolves.toBe("2;");
  });

  it("reports a typed error when no server answers", async () => {
    const errors: unknown[] = [];
    const completions = new InlineCompletionEngine({
      server: () => ({ baseUrl: "http://127.0.0.1:1" }),
      debounce: new AdaptiveDebounce({ minimumMs: 1, maximumMs: 1 }),
      onError: (error) => errors.push(error),
    });
    await expect(
      completions.complete(context("x = "), new AbortController().signal),
    ).resolves.toBeUndefined();
    expect(errors[0]).toBeInstanceOf(SparkClientError);
    expect((errors[0] as SparkClientError).code).toBe("server_unreachable");
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 500 && !condition(); attempt++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
