// Prompt lookup inside tool calls on the native loop: a scripted model whose call copies a file
// from a tool result (its JSON-escaped text) gives the plain run's call with drafts accepted; the
// noise model gives the same call with drafting on as off, also when a prediction's drafts are
// partly rejected (a wrong token, one the grammar forbids); sampled calls still parse. A native job
// under a grammar verifying drafts right, wrong and forbidden gives the plain job's tokens in fewer
// steps. And on the test model's real tokenizer, the escaped views draft an edit call's copied
// lines where the raw prompt alone does not.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { collectStream, type CollectedStream } from "../../src/engines/collect-stream.ts";
import type { EngineRequest, ToolDefinition } from "../../src/engines/engine.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { loadModel, type LoadedModel } from "../../src/engines/llama-cpp/load-model.ts";
import { getSharedLlamaBackend } from "../../src/engines/llama-cpp/llama-backend.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { NativeContext } from "../../src/engines/llama-cpp/native-loop/native-context.ts";
import type {
  NativeSequence,
  NativeSpeculation,
} from "../../src/engines/llama-cpp/native-loop/native-sequence.ts";
import { findNativeLoop } from "../../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import type { PromptLookup } from "../../src/engines/llama-cpp/prompt-lookup/prompt-lookup.ts";
import { RequestLookups } from "../../src/engines/llama-cpp/prompt-lookup/request-lookup.ts";
import { COPIED_FILE, copyingSuccessors } from "../support/copying-script.ts";
import { ensureTestModel } from "../support/test-model.ts";

const describeNative = existsSync(defaultAddonPath) ? describe : describe.skip;

const FILE = COPIED_FILE;

// Bounded, so the noise model's strings end too.
const writeFile = z.object({ path: z.string().max(120), content: z.string().max(120) });
const tools: ToolDefinition[] = [
  { name: "write_file", description: "Write a file", parameters: z.toJSONSchema(writeFile) },
];

const request = (extra: Partial<EngineRequest> = {}): EngineRequest => ({
  messages: [
    { role: "user", content: "Copy f to g." },
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "call_1", name: "read_file", arguments: '{"path": "f"}' }],
    },
    { role: "tool", toolCallId: "call_1", name: "read_file", content: FILE },
  ],
  tools,
  toolChoice: "required",
  sampling: { temperature: 0, maxOutputTokens: 400 },
  ...extra,
});

async function engineFor(modelPath: string, toolCallLookup: boolean): Promise<LlamaCppEngine> {
  const engine = await createLlamaCppEngine({
    modelPath,
    threads: 1,
    sequences: 1,
    contextSize: 2048,
    toolCallLookup,
    // Prompt lookup inside the <tool_call> jobs, which only the chat-wrapper path has: under the
    // chat format, lookup drafts free text only (no grammar).
    chatPath: "chat-wrapper",
  });
  if (engine.toolDecodeLoop !== "native") {
    await engine.dispose();
    throw new Error(`expected tool turns on the native loop: ${engine.toolLoopFallbackReason}`);
  }
  return engine;
}

function onlyCall(result: CollectedStream): { name: string; arguments: string } {
  expect(result.error).toBeUndefined();
  expect(result.finishReason).toBe("tool_calls");
  expect(result.toolCalls).toHaveLength(1);
  const [call] = result.toolCalls;
  if (call === undefined) throw new Error("no call");
  return { name: call.name, arguments: call.arguments };
}

describeNative("prompt lookup inside tool calls on the native loop", () => {
  const engines: LlamaCppEngine[] = [];
  let scriptedPlain: LlamaCppEngine;
  let scriptedDrafting: LlamaCppEngine;
  let noisePlain: LlamaCppEngine;
  let noiseDrafting: LlamaCppEngine;
  beforeAll(async () => {
    const scripted = await ensureTestModel({ successors: copyingSuccessors() });
    const noise = await ensureTestModel();
    scriptedPlain = await engineFor(scripted, false);
    scriptedDrafting = await engineFor(scripted, true);
    noisePlain = await engineFor(noise, false);
    noiseDrafting = await engineFor(noise, true);
    engines.push(scriptedPlain, scriptedDrafting, noisePlain, noiseDrafting);
  });
  afterAll(async () => {
    for (const engine of engines) await engine.dispose();
  });

  it("a call copying a tool result is drafted from its escaped text: the plain run's call, with drafts accepted", async () => {
    const plain = await collectStream(scriptedPlain.stream(request()));
    const drafted = await collectStream(scriptedDrafting.stream(request()));
    const call = onlyCall(plain);
    // The script really copies the file, line break escaped, into both strings.
    expect(JSON.parse(call.arguments)).toEqual({ path: FILE, content: FILE });
    expect(onlyCall(drafted)).toEqual(call);
    expect(drafted.usage?.outputTokens).toBe(plain.usage?.outputTokens);
    expect(plain.usage?.acceptedPredictionTokens).toBeUndefined();
    // Both strings are drafted once 12 characters of them match, and the draft goes on across
    // the `\n` (the escaped view; the raw prompt has a line break there). How many depends on
    // timing too: after a plain step the job decodes on unless JS's draft is already there
    // (159 of 246 accepted and 21 rejected in one run, 72 in another, both at load ~12 on 2 cores).
    const accepted = drafted.usage?.acceptedPredictionTokens ?? 0;
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThan(drafted.usage?.rejectedPredictionTokens ?? 0);
  });

  it("a call that copies nothing (the noise model) is the same with drafting on as off", async () => {
    const plain = await collectStream(noisePlain.stream(request()));
    const drafted = await collectStream(noiseDrafting.stream(request()));
    expect(onlyCall(drafted)).toEqual(onlyCall(plain));
    expect(drafted.usage?.outputTokens).toBe(plain.usage?.outputTokens);
  });

  it("drafts partly rejected, by a wrong token or one the grammar forbids, leave the call as plain decoding has it", async () => {
    const plain = onlyCall(await collectStream(noisePlain.stream(request())));
    const callJson = `{"name": "${plain.name}", "arguments": ${plain.arguments}}`;
    const third = Math.floor(callJson.length / 3);
    // A raw line break inside a JSON string (the grammar refuses it), then a wrong letter.
    const corrupted = `${callJson.slice(0, third)}\nQ${callJson.slice(third, 2 * third)}Q${callJson.slice(2 * third)}`;
    const result = await collectStream(noiseDrafting.stream(request({ prediction: corrupted })));
    expect(onlyCall(result)).toEqual(plain);
    expect(result.usage?.acceptedPredictionTokens).toBeGreaterThan(0);
    expect(result.usage?.rejectedPredictionTokens).toBeGreaterThan(0);
    // The sequence serves the next request: the grammar of that job held nothing stale.
    expect(onlyCall(await collectStream(noiseDrafting.stream(request())))).toEqual(plain);
  });

  it("sampled calls with drafting still parse and fit their tool", async () => {
    for (const seed of [1, 2, 3]) {
      const sampled = await collectStream(
        scriptedDrafting.stream(
          request({ sampling: { temperature: 1.5, seed, maxOutputTokens: 400 } }),
        ),
      );
      const call = onlyCall(sampled);
      expect(writeFile.safeParse(JSON.parse(call.arguments)).success).toBe(true);
    }
  });
});

describeNative("the native verify step under a grammar", () => {
  let context: NativeContext;
  let sequence: NativeSequence;
  beforeAll(async () => {
    const found = findNativeLoop("native", await getSharedLlamaBackend("auto"));
    if (found.addon === undefined) throw new Error(found.reason);
    context = await NativeContext.create(found.addon, {
      modelPath: await ensureTestModel(),
      contextSize: 256,
      sequences: 1,
      threads: 1,
      batchSize: 64,
      gpuLayers: 0,
    });
    sequence = (await context.pool.acquire(undefined, undefined)).sequence;
  });
  afterAll(() => context?.dispose());

  /** The byte tokenizer's ids are the bytes. */
  const prompt = [...Buffer.from("Write an object:\n")] as Token[];
  const grammar = { text: 'root ::= "{" [a-z ]{8,40} "}"', root: "root" };
  async function run(speculation?: NativeSpeculation): Promise<{ tokens: Token[]; steps: number }> {
    sequence.forget();
    const job = sequence.tokens(prompt, {
      maxTokens: 60,
      sampling: { temperature: 0 },
      defaultTemperature: 0,
      grammar,
      speculation,
    });
    const tokens: Token[] = [];
    for await (const token of job.tokens) tokens.push(token);
    return { tokens, steps: job.steps() };
  }

  it("drafts right, wrong and forbidden by the grammar give the plain run's tokens, and its end", async () => {
    const plain = await run();
    // The grammar held the noise model to its shape and ended the job at "}".
    expect(Buffer.from(plain.tokens).toString()).toMatch(/^\{[a-z ]{8,40}\}$/);
    const output: Token[] = [];
    let drafted = 0;
    const speculation: NativeSpeculation = {
      record: (sampled) => output.push(...(sampled as unknown as Token[])),
      // Two right tokens, then an uppercase letter (the grammar forbids it), or at every other
      // draft a letter the grammar allows that is not the model's.
      nextDraft: () => {
        const next = plain.tokens.slice(output.length, output.length + 4);
        if (next.length < 3) return next;
        const wrong = drafted % 2 === 0 ? 81 : next[2] === 122 ? 121 : 122;
        drafted += 1;
        return [next[0], next[1], wrong, next[3] ?? wrong] as Token[];
      },
    };
    const speculative = await run(speculation);
    expect(speculative.tokens).toEqual(plain.tokens);
    expect(drafted).toBeGreaterThan(2);
    // Two drafted tokens kept per step, then the sample that differed: fewer steps than plain.
    expect(speculative.steps).toBeLessThan(plain.steps);
    // The next job's grammar starts afresh: nothing of the rejected drafts stayed in it.
    expect((await run()).tokens).toEqual(plain.tokens);
  });
});

describe("escaped views on the test model's tokenizer", () => {
  let loaded: LoadedModel;
  beforeAll(async () => {
    loaded = await loadModel(await ensureTestModel());
  });
  afterAll(async () => {
    await loaded?.model.dispose();
  });

  /** Accepted share of `output` when each step keeps the draft up to its first wrong token. */
  function acceptedShare(lookup: PromptLookup, history: Token[], output: Token[]): number {
    let accepted = 0;
    for (let produced = 0; produced < output.length;) {
      const draft = lookup.draft(history);
      let right = 0;
      while (right < draft.length && draft[right] === output[produced + right]) right += 1;
      const step = output.slice(produced, produced + right + 1);
      history.push(...step);
      produced += step.length;
      accepted += right;
    }
    return accepted / output.length;
  }

  it("an edit call copying numbered read_file lines is drafted far more than from the raw prompt", async () => {
    const { model } = loaded;
    const file = await readFile(
      new URL("../../bench/fixtures/edit-tasks/stop-matcher.ts.txt", import.meta.url),
      "utf8",
    );
    const lines = file.split("\n");
    const numbered = lines.map((line, index) => `${String(index + 1).padStart(3)}\t${line}`);
    const oldText = lines.slice(5, 25).join("\n");
    const call = JSON.stringify({
      name: "edit",
      arguments: { path: "stop-matcher.ts", oldText, newText: oldText.replaceAll("stop", "halt") },
    });
    const editRequest: EngineRequest = {
      messages: [
        { role: "user", content: "Rename stop to halt in lines 6-25." },
        { role: "tool", toolCallId: "call_1", content: numbered.join("\n") },
      ],
    };
    const prompt = model.tokenize(`${numbered.join("\n")}<tool_call>\n`);
    const output = model.tokenize(call);
    const lookups = new RequestLookups(model, { speculative: true });
    const escaped = lookups.forToolTurn(editRequest, prompt)?.open();
    const raw = lookups.for(editRequest, prompt);
    if (escaped === undefined || raw === undefined) throw new Error("no lookup");
    const escapedShare = acceptedShare(escaped.drafts, [...prompt], output);
    const rawShare = acceptedShare(raw.drafts, [...prompt], output);
    // oldText and newText are nearly all copies of the lines: most is drafted from the views
    // (0.87 when written; from the raw prompt 0.51, each line's start lost to its number).
    expect(escapedShare).toBeGreaterThan(0.75);
    expect(escapedShare).toBeGreaterThan(rawShare + 0.2);
  });
});
