// The one contract every Engine adapter passes (Hono's runTest pattern): each adapter's test file
// calls runEngineContract with a factory; a skipped case must name its reason.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Engine, EngineEvent, EngineRequest } from "../../src/engines/engine.ts";
import { collectStream } from "../../src/engines/collect-stream.ts";
import { SparkError } from "../../src/protocol/spark-error.ts";

export type EngineContractCase =
  | "streams text"
  | "honours max tokens"
  | "honours stop"
  | "abort keeps partial text"
  | "concurrent requests do not mix"
  | "bad request is a typed error"
  | "usage and timings are present"
  | "a completion request streams or is refused"
  | "structured output follows the schema or is refused"
  | "a partial answer is continued or refused"
  | "a required tool call streams and parses";

/** The tool the contract's tool-call case offers; an engine that scripts its calls names it. */
export const contractTool = {
  name: "get_weather",
  description: "The weather in a city",
  parameters: {
    type: "object",
    properties: { city: { type: "string", maxLength: 24 } },
    required: ["city"],
  },
} as const;

/** The schema the structured-output case asks for: small and bounded, so a noise model ends it. */
export const contractOutputSchema = {
  type: "object",
  properties: { city: { type: "string", maxLength: 16 }, sunny: { type: "boolean" } },
  required: ["city", "sunny"],
  additionalProperties: false,
} as const;

export interface EngineContractOptions {
  name: string;
  createEngine: () => Promise<Engine>;
  model?: string;
  /** Cases this adapter cannot run, each with the reason. */
  skip?: Partial<Record<EngineContractCase, string>>;
  /**
   * The engine the required-call case runs on, when the main one's model cannot end its turn
   * after a call (a noise model under a format that allows several): one on a model scripted to
   * call (disposed after the case).
   */
  toolCallEngine?: () => Promise<Engine>;
}

export function runEngineContract(options: EngineContractOptions): void {
  describe(`engine contract: ${options.name}`, () => {
    let engine: Engine;
    beforeAll(async () => {
      engine = await options.createEngine();
    });
    afterAll(async () => {
      await engine?.dispose();
    });

    const request = (content: string, maxOutputTokens = 16): EngineRequest => ({
      ...(options.model === undefined ? {} : { model: options.model }),
      messages: [
        { role: "system", content: "You are a terse assistant." },
        { role: "user", content },
      ],
      sampling: { temperature: 0, maxOutputTokens },
    });

    const contractCase = (name: EngineContractCase, body: () => Promise<void>): void => {
      const reason = options.skip?.[name];
      if (reason !== undefined) it.skip(`${name} (skipped: ${reason})`, body);
      else it(name, body);
    };

    contractCase("streams text", async () => {
      const deltas: string[] = [];
      let finishCount = 0;
      for await (const event of engine.stream(request("Say hello."))) {
        if (event.type === "text-delta") deltas.push(event.text);
        if (event.type === "finish") finishCount += 1;
      }
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join("").length).toBeGreaterThan(0);
      expect(finishCount).toBe(1);
    });

    contractCase("honours max tokens", async () => {
      const result = await collectStream(engine.stream(request("Count to one hundred.", 5)));
      expect(result.error).toBeUndefined();
      expect(result.finishReason).toBe("length");
      expect(result.usage?.outputTokens).toBeLessThanOrEqual(5);
      expect(result.usage?.outputTokens).toBeGreaterThan(0);
    });

    contractCase("honours stop", async () => {
      const full = await collectStream(engine.stream(request("Write a sentence.", 24)));
      // A stop string taken from the middle of the deterministic output must cut it there.
      const trimmed = full.text.trim();
      expect(trimmed.length).toBeGreaterThan(4);
      const stopAt = Math.floor(full.text.length / 2);
      const stop = full.text.slice(stopAt, stopAt + 2);
      const firstIndex = full.text.indexOf(stop);
      const stopped = await collectStream(
        engine.stream({
          ...request("Write a sentence.", 24),
          sampling: { temperature: 0, maxOutputTokens: 24, stop: [stop] },
        }),
      );
      expect(stopped.error).toBeUndefined();
      expect(stopped.finishReason).toBe("stop");
      expect(stopped.text).toBe(full.text.slice(0, firstIndex));
    });

    contractCase("abort keeps partial text", async () => {
      const controller = new AbortController();
      const events: EngineEvent[] = [];
      let deltasBeforeAbort = "";
      for await (const event of engine.stream(request("Tell a long story.", 400), {
        signal: controller.signal,
      })) {
        events.push(event);
        if (event.type === "text-delta" && !controller.signal.aborted) {
          deltasBeforeAbort += event.text;
          if (deltasBeforeAbort.length >= 3) controller.abort();
        }
      }
      const finish = events.at(-1);
      expect(finish).toMatchObject({ type: "finish", reason: "cancelled" });
      const text = events.map((event) => (event.type === "text-delta" ? event.text : "")).join("");
      expect(text.startsWith(deltasBeforeAbort)).toBe(true);
      const usage = events.find((event) => event.type === "usage");
      expect(usage).toBeDefined();
      if (usage?.type === "usage") expect(usage.usage.outputTokens).toBeLessThan(400);
    });

    contractCase("concurrent requests do not mix", async () => {
      const prompts = ["Name a colour.", "Name a number, please, any number."];
      const solo: string[] = [];
      for (const prompt of prompts)
        solo.push((await collectStream(engine.stream(request(prompt, 12)))).text);
      const together = await Promise.all(
        prompts.map(
          async (prompt) => (await collectStream(engine.stream(request(prompt, 12)))).text,
        ),
      );
      expect(together).toEqual(solo);
    });

    contractCase("bad request is a typed error", async () => {
      const result = await collectStream(
        engine.stream({
          ...(options.model === undefined ? {} : { model: options.model }),
          messages: [],
        }),
      );
      expect(result.finishReason).toBe("error");
      expect(result.error).toBeInstanceOf(SparkError);
      expect(result.error?.code).toBe("invalid_request");
      expect(result.error?.retryable).toBe(false);
    });

    contractCase("usage and timings are present", async () => {
      const result = await collectStream(engine.stream(request("Say hi.", 6)));
      expect(result.usage?.inputTokens).toBeGreaterThan(0);
      expect(result.usage?.outputTokens).toBeGreaterThan(0);
      expect(result.usage?.cachedInputTokens).toBeGreaterThanOrEqual(0);
      expect(result.timings?.timeToFirstTokenMs).toBeGreaterThanOrEqual(0);
      expect(result.timings?.totalMs).toBeGreaterThanOrEqual(
        result.timings?.timeToFirstTokenMs ?? 0,
      );
      expect(result.timings?.queueMs).toBeGreaterThanOrEqual(0);
      const types = result.events.map((event) => event.type);
      expect(types.indexOf("usage")).toBeLessThan(types.indexOf("finish"));
      expect(types.at(-1)).toBe("finish");
    });

    // Raw completion (FIM): every engine either serves it or refuses it with one typed error.
    contractCase("a completion request streams or is refused", async () => {
      const result = await collectStream(
        engine.stream({
          ...(options.model === undefined ? {} : { model: options.model }),
          messages: [],
          completion: { prefix: "function add(a, b) {\n  return ", suffix: "\n}\n" },
          sampling: { temperature: 0, maxOutputTokens: 4 },
        }),
      );
      expect(result.events.filter((event) => event.type === "finish")).toHaveLength(1);
      if (result.finishReason === "error") {
        expect(result.error).toBeInstanceOf(SparkError);
        expect(result.error?.code).toBe("fim_unsupported");
      } else {
        expect(["stop", "length"]).toContain(result.finishReason);
        expect(result.usage?.outputTokens).toBeGreaterThan(0);
      }
    });

    // Structured output: every engine enforces the format (or has its upstream enforce it) or
    // refuses the request with one typed error; none answers free text as if it had complied.
    contractCase("structured output follows the schema or is refused", async () => {
      const result = await collectStream(
        engine.stream({
          ...request("Describe the weather in Paris as JSON.", 120),
          outputFormat: {
            type: "json_schema",
            name: "weather",
            strict: true,
            schema: structuredClone(contractOutputSchema),
          },
        }),
      );
      expect(result.events.filter((event) => event.type === "finish")).toHaveLength(1);
      if (result.finishReason === "error") {
        expect(result.error).toBeInstanceOf(SparkError);
        expect(result.error?.code).toBe("invalid_request");
        expect(result.error?.message).toMatch(/structured output/i);
        return;
      }
      expect(result.error).toBeUndefined();
      expect(result.finishReason).toBe("stop");
      const parsed = JSON.parse(result.text) as { city?: unknown; sunny?: unknown };
      expect(Object.keys(parsed).sort()).toEqual(["city", "sunny"]);
      expect(typeof parsed.city).toBe("string");
      expect(String(parsed.city).length).toBeLessThanOrEqual(16);
      expect(typeof parsed.sunny).toBe("boolean");
    });

    // A gateway replica continuing a response whose replica died (continueFinalMessage): every
    // engine either goes on from the answer so far (greedy: the same text) or refuses, typed,
    // before any output (the gateway then re-runs the request).
    contractCase("a partial answer is continued or refused", async () => {
      const asked = request("Tell me about the sea.", 24);
      const whole = await collectStream(engine.stream(asked));
      const deltas = whole.events.flatMap((event) =>
        event.type === "text-delta" ? [event.text] : [],
      );
      // Cut between two deltas, where a replica's client could have been cut off.
      const cut = Math.floor(deltas.length / 2);
      const partial = deltas.slice(0, cut).join("");
      const rest = await collectStream(
        engine.stream({
          ...asked,
          messages: [...asked.messages, { role: "assistant", content: partial }],
          sampling: { temperature: 0, maxOutputTokens: Math.max(1, 24 - cut) },
          continueFinalMessage: true,
        }),
      );
      expect(rest.events.filter((event) => event.type === "finish")).toHaveLength(1);
      if (rest.finishReason === "error") {
        expect(rest.error?.code).toBe("continuation_unsupported");
        expect(rest.text).toBe("");
        return;
      }
      expect(rest.text.length).toBeGreaterThan(0);
      const joined = partial + rest.text;
      const common = Math.min(joined.length, whole.text.length);
      expect(joined.slice(0, common)).toBe(whole.text.slice(0, common));
    });

    // Last: engines that script their answers (the script engine) take it as their last line.
    contractCase("a required tool call streams and parses", async () => {
      const caller = options.toolCallEngine === undefined ? engine : await options.toolCallEngine();
      const result = await collectStream(
        caller.stream({
          ...request("What is the weather in Paris?", 200),
          tools: [structuredClone(contractTool)],
          toolChoice: "required",
        }),
      ).finally(async () => {
        if (caller !== engine) await caller.dispose();
      });
      expect(result.error).toBeUndefined();
      expect(result.finishReason).toBe("tool_calls");
      expect(result.toolCalls.length).toBeGreaterThan(0);
      for (const call of result.toolCalls) {
        expect(call.name).toBe(contractTool.name);
        expect(call.id).not.toBe("");
        const parsed: unknown = JSON.parse(call.arguments);
        expect(typeof parsed === "object" && parsed !== null && "city" in parsed).toBe(true);
        // Started before it ended; the deltas it streamed, if any, add up to its arguments.
        const events = result.events.filter(
          (event) => event.type.startsWith("tool-call") && "id" in event && event.id === call.id,
        );
        expect(events[0]?.type).toBe("tool-call-start");
        expect(events.at(-1)?.type).toBe("tool-call-end");
        const deltas = events
          .map((event) => (event.type === "tool-call-delta" ? event.argumentsDelta : ""))
          .join("");
        if (deltas !== "") expect(JSON.parse(deltas)).toEqual(parsed);
      }
    });
  });
}
