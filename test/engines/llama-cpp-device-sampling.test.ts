// The native loop's sampling on llama.cpp's backend (deviceSampling "on"; "auto" keeps the CPU
// backend on the host) against the host's ("off"), on the CPU backend: the same greedy tokens (ties included), the sampler each stream
// reports, and a device job beside a host job on one context. Vulkan (lavapipe) is in
// llama-cpp-lavapipe.test.ts.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { EngineRequest, SamplingOptions } from "../../src/engines/engine.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
  type LlamaCppEngineOptions,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { ensureTestModel } from "../support/test-model.ts";

const notBuilt = existsSync(defaultAddonPath) ? undefined : "the native loop is not built";
if (notBuilt !== undefined) console.warn(`Skipping the device sampling tests: ${notBuilt}.`);

const engineOptions = (
  modelPath: string,
  extra: Partial<LlamaCppEngineOptions>,
): LlamaCppEngineOptions => ({
  modelPath,
  threads: 1,
  sequences: 2,
  contextSize: 1024,
  decodeLoop: "native",
  ...extra,
});

const request = (content: string, sampling: SamplingOptions): EngineRequest => ({
  messages: [{ role: "user", content }],
  sampling,
});

/** Opens a device-sampling engine and a host-sampling one on `modelPath`. */
async function enginePair(modelPath: string): Promise<[LlamaCppEngine, LlamaCppEngine]> {
  const [device, host] = await Promise.all([
    createLlamaCppEngine(engineOptions(modelPath, { deviceSampling: "on" })),
    createLlamaCppEngine(engineOptions(modelPath, { deviceSampling: "off" })),
  ]);
  expect([device.decodeLoop, host.decodeLoop]).toEqual(["native", "native"]);
  return [device, host];
}

describe.skipIf(notBuilt !== undefined)("native loop: sampling on the device", () => {
  let device: LlamaCppEngine;
  let host: LlamaCppEngine;
  beforeAll(async () => {
    [device, host] = await enginePair(await ensureTestModel());
  }, 60_000);
  afterAll(async () => {
    await Promise.all([device?.dispose(), host?.dispose()]);
  });

  it("greedy tokens are the host's for several prompts, and each stream says where it sampled", async () => {
    for (const prompt of ["Once upon a time", "Write a haiku about compilers.", '{"a": [1, 2']) {
      const sampling = { temperature: 0, maxOutputTokens: 40 };
      const onDevice = await collectStream(device.stream(request(prompt, sampling)));
      const onHost = await collectStream(host.stream(request(prompt, sampling)));
      expect(onDevice.timings?.sampling).toBe("device");
      expect(onHost.timings?.sampling).toBe("host");
      expect(onDevice.usage?.outputTokens).toBe(40);
      expect(onDevice.text).toBe(onHost.text);
    }
  });

  it("seeded sampling with a temperature runs on the device and repeats for a seed", async () => {
    const sampling = { temperature: 0.7, seed: 7, maxOutputTokens: 32 };
    const first = await collectStream(device.stream(request("Tell me a story.", sampling)));
    const again = await collectStream(device.stream(request("Tell me a story.", sampling)));
    const otherSeed = await collectStream(
      device.stream(request("Tell me a story.", { ...sampling, seed: 8 })),
    );
    expect(first.timings?.sampling).toBe("device");
    // The sequence's chain is reused and reset to its seed: the second run draws the same.
    expect(again.text).toBe(first.text);
    expect(otherSeed.text).not.toBe(first.text);
  });

  it("structured output (a grammar) samples on the host on a device-sampling engine", async () => {
    const structured: EngineRequest = {
      ...request("Is it sunny?", { temperature: 0, maxOutputTokens: 40 }),
      outputFormat: {
        type: "json_schema",
        name: "answer",
        strict: true,
        schema: {
          type: "object",
          properties: { sunny: { type: "boolean" } },
          required: ["sunny"],
          additionalProperties: false,
        },
      },
    };
    const onDevice = await collectStream(device.stream(structured));
    const onHost = await collectStream(host.stream(structured));
    expect(onDevice.timings?.sampling).toBe("host");
    expect(onDevice.text).toBe(onHost.text);
    expect(JSON.parse(onDevice.text)).toEqual({ sunny: expect.any(Boolean) as unknown });
  });
});

describe.skipIf(notBuilt !== undefined)(
  "native loop: sampling on the device, scripted models",
  () => {
    it("breaks a tie for the highest logit as the host does: the first (lowest) token", async () => {
      // After "OK" every logit of this scripted model is exactly 0: the greedy pick is a tie across
      // the whole vocabulary, where ggml_argmax (llama.cpp's backend greedy) takes the last token
      // on the CPU backend and the host the first.
      const [onDevice, onHost] = await enginePair(
        await ensureTestModel({ successors: { "\n": "O", O: "K" } }),
      );
      try {
        const sampling = { temperature: 0, maxOutputTokens: 16 };
        const fromDevice = await collectStream(onDevice.stream(request("Say OK.", sampling)));
        const fromHost = await collectStream(onHost.stream(request("Say OK.", sampling)));
        expect(fromDevice.timings?.sampling).toBe("device");
        expect(fromDevice.usage?.outputTokens).toBe(16);
        expect(fromDevice.text).toBe(fromHost.text);
      } finally {
        await Promise.all([onDevice.dispose(), onHost.dispose()]);
      }
    });

    it("a device job and a host job (prompt lookup) at once on one context keep their own tokens", async () => {
      // Two disjoint cycles: each prompt's last byte picks its text and greedy has no near-ties,
      // so sharing a batch cannot move a token (see llama-cpp-native-loop.test.ts).
      const modelPath = await ensureTestModel({
        successors: { a: "b", b: "c", c: "d", d: "a", "1": "2", "2": "3", "3": "4", "4": "1" },
      });
      const engine = await createLlamaCppEngine(engineOptions(modelPath, { deviceSampling: "on" }));
      try {
        const sampling = { temperature: 0, maxOutputTokens: 48 };
        const completion = (prefix: string, extra: Partial<EngineRequest> = {}): EngineRequest => ({
          messages: [],
          sampling,
          completion: { prefix },
          ...extra,
        });
        for (let round = 0; round < 2; round += 1) {
          const [letters, digits] = await Promise.all([
            collectStream(
              engine.stream(completion("Letters: xa", { prediction: "bcda".repeat(8) })),
            ),
            collectStream(engine.stream(completion("Digits: 1"))),
          ]);
          expect(letters.timings?.sampling).toBe("host");
          expect(letters.text).toBe("bcda".repeat(12));
          expect(digits.timings?.sampling).toBe("device");
          expect(digits.text).toBe("2341".repeat(12));
        }
        // And the other way round on the same sequences: the chain set and cleared as jobs change.
        const [digitsHost, lettersDevice] = await Promise.all([
          collectStream(engine.stream(completion("Digits: 1", { prediction: "2341".repeat(8) }))),
          collectStream(engine.stream(completion("Letters: xa"))),
        ]);
        expect([digitsHost.timings?.sampling, lettersDevice.timings?.sampling]).toEqual([
          "host",
          "device",
        ]);
        expect(digitsHost.text).toBe("2341".repeat(12));
        expect(lettersDevice.text).toBe("bcda".repeat(12));
      } finally {
        await engine.dispose();
      }
    });
  },
);
