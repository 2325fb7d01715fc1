// Interop tests with the official `openai` SDK as the client, against a real gateway. The engine
// comes from a factory, so each engine's test file runs the same suite (synthetic here; the
// embedded llama.cpp engine on the test model once it exists). Assertions never read the text's
// meaning: the test model's output is noise.
import OpenAI from "openai";
import type { Response, ResponseStreamEvent } from "openai/resources/responses/responses";
import { ResponsesWS } from "openai/resources/responses/ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Engine } from "../../../src/engines/engine.ts";
import type { ServeConfig } from "../../../src/gateway/index.ts";
import { startGatewayHarness, type GatewayHarness } from "./gateway-harness.ts";

export interface InteropSuiteOptions {
  name: string;
  createEngine: () => Promise<Engine>;
  /** Output cap per turn: small keeps a real model's runs short. */
  maxOutputTokens?: number;
  config?: Partial<ServeConfig>;
}

const API_KEY = "sk-spark-interop";

export function defineGatewayInteropSuite(options: InteropSuiteOptions): void {
  describe(`gateway interop with the openai SDK: ${options.name}`, () => {
    let harness: GatewayHarness;
    let client: OpenAI;
    const maxOutputTokens = options.maxOutputTokens ?? 12;

    beforeAll(async () => {
      const engine = await options.createEngine();
      harness = await startGatewayHarness(engine, { apiKeys: [API_KEY], ...options.config });
      client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
    });
    afterAll(async () => {
      await harness?.close();
      await harness?.engine.dispose();
    });

    it("responses.create without streaming returns an OpenAI-shaped response", async () => {
      const response = await client.responses.create({
        model: harness.model,
        input: "Say hello.",
        max_output_tokens: maxOutputTokens,
      });
      expect(response.object).toBe("response");
      expect(response.id).toMatch(/^resp_/);
      expect(["completed", "incomplete"]).toContain(response.status);
      expect(typeof response.output_text).toBe("string");
      expect(response.usage?.input_tokens).toBeGreaterThan(0);
      expect(response.usage?.output_tokens).toBeGreaterThan(0);
      expect(response.usage?.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(0);
      const timings = (response as Response & { spark_timings?: Record<string, number | null> })
        .spark_timings;
      expect(timings?.gateway_overhead_ms).toBeGreaterThanOrEqual(0);
      expect(timings?.prefill_tokens_computed).toBeGreaterThan(0);
    });

    it("responses.create with streaming sends the Responses event sequence", async () => {
      const stream = await client.responses.create({
        model: harness.model,
        input: [{ role: "user", content: "Write a line." }],
        max_output_tokens: maxOutputTokens,
        stream: true,
      });
      const events: ResponseStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      expect(events[0]?.type).toBe("response.created");
      const final = events.at(-1);
      expect(["response.completed", "response.incomplete"]).toContain(final?.type);
      const sequence = events.map((event) => event.sequence_number);
      expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
      expect(new Set(sequence).size).toBe(sequence.length);
      const text = events
        .map((event) => (event.type === "response.output_text.delta" ? event.delta : ""))
        .join("");
      const response = final !== undefined && "response" in final ? final.response : undefined;
      const outputText = (response?.output ?? [])
        .map((item) =>
          item.type === "message"
            ? item.content.map((part) => ("text" in part ? part.text : "")).join("")
            : "",
        )
        .join("");
      expect(text).toBe(outputText);
      expect(response?.usage?.output_tokens).toBeGreaterThan(0);
    });

    it("chat.completions.create without streaming returns a chat.completion", async () => {
      const completion = await client.chat.completions.create({
        model: harness.model,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Say hi." },
        ],
        max_tokens: maxOutputTokens,
      });
      expect(completion.object).toBe("chat.completion");
      expect(typeof completion.choices[0]?.message.content).toBe("string");
      expect(["stop", "length"]).toContain(completion.choices[0]?.finish_reason);
      expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
      expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
    });

    it("chat.completions.create with streaming sends chunks and usage", async () => {
      const stream = await client.chat.completions.create({
        model: harness.model,
        messages: [{ role: "user", content: "Count." }],
        max_tokens: maxOutputTokens,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      let finishReason: string | null = null;
      let completionTokens = 0;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
        completionTokens = chunk.usage?.completion_tokens ?? completionTokens;
      }
      expect(typeof text).toBe("string");
      expect(["stop", "length"]).toContain(finishReason);
      expect(completionTokens).toBeGreaterThan(0);
    });

    it("ResponsesWS holds a 3-turn conversation with previous_response_id; turn 3 reports cached tokens", async () => {
      const socket = new ResponsesWS(client);
      const finals: Response[] = [];
      const errors: unknown[] = [];
      let wake: () => void = () => {};
      const onFinal = (event: { response: Response }) => {
        finals.push(event.response);
        wake();
      };
      socket.on("response.completed", onFinal);
      socket.on("response.incomplete", onFinal);
      socket.on("response.failed", onFinal);
      socket.on("error", (error) => {
        errors.push(error);
        wake();
      });
      const nextFinal = async (count: number): Promise<Response> => {
        while (finals.length < count && errors.length === 0)
          await new Promise<void>((resolve) => (wake = resolve));
        expect(errors).toEqual([]);
        const response = finals[count - 1];
        if (response === undefined) throw new Error("no response");
        return response;
      };
      try {
        const turns = ["Name a colour.", "Now a fruit.", "And an animal."];
        let previous: string | undefined;
        const responses: Response[] = [];
        for (const [index, content] of turns.entries()) {
          socket.send({
            type: "response.create",
            model: harness.model,
            input: [{ role: "user", content }],
            max_output_tokens: maxOutputTokens,
            ...(previous === undefined ? {} : { previous_response_id: previous }),
          });
          const response = await nextFinal(index + 1);
          expect(["completed", "incomplete"]).toContain(response.status);
          expect(response.previous_response_id ?? undefined).toBe(previous);
          responses.push(response);
          previous = response.id;
        }
        const third = responses[2];
        expect(third?.usage?.input_tokens_details.cached_tokens).toBeGreaterThan(0);
        // Later turns carry the whole conversation, so their input grows.
        expect(third?.usage?.input_tokens).toBeGreaterThan(responses[0]?.usage?.input_tokens ?? 0);
      } finally {
        socket.close();
      }
    });

    it("previous_response_id works across HTTP and an unknown id is previous_response_not_found", async () => {
      const first = await client.responses.create({
        model: harness.model,
        input: "One.",
        max_output_tokens: maxOutputTokens,
      });
      const second = await client.responses.create({
        model: harness.model,
        input: "Two.",
        previous_response_id: first.id,
        max_output_tokens: maxOutputTokens,
      });
      expect(second.previous_response_id).toBe(first.id);
      expect(second.usage?.input_tokens).toBeGreaterThan(first.usage?.input_tokens ?? 0);
      const missing = client.responses.create({
        model: harness.model,
        input: "Three.",
        previous_response_id: "resp_missing",
      });
      await expect(missing).rejects.toMatchObject({
        status: 404,
        code: "previous_response_not_found",
      });
    });
  });
}
