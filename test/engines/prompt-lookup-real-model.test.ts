// Prompt lookup on a model that really copies its input (spark-code-tiny, see the shared models'
// README): most of a rename edit is drafted and accepted, and the text equals plain decoding.
// Optional: runs only where the model file exists (SPARK_CODE_TINY_MODEL or ../shared/models).
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import type { EngineRequest } from "../../src/engines/engine.ts";

const candidates = [
  process.env.SPARK_CODE_TINY_MODEL,
  fileURLToPath(new URL("../../../shared/models/spark-code-tiny.gguf", import.meta.url)),
  fileURLToPath(new URL("../../../../shared/models/spark-code-tiny.gguf", import.meta.url)),
];
const modelPath = candidates.find((path) => path !== undefined && existsSync(path));
if (modelPath === undefined) {
  console.info(
    "prompt-lookup-real-model: skipped, spark-code-tiny.gguf not found (set SPARK_CODE_TINY_MODEL).",
  );
}

describe.skipIf(modelPath === undefined)("prompt lookup on spark-code-tiny", () => {
  let engine: LlamaCppEngine;
  beforeAll(async () => {
    engine = await createLlamaCppEngine({
      modelPath: modelPath ?? "",
      threads: 1,
      sequences: 1,
      contextSize: 4096,
    });
  });
  afterAll(async () => {
    await engine?.dispose();
  });

  it("drafts most of a rename edit, with few rejected tokens and the plain decoding's text", async () => {
    const file = await readFile(
      new URL("../../bench/fixtures/edit-tasks/concurrency-limiter.ts.txt", import.meta.url),
      "utf8",
    );
    const request: EngineRequest = {
      messages: [
        {
          role: "system",
          content:
            "You are a precise code editor. Reply with the complete updated file only, no commentary, no code fences.",
        },
        {
          role: "user",
          content: `Rename \`maxPerKey\` to \`limitPerKey\` everywhere in this file.\n\n${file}`,
        },
      ],
      sampling: { temperature: 0, maxOutputTokens: 400 },
    };
    const plain = await collectStream(engine.stream(request));
    const predicted = await collectStream(engine.stream({ ...request, prediction: file }));
    expect(predicted.text).toBe(plain.text);
    const output = predicted.usage?.outputTokens ?? 0;
    const accepted = predicted.usage?.acceptedPredictionTokens ?? 0;
    const rejected = predicted.usage?.rejectedPredictionTokens ?? 0;
    expect(output).toBe(400);
    expect(accepted / output).toBeGreaterThan(0.7);
    expect(rejected).toBeLessThan(accepted / 10);
  });
});
