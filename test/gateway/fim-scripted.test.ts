// The FIM endpoints' own rules through a real gateway on the scripted engine, whose output is
// known: truncation applied while streaming, the time budget, a newer request for the same
// document cancelling the one in flight, and other engines refusing with a typed error.
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { createScriptEngine } from "../../src/engines/script/script-engine.ts";
import type { ScriptTurnInput } from "../../src/engines/script/script-turn.ts";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import type { Engine } from "../../src/engines/engine.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";

let harness: GatewayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  await harness?.engine.dispose();
  harness = undefined;
});

async function start(engine: Engine): Promise<{ client: OpenAI; harness: GatewayHarness }> {
  harness = await startGatewayHarness(engine);
  return {
    harness,
    client: new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "unused", maxRetries: 0 }),
  };
}

const script = (...turns: ScriptTurnInput[]): Promise<Engine> => createScriptEngine({ turns });

/** Reads an SSE body into its `data:` payloads, parsed (the [DONE] marker kept as a string). */
async function readEvents(response: Response): Promise<unknown[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.startsWith("data: "))
    .map((block) => block.slice("data: ".length))
    .map((data) => (data === "[DONE]" ? data : (JSON.parse(data) as unknown)));
}

describe("FIM completions on the scripted engine", () => {
  it("stops before the suffix's first line, streamed and not", async () => {
    const text = "const sum = a + b;\n  return sum;\n}\n";
    const { client, harness: gateway } = await start(await script({ text }, { text }));
    const request = {
      model: gateway.model,
      prompt: "function add(a, b) {\n  ",
      suffix: "\n  return sum;\n}\n",
      max_tokens: 64,
    };
    const whole = await client.completions.create(request);
    expect(whole.choices[0]?.text).toBe("const sum = a + b;\n");
    expect(whole.choices[0]?.finish_reason).toBe("stop");

    const stream = await client.completions.create({ ...request, stream: true });
    let streamed = "";
    const finishes: (string | null)[] = [];
    for await (const chunk of stream) {
      expect(chunk.object).toBe("text_completion");
      streamed += chunk.choices[0]?.text ?? "";
      finishes.push(chunk.choices[0]?.finish_reason ?? null);
    }
    expect(streamed).toBe("const sum = a + b;\n");
    expect(finishes.at(-1)).toBe("stop");
  });

  it("stops at a repeated line and at a closing bracket the code around it owns", async () => {
    const { client, harness: gateway } = await start(
      await script({ text: "count += 1;\ncount += 1;\nnext();\n" }, { text: "return 1;\n}\n" }),
    );
    const repeated = await client.completions.create({
      model: gateway.model,
      prompt: "let count = 0;\n",
      suffix: "",
      max_tokens: 64,
    });
    expect(repeated.choices[0]?.text).toBe("count += 1;\n");
    const bracket = await client.completions.create({
      model: gateway.model,
      prompt: "function f() {\n  ",
      suffix: "\n}\n",
      max_tokens: 64,
    });
    expect(bracket.choices[0]?.text).toBe("return 1;\n");
  });

  it("ends at a line end once t_max_predict_ms is spent (/infill)", async () => {
    const { harness: gateway } = await start(
      await script({ text: "first line\nsecond line\nthird line\n", delayMs: 20 }),
    );
    const response = await fetch(`${gateway.url}/infill`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        input_prefix: "// notes\n",
        input_suffix: "",
        t_max_predict_ms: 1,
        n_predict: 64,
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { content: string; stop: boolean; stop_type: string };
    expect(body).toMatchObject({ content: "first line\n", stop: true, stop_type: "limit" });
  });

  it("streams /infill as content pieces ending with stop: true and timings", async () => {
    const { harness: gateway } = await start(await script({ text: "alpha beta" }));
    const response = await fetch(`${gateway.url}/infill`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input_prefix: "x = ", input_suffix: "\n", stream: true }),
    });
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const events = (await readEvents(response)) as {
      content: string;
      stop: boolean;
      timings?: { predicted_n: number };
    }[];
    expect(events.map((event) => event.content).join("")).toBe("alpha beta");
    expect(events.slice(0, -1).every((event) => !event.stop)).toBe(true);
    expect(events.at(-1)).toMatchObject({ stop: true, stop_type: "eos" });
    expect(events.at(-1)?.timings?.predicted_n).toBeGreaterThan(0);
  });

  it("a new request for the same document cancels the one in flight", async () => {
    const slow = { text: Array.from({ length: 200 }, (_, index) => `w${index}`).join(" ") };
    const { client, harness: gateway } = await start(
      await script({ ...slow, delayMs: 50 }, { text: "done" }),
    );
    const first = await client.completions.create({
      model: gateway.model,
      prompt: "a",
      suffix: "",
      max_tokens: 500,
      stream: true,
      prompt_cache_key: "src/app.ts",
    } as OpenAI.CompletionCreateParamsStreaming);
    const iterator = first[Symbol.asyncIterator]();
    const firstChunk = await iterator.next();
    expect(firstChunk.done).toBe(false);
    const second = await client.completions.create({
      model: gateway.model,
      prompt: "ab",
      suffix: "",
      max_tokens: 500,
      prompt_cache_key: "src/app.ts",
    } as OpenAI.CompletionCreateParamsNonStreaming);
    expect(second.choices[0]?.text).toBe("done");
    const finishes: (string | null)[] = [];
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next())
      finishes.push(next.value.choices[0]?.finish_reason ?? null);
    expect(finishes.at(-1)).toBe("cancelled");
  });

  it("engines without a raw-prompt path refuse with fim_unsupported", async () => {
    const { client, harness: gateway } = await start(createSyntheticEngine());
    const refusal = client.completions.create({
      model: gateway.model,
      prompt: "const x = ",
      suffix: ";\n",
    });
    await expect(refusal).rejects.toMatchObject({ status: 400, code: "fim_unsupported" });
  });
});
