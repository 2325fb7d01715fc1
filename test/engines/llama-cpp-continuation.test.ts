// The embedded engine continues a partial answer (continueFinalMessage), as a gateway replica does
// for a response whose replica died: on greedy decoding the answer so far plus the continuation is
// the whole answer, cut anywhere the dead replica could have been cut, on both decode loops; the
// engine generates only the rest. Where the answer so far tokenizes differently from how it was
// sampled (a cut inside a merge), the continuation can differ: shown here as the documented limit.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { ChatMessage, EngineRequest } from "../../src/engines/engine.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import type { DecodeLoop } from "../../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import { ensureTestModel } from "../support/test-model.ts";

const OUTPUT_TOKENS = 48;
const conversation: ChatMessage[] = [
  { role: "system", content: "You are a storyteller." },
  { role: "user", content: "Tell me a story about a lighthouse." },
];
const loops: DecodeLoop[] = existsSync(defaultAddonPath)
  ? ["native", "node-llama-cpp"]
  : ["node-llama-cpp"];

/** The answer's deltas, one per token on the noise model (its greedy text is single bytes). */
async function deltasOf(engine: LlamaCppEngine, request: EngineRequest): Promise<string[]> {
  const deltas: string[] = [];
  for await (const event of engine.stream(request)) {
    if (event.type === "text-delta") deltas.push(event.text);
  }
  return deltas;
}

function continuing(partial: string, maxOutputTokens: number): EngineRequest {
  return {
    messages: [...conversation, { role: "assistant", content: partial }],
    continueFinalMessage: true,
    sampling: { temperature: 0, maxOutputTokens },
  };
}

describe.each(loops)("continuing a partial answer on the %s loop", (decodeLoop) => {
  let engine: LlamaCppEngine;
  beforeAll(async () => {
    engine = await createLlamaCppEngine({
      modelPath: await ensureTestModel(),
      threads: 1,
      sequences: 2,
      contextSize: 2048,
      decodeLoop,
    });
    expect(engine.decodeLoop).toBe(decodeLoop);
  });
  afterAll(async () => {
    await engine?.dispose();
  });

  it("greedy: the answer so far plus the continuation is the whole answer, cut at several points", async () => {
    const whole = { messages: conversation, sampling: { temperature: 0, maxOutputTokens: 48 } };
    const deltas = await deltasOf(engine, whole);
    const full = deltas.join("");
    const fullRun = await collectStream(engine.stream(whole));
    expect(fullRun.text).toBe(full);
    expect(fullRun.usage?.outputTokens).toBe(OUTPUT_TOKENS);
    expect(deltas).toHaveLength(OUTPUT_TOKENS);
    const letter = /[A-Za-z]/;
    // Mid-word: a cut with letters on both sides of it.
    const midWord = deltas.findIndex(
      (delta, index) => index > 0 && letter.test(delta) && letter.test(deltas[index - 1] ?? ""),
    );
    expect(midWord).toBeGreaterThan(0);
    for (const cut of [1, midWord, 17, OUTPUT_TOKENS - 1]) {
      const partial = deltas.slice(0, cut).join("");
      const rest = await collectStream(engine.stream(continuing(partial, OUTPUT_TOKENS - cut)));
      expect(rest.error).toBeUndefined();
      expect(partial + rest.text, `cut after ${cut} tokens`).toBe(full);
      // Only the rest was generated; the answer so far was prompt.
      expect(rest.usage?.outputTokens).toBe(OUTPUT_TOKENS - cut);
      expect(rest.usage?.inputTokens).toBe((fullRun.usage?.inputTokens ?? 0) + cut);
    }
  });

  it("an empty answer so far is a fresh turn", async () => {
    const fresh = await collectStream(
      engine.stream({ messages: conversation, sampling: { temperature: 0, maxOutputTokens: 8 } }),
    );
    const continued = await collectStream(engine.stream(continuing("", 8)));
    expect(continued.text).toBe(fresh.text);
  });

  it("refuses what it cannot continue, typed, so the gateway re-runs the request", async () => {
    const tool = { name: "look", description: "Looks.", parameters: { type: "object" } };
    const refusals: EngineRequest[] = [
      { ...continuing("Once", 8), tools: [tool] },
      { ...continuing("{", 8), outputFormat: { type: "json_object" } },
      {
        ...continuing("", 8),
        messages: [
          ...conversation,
          {
            role: "assistant",
            content: "",
            toolCalls: [{ id: "c", name: "look", arguments: "{}" }],
          },
        ],
      },
      { ...continuing("", 8), messages: conversation },
    ];
    for (const request of refusals) {
      const result = await collectStream(engine.stream(request));
      expect(result.error?.code).toBe("continuation_unsupported");
      expect(result.text).toBe("");
      expect((await engine.checkRequest(request))?.code).toBe("continuation_unsupported");
    }
  });
});

describe.each(loops)(
  "the seam on the %s loop: the answer so far is tokenized again",
  (decodeLoop) => {
    // A scripted model: after the chat template's "\n" it writes " then then …" one byte a token,
    // though the vocabulary merges " t" (and " the"); each token's successor depends on it alone.
    let engine: LlamaCppEngine;
    beforeAll(async () => {
      const modelPath = await ensureTestModel({
        successors: { "\n": " ", " ": "t", t: "h", h: "e", e: "n", n: " " },
      });
      engine = await createLlamaCppEngine({ modelPath, threads: 1, sequences: 1, decodeLoop });
    });
    afterAll(async () => {
      await engine?.dispose();
    });

    it("continues exactly at a cut whose tokens tokenize back the same, and not at one inside a merge", async () => {
      const full = await collectStream(
        engine.stream({
          messages: conversation,
          sampling: { temperature: 0, maxOutputTokens: 12 },
        }),
      );
      expect(full.text).toBe(" then then t");
      // " th" tokenizes back as " t" + "h": the last token is the one sampled, so greedy goes on.
      const midWord = await collectStream(engine.stream(continuing(" th", 9)));
      expect(" th" + midWord.text).toBe(full.text);
      // " the" tokenizes back as one merged token the dead replica never sampled (it wrote four):
      // the model goes on from another token, so the text can differ after such a cut
      // (docs/scale-out.md says so).
      const insideMerge = await collectStream(engine.stream(continuing(" the", 8)));
      expect(insideMerge.error).toBeUndefined();
      expect(insideMerge.usage?.inputTokens).toBe((midWord.usage?.inputTokens ?? 0) - 1);
      expect(" the" + insideMerge.text).not.toBe(full.text);
    });
  },
);
