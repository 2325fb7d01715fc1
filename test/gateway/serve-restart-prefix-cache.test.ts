// The real `spark serve` restarted on one SPARK_HOME: a returning conversation (Chat Completions
// with its whole history, Responses with the history as input) is served from the prefix cache on
// disk, answers as a process that never cached anything does, and counts the disk tokens as cached;
// another API key (tenant) sending the same conversation gets nothing from the first one's entries.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { ensureTestModel } from "../support/test-model.ts";

const SPARK = fileURLToPath(new URL("../../bin/spark.js", import.meta.url));
const LISTENING = /listening on (http:\/\/\S+)/;
const ALICE = "sk-alice-prefix-cache";
const BOB = "sk-bob-prefix-cache";
/** A system prompt long enough for the engine to save it on its own (the test model: ~a token a byte). */
const SYSTEM = `You are a careful reviewer. ${"Answer briefly and name the line you mean. ".repeat(8)}`;
const QUESTIONS = ["What does sum() return for []?", "And for [1, 2]?", "Why not use a loop?"];

interface SparkTimingsSeen {
  prefill_tokens_cached: number;
  prefill_tokens_computed: number;
  prefill_tokens_from_disk?: number;
  time_to_first_token_ms: number | null;
}

/** What one turn answered and how its prompt was filled. */
interface TurnSeen {
  text: string;
  promptTokens: number;
  cachedTokens: number;
  timings: SparkTimingsSeen;
}

interface ServeProcess {
  url: string;
  stop: () => Promise<void>;
}

async function startServe(home: string): Promise<ServeProcess> {
  const child = spawn(process.execPath, [SPARK, "serve", "--port", "0"], {
    env: { ...process.env, SPARK_HOME: home },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on("data", () => {
      const match = LISTENING.exec(stderr);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once("exit", (code) =>
      reject(new Error(`spark serve exited (${String(code)}) before listening:\n${stderr}`)),
    );
  });
  return { url, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

async function sparkHome(modelPath: string, cacheEnabled: boolean): Promise<string> {
  const home = await mkdtemp(path.join(os.tmpdir(), "spark-serve-prefix-cache-"));
  await writeFile(
    path.join(home, "config.toml"),
    `default_model = "tiny"\n[serve]\napi_keys = ["${ALICE}", "${BOB}"]\n` +
      `[cache]\nenabled = ${String(cacheEnabled)}\n` +
      `[models.tiny]\nengine = "llama-cpp"\npath = ${JSON.stringify(modelPath)}\n` +
      "threads = 1\nsequences = 1\ncontext_size = 4096\n",
  );
  return home;
}

/** Chat Completions with the whole history: the turn after `answers.length` earlier answers. */
async function chatTurn(url: string, apiKey: string, answers: string[]): Promise<TurnSeen> {
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0 });
  const messages: ChatCompletionMessageParam[] = [{ role: "system", content: SYSTEM }];
  answers.forEach((answer, turn) => {
    messages.push({ role: "user", content: QUESTIONS[turn] ?? "" });
    messages.push({ role: "assistant", content: answer });
  });
  messages.push({ role: "user", content: QUESTIONS[answers.length] ?? "" });
  const completion = await client.chat.completions.create({
    model: "tiny",
    messages,
    max_tokens: 8,
    temperature: 0,
  });
  const { spark_timings: timings } = completion as unknown as { spark_timings: SparkTimingsSeen };
  return {
    text: completion.choices[0]?.message.content ?? "",
    promptTokens: completion.usage?.prompt_tokens ?? 0,
    cachedTokens: completion.usage?.prompt_tokens_details?.cached_tokens ?? -1,
    timings,
  };
}

/** Responses with the history as input (no previous_response_id: the store is gone at restart). */
async function responsesTurn(url: string, apiKey: string, answers: string[]): Promise<TurnSeen> {
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0 });
  const input: ResponseInputItem[] = [];
  answers.forEach((answer, turn) => {
    input.push({ role: "user", content: `Responses: ${QUESTIONS[turn] ?? ""}` });
    input.push({ role: "assistant", content: answer });
  });
  input.push({ role: "user", content: `Responses: ${QUESTIONS[answers.length] ?? ""}` });
  const response = await client.responses.create({
    model: "tiny",
    // Not the chat's system prompt: the uncached process's memory would serve it.
    instructions: `As a second reviewer: ${SYSTEM}`,
    input,
    max_output_tokens: 8,
    temperature: 0,
  });
  const { spark_timings: timings } = response as unknown as { spark_timings: SparkTimingsSeen };
  return {
    text: response.output_text,
    promptTokens: response.usage?.input_tokens ?? 0,
    cachedTokens: response.usage?.input_tokens_details.cached_tokens ?? -1,
    timings,
  };
}

type Turn = typeof chatTurn;

/** Two turns of a conversation in one process: their answers. */
async function converse(url: string, turn: Turn): Promise<string[]> {
  const answers: string[] = [];
  for (let index = 0; index < 2; index += 1) answers.push((await turn(url, ALICE, answers)).text);
  return answers;
}

describe("a restarted spark serve serves a returning conversation from the prefix cache on disk", () => {
  let modelPath: string;
  const homes: string[] = [];
  const seen: Record<string, TurnSeen> = {};
  let chatAnswers: string[] = [];
  let responsesAnswers: string[] = [];

  beforeAll(async () => {
    modelPath = await ensureTestModel();
    const home = await sparkHome(modelPath, true);
    const reference = await sparkHome(modelPath, false);
    homes.push(home, reference);
    const first = await startServe(home);
    try {
      chatAnswers = await converse(first.url, chatTurn);
      responsesAnswers = await converse(first.url, responsesTurn);
    } finally {
      await first.stop();
    }
    // The same returning turns on a process with the cache off: what to answer, computed whole.
    const uncached = await startServe(reference);
    try {
      seen.chatUncached = await chatTurn(uncached.url, ALICE, chatAnswers);
      seen.responsesUncached = await responsesTurn(uncached.url, ALICE, responsesAnswers);
    } finally {
      await uncached.stop();
    }
    const restarted = await startServe(home);
    try {
      // Bob first, on a process whose memory holds nothing yet: only the disk could serve him.
      seen.chatBob = await chatTurn(restarted.url, BOB, chatAnswers);
      seen.chat = await chatTurn(restarted.url, ALICE, chatAnswers);
      seen.responses = await responsesTurn(restarted.url, ALICE, responsesAnswers);
    } finally {
      await restarted.stop();
    }
  }, 180_000);
  afterAll(async () => {
    await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
  });

  it.each(["chat", "responses"])(
    "%s: the returning turn answers as the uncached process and counts its disk tokens as cached",
    (surface) => {
      const warm = seen[surface];
      const cold = seen[`${surface}Uncached`];
      expect(warm && cold).toBeTruthy();
      if (warm === undefined || cold === undefined) return;
      console.log(
        `${surface}: prompt ${warm.promptTokens} tokens; restarted: ${String(warm.timings.prefill_tokens_from_disk)} ` +
          `from disk, ${warm.timings.prefill_tokens_computed} computed, first token ` +
          `${String(warm.timings.time_to_first_token_ms)} ms; cache off: ${cold.timings.prefill_tokens_computed} ` +
          `computed, first token ${String(cold.timings.time_to_first_token_ms)} ms`,
      );
      expect(warm.text).toBe(cold.text);
      expect(warm.promptTokens).toBe(cold.promptTokens);
      // Only the template's first tokens shared with the other surface's prompt in memory.
      expect(cold.cachedTokens).toBeLessThan(16);
      expect(cold.timings.prefill_tokens_from_disk).toBeUndefined();
      // The earlier turns (system prompt, questions and answers) came from disk: all but the
      // new question and the template's tokens around it.
      const fromDisk = warm.timings.prefill_tokens_from_disk ?? 0;
      expect(fromDisk).toBeGreaterThan(0.7 * warm.promptTokens);
      expect(warm.cachedTokens).toBeGreaterThanOrEqual(fromDisk);
      expect(warm.timings.prefill_tokens_computed).toBeLessThan(64);
    },
  );

  it("another tenant sending the same conversation loads nothing from the first one's entries", () => {
    const bob = seen.chatBob;
    expect(bob).toBeDefined();
    expect(bob?.timings.prefill_tokens_from_disk).toBeUndefined();
    expect(bob?.cachedTokens).toBe(0);
    expect(bob?.text).toBe(seen.chatUncached?.text);
  });
});
