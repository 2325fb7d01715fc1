// The native context's settings remembered across opens (remembered-open-plan.ts): a second open of
// the same model on the host CPU creates its context from the first's choice while node-llama-cpp
// loads the vocabulary, and answers exactly as the first did; a plan the free memory no longer
// holds, one the model file no longer matches, or an unreadable record is chosen again, and the
// record is rewritten. Real engines on the tiny test model, one after another.
import { existsSync, mkdtempSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { ChatMessage } from "../../src/engines/engine.ts";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { REMEMBERED } from "../../src/engines/llama-cpp/open-engine-parts.ts";
import { OPEN_PLAN_FILE, type OpenPlan } from "../../src/engines/llama-cpp/remembered-open-plan.ts";
import { ensureTestModel } from "../support/test-model.ts";

const question: ChatMessage[] = [
  { role: "system", content: "You are a careful reviewer of TypeScript." },
  { role: "user", content: "Name one rule for exports." },
];

interface Opened {
  reason: string;
  contextSize: number;
  answer: string;
}

/** Opens an engine as a fresh process would (context size chosen automatically), asks, disposes. */
async function openAndAsk(modelPath: string, directory: string): Promise<Opened> {
  const engine = await createLlamaCppEngine({
    modelPath,
    threads: 1,
    sequences: 2,
    gpu: false,
    prefixCache: { directory, maxBytes: 1024 ** 3 },
  });
  try {
    const result = await collectStream(
      engine.stream({ messages: question, sampling: { temperature: 0, maxOutputTokens: 12 } }),
    );
    expect(result.error?.message).toBeUndefined();
    return {
      reason: engine.contextSizeReason,
      contextSize: engine.contextSize,
      answer: result.text,
    };
  } finally {
    await engine.dispose();
  }
}

type Record = { version: number; plans: { key: string; plan: OpenPlan }[] };

async function readRecord(directory: string): Promise<Record> {
  return JSON.parse(await readFile(join(directory, OPEN_PLAN_FILE), "utf8")) as Record;
}

/** Changes the one remembered plan in place, under its key. */
async function editPlan(directory: string, edit: (plan: OpenPlan) => OpenPlan): Promise<void> {
  const record = await readRecord(directory);
  const [only] = record.plans;
  if (only === undefined) throw new Error("no plan remembered");
  record.plans = [{ key: only.key, plan: edit(only.plan) }];
  await writeFile(join(directory, OPEN_PLAN_FILE), JSON.stringify(record));
}

/** The record is written off the open's path: wait until it holds a plan as `holds` says. */
async function recordWhere(
  directory: string,
  holds: (plan: OpenPlan) => boolean,
): Promise<OpenPlan> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const plan = await readRecord(directory)
      .then((record) => record.plans[0]?.plan)
      .catch(() => undefined);
    if (plan !== undefined && holds(plan)) return plan;
    if (Date.now() > deadline)
      throw new Error(`no such plan in ${directory}: ${JSON.stringify(plan)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!existsSync(defaultAddonPath))("the native context's plan remembered", () => {
  let modelPath: string;
  let first: Opened;
  let directory: string;

  beforeAll(async () => {
    modelPath = await ensureTestModel();
  });

  /** A first open in a new cache folder: it chooses, and leaves its plan. */
  async function firstOpen(): Promise<OpenPlan> {
    directory = mkdtempSync(join(tmpdir(), "spark-open-plan-"));
    const made = directory;
    onTestFinished(() => rm(made, { recursive: true, force: true }));
    first = await openAndAsk(modelPath, directory);
    expect(first.reason).not.toContain(REMEMBERED);
    return recordWhere(directory, () => true);
  }

  it("lets a second open create its context from the first's choice, answering the same", async () => {
    const plan = await firstOpen();
    expect(plan.contextSize).toBe(first.contextSize);
    expect(plan.chosenFromFreeMemory?.bytes).toBeGreaterThan(0);
    const second = await openAndAsk(modelPath, directory);
    expect(second.reason).toBe(`${first.reason} ${REMEMBERED}`);
    expect(second.contextSize).toBe(first.contextSize);
    expect(second.answer).toBe(first.answer);
  });

  it("chooses again where the free memory no longer holds the remembered context", async () => {
    await firstOpen();
    await editPlan(directory, (plan) => ({ ...plan, chosenFromFreeMemory: { bytes: 2 ** 60 } }));
    const second = await openAndAsk(modelPath, directory);
    expect(second.reason).not.toContain(REMEMBERED);
    expect(second.answer).toBe(first.answer);
    await recordWhere(directory, (plan) => (plan.chosenFromFreeMemory?.bytes ?? 0) < 2 ** 60);
  });

  it("chooses again where the model no longer says what the plan assumed of it", async () => {
    const plan = await firstOpen();
    await editPlan(directory, (edited) => ({ ...edited, trainContextSize: 7, contextSize: 256 }));
    const second = await openAndAsk(modelPath, directory);
    expect(second.reason).not.toContain(REMEMBERED);
    expect(second.contextSize).toBe(first.contextSize);
    expect(second.answer).toBe(first.answer);
    await recordWhere(
      directory,
      (remembered) => remembered.trainContextSize === plan.trainContextSize,
    );
  });

  it("opens as if nothing were remembered when the record does not parse, and rewrites it", async () => {
    await firstOpen();
    await writeFile(join(directory, OPEN_PLAN_FILE), '{"version": 1, "plans": [');
    const second = await openAndAsk(modelPath, directory);
    expect(second.reason).not.toContain(REMEMBERED);
    expect(second.answer).toBe(first.answer);
    await recordWhere(directory, (plan) => plan.contextSize === first.contextSize);
  });
});
