// Scenario 9: the prefix cache on disk (issue 35). Side by side in one run, on the embedded engine
// in processes of their own: the first-token time of a request in a fresh process on a machine that
// ran another conversation with the same system prompt and tools before (loaded from disk) against
// the same request in a warm in-process session (only the new user message computed) and in a cold
// one; the same for the next message of a conversation of 10 turns resumed by a fresh process
// (prefix-cache-resume.ts); and decode tokens/s of a stream while another sequence's finished turn
// is saved, cache on against off.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { EngineRequest, ToolDefinition } from "../../src/engines/engine.ts";
import { ensureTestModel } from "../../test/support/test-model.ts";
import { readCorpus } from "../lib/conversation-corpus.ts";
import type { PrefixCacheChildInput, PrefixCacheChildLine } from "../lib/prefix-cache-child.ts";
import { measureResume } from "../lib/prefix-cache-resume.ts";
import type { Scenario } from "../lib/scenario.ts";
import { figure } from "../lib/scenario-result.ts";
import { median, round } from "../lib/stats.ts";

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL("../lib/prefix-cache-child.ts", import.meta.url));
const SYSTEM_PROMPT = fileURLToPath(new URL("../../prompts/system.md", import.meta.url));
const tsxLoader = createRequire(import.meta.url).resolve("tsx");

const TOOLS: ToolDefinition[] = [
  {
    name: "read_file",
    description: "Read a file of the workspace, with line numbers.",
    parameters: {
      type: "object",
      properties: { path: { type: "string", description: "Relative to the workspace root." } },
      required: ["path"],
    },
  },
  {
    name: "apply_patch",
    description: "Apply a patch in the Codex apply_patch format to files of the workspace.",
    parameters: {
      type: "object",
      properties: { patch: { type: "string" } },
      required: ["patch"],
    },
  },
];

async function child(input: PrefixCacheChildInput): Promise<PrefixCacheChildLine[]> {
  const { stdout } = await run(
    process.execPath,
    ["--import", tsxLoader, CHILD, JSON.stringify(input)],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as PrefixCacheChildLine);
}

export const prefixCacheDisk: Scenario = {
  number: 9,
  id: "prefix-cache-disk",
  title: "Prefix cache on disk: a fresh process vs a warm session",
  async run(settings) {
    const startedAt = new Date();
    // The agent's prompt is ~5,800 tokens on the test shapes' near byte-level tokenizer.
    const systemBytes = { full: 5800, quick: 5800, smoke: 600 }[settings.size];
    const rounds = { full: 3, quick: 2, smoke: 1 }[settings.size];
    const decodeTokens = { full: 256, quick: 128, smoke: 16 }[settings.size];
    const modelPath = settings.modelPath ?? (await ensureTestModel({ contextLength: 32768 }));
    const corpus = await readCorpus(systemBytes * 2 + 20_000);
    const system = `${await readFile(SYSTEM_PROMPT, "utf8")}\n${corpus.slice(0, systemBytes)}`;
    const request = (question: string, maxOutputTokens = 8): EngineRequest => ({
      messages: [
        { role: "system", content: system },
        { role: "user", content: question },
      ],
      tools: TOOLS,
      sampling: { temperature: 0, maxOutputTokens },
    });
    const base = { modelPath, threads: settings.threads, contextSize: systemBytes + 4096 };
    const cold: number[] = [];
    const coldSaving: number[] = [];
    const warm: number[] = [];
    const fresh: number[] = [];
    const freshComputed: number[] = [];
    const warmComputed: number[] = [];
    const freshFromDisk: number[] = [];
    let sameText = true;
    for (let index = 0; index < rounds; index += 1) {
      settings.signal.throwIfAborted();
      const directory = await mkdtemp(join(tmpdir(), "spark-bench-prefix-"));
      try {
        const earlier = request(`Round ${index}: list the files.`);
        const target = request(`Round ${index}: say hi.`);
        // The machine's earlier run: another instruction, same system prompt and tools.
        const [saving] = await child({
          ...base,
          sequences: 1,
          directory,
          steps: [{ kind: "request", request: earlier }],
        });
        // A fresh process on that machine: the target request.
        const [fromDisk] = await child({
          ...base,
          sequences: 1,
          directory,
          steps: [{ kind: "request", request: target }],
        });
        // A warm session without the disk cache: the earlier conversation, then the target.
        const [nothingCached, inSession] = await child({
          ...base,
          sequences: 1,
          steps: [
            { kind: "request", request: earlier },
            { kind: "request", request: target },
          ],
        });
        coldSaving.push(saving?.timeToFirstTokenMs ?? Number.NaN);
        cold.push(nothingCached?.timeToFirstTokenMs ?? Number.NaN);
        warm.push(inSession?.timeToFirstTokenMs ?? Number.NaN);
        warmComputed.push(inSession?.computedTokens ?? Number.NaN);
        fresh.push(fromDisk?.timeToFirstTokenMs ?? Number.NaN);
        freshComputed.push(fromDisk?.computedTokens ?? Number.NaN);
        freshFromDisk.push(fromDisk?.fromDisk ?? 0);
        if (fromDisk?.text !== inSession?.text) sameText = false;
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    }
    // A conversation of 10 turns (code pasted in each message), resumed by a fresh process.
    const resumeTurns = { full: 10, quick: 10, smoke: 2 }[settings.size];
    const turnBytes = 300;
    const resume = await measureResume({
      child,
      base: { ...base, sequences: 1, contextSize: systemBytes + resumeTurns * 400 + 4096 },
      request: { ...request("", 16), messages: [{ role: "system", content: system }] },
      userMessages: (round) => {
        const start = systemBytes + 10_000 + round * resumeTurns * turnBytes;
        return {
          turns: Array.from({ length: resumeTurns }, (_, turn) => {
            const offset = start + turn * turnBytes;
            return `Turn ${turn + 1}: what does this do?\n${corpus.slice(offset, offset + turnBytes)}`;
          }),
          next: `Round ${round}: say hi.`,
        };
      },
      rounds,
      signal: settings.signal,
    });
    // Decode while the other sequence's finished turn is copied and written (cache on) or not;
    // the processes alternate, so the machine's load falls on both alike.
    // `beside` continues the same system prompt on the other sequence and ends a few tokens into
    // the decode: its turn (the whole prompt's state) is copied and written while the decode runs,
    // and nothing else differs between the two processes (a beside prompt of its own to prefill
    // would fall into the decode's window at whatever moment the lookup before it let it start).
    const decodeSteps = Array.from({ length: 4 }, (_, index) => ({
      kind: "decode" as const,
      decode: request(`Decode ${index}: explain the code above.`, decodeTokens),
      beside: request(`Beside ${index}: list the files.`, Math.ceil(decodeTokens / 8)),
    }));
    const decodeOn: PrefixCacheChildLine[] = [];
    const decodeOff: PrefixCacheChildLine[] = [];
    for (let index = 0; index < rounds; index += 1) {
      const decodeDirectory = await mkdtemp(join(tmpdir(), "spark-bench-prefix-"));
      try {
        const decode = { ...base, sequences: 2, steps: decodeSteps };
        const on = () => child({ ...decode, directory: decodeDirectory });
        const off = () => child(decode);
        // The first step of each process warms it up (graph allocation, JIT).
        if (index % 2 === 0) {
          decodeOn.push(...(await on()).slice(1));
          decodeOff.push(...(await off()).slice(1));
        } else {
          decodeOff.push(...(await off()).slice(1));
          decodeOn.push(...(await on()).slice(1));
        }
      } finally {
        await rm(decodeDirectory, { recursive: true, force: true });
      }
    }
    const speed = (lines: PrefixCacheChildLine[]): number =>
      median(lines.map((line) => line.decodeTokensPerSecond ?? Number.NaN));
    const ratio = median(fresh) / median(warm);
    const decodeRatio = speed(decodeOn) / speed(decodeOff);
    const resumeRatio = median(resume.fresh) / median(resume.warm);
    return {
      scenario: 9,
      id: "prefix-cache-disk",
      title: this.title,
      status: "ran",
      startedAt: startedAt.toISOString(),
      durationMs: Date.now() - startedAt.getTime(),
      configuration: {
        model: settings.modelPath ?? "test model (tiny, 32k context)",
        threads: settings.threads,
        systemPromptBytes: system.length,
        rounds,
        resumeTurns,
        decodeTokens,
        size: settings.size,
      },
      figures: [
        figure("first token, fresh process from disk ÷ warm session", round(ratio, 3), "×", {
          comparison: "<=",
          value: 1.2,
        }),
        figure("first token, fresh process from disk", round(median(fresh), 1), "ms"),
        figure("first token, warm in-process session", round(median(warm), 1), "ms"),
        figure(
          `first token, ${resumeTurns}-turn conversation resumed by a fresh process ÷ warm session`,
          round(resumeRatio, 3),
          "×",
          { comparison: "<=", value: 1.2 },
        ),
        figure("first token, cold (nothing cached)", round(median(cold), 1), "ms"),
        figure(
          "first token, cold with the cache on (computes and saves)",
          round(median(coldSaving), 1),
          "ms",
        ),
        figure(
          "decode tokens/s, cache on ÷ off (a turn saved meanwhile)",
          round(decodeRatio, 3),
          "×",
          {
            comparison: ">=",
            value: 0.98,
          },
        ),
      ],
      tables: [
        {
          title: "Prefix cache on disk: one request, three ways",
          columns: ["process", "first token ms (median)", "prompt tokens computed", "from disk"],
          rows: [
            ["cold: nothing cached", round(median(cold), 1), "all", 0],
            [
              "cold, cache on (system prefix computed first, saved)",
              round(median(coldSaving), 1),
              "all",
              0,
            ],
            ["warm in-process session", round(median(warm), 1), median(warmComputed), 0],
            [
              "fresh process, cache on disk",
              round(median(fresh), 1),
              median(freshComputed),
              median(freshFromDisk),
            ],
          ],
        },
        {
          title: `A conversation of ${resumeTurns} turns, its next message (${resume.promptTokens} prompt tokens)`,
          columns: ["process", "first token ms (median)", "prompt tokens computed", "from disk"],
          rows: [
            [
              "warm in-process session",
              round(median(resume.warm), 1),
              median(resume.warmComputed),
              0,
            ],
            [
              "fresh process resuming, cache on disk",
              round(median(resume.fresh), 1),
              median(resume.freshComputed),
              median(resume.freshFromDisk),
            ],
          ],
        },
        {
          title: "Decode while another sequence's turn is saved",
          columns: ["cache", "tokens/s (median)"],
          rows: [
            ["on", round(speed(decodeOn), 1)],
            ["off", round(speed(decodeOff), 1)],
          ],
        },
      ],
      charts: [],
      notes: [
        "First-token times are the engine's (request to first token), without the process's start and model load, which both processes pay.",
        sameText
          ? "The fresh process wrote the same tokens as the warm session in every round."
          : "The fresh process's text differed from the warm session's in some round (greedy: check the cache).",
        resume.sameText
          ? "The resuming process wrote the same tokens as the warm session in every round."
          : "The resuming process's text differed from the warm session's in some round (greedy: check the cache).",
      ],
      data: {
        cold,
        coldSaving,
        warm,
        fresh,
        freshComputed,
        warmComputed,
        freshFromDisk,
        decodeOn,
        decodeOff,
        resume,
      },
    };
  },
};
