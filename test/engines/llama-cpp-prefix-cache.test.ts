// The prefix cache on disk on the embedded engine's native loop: a second process loads the first
// one's system prompt and turn instead of computing them and writes the same tokens, and an engine
// loads what it wrote itself; a corrupt or truncated entry is removed with one line and the prompt
// computed; a model file replaced on disk never matches; the cap evicts the least recently used;
// a file's first FIM request after a restart loads what an earlier process's computed;
// node-llama-cpp's loop saves and loads through its state files, under a key of its own;
// one tenant's entries are never loaded for another; and a cache turned off in config.toml writes
// nothing. Only the first case's reader is a fresh process; every other engine opens in this one
// (a process costs ~5 s of CPU before its first token, an engine here ~0.5 s), each disposed before
// the next opens, so the disk is all one engine hands the next.
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { readFile, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage, Usage } from "../../src/engines/engine.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { collectStream } from "../../src/engines/collect-stream.ts";
import { createEngine } from "../../src/router/create-engine.ts";
import {
  runPrefixCacheRequests,
  type PrefixCacheLine,
  type PrefixCacheProcessInput,
} from "./support/prefix-cache-requests.ts";

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL("./support/prefix-cache-process.ts", import.meta.url));

interface ProcessResult {
  answers: { text: string; usage: Usage; error?: string }[];
  notices: string[];
}

function resultOf(lines: PrefixCacheLine[]): ProcessResult {
  return {
    answers: lines.filter((line) => "usage" in line) as ProcessResult["answers"],
    notices: lines.flatMap((line) => ("notice" in line ? [line.notice] : [])),
  };
}

/** One engine in a process of its own, as a fresh `spark exec` would open it. */
async function inProcess(input: PrefixCacheProcessInput): Promise<ProcessResult> {
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", CHILD, JSON.stringify(input)],
    {
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return resultOf(
    stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as PrefixCacheLine),
  );
}

/** One engine opened here and disposed (its entries written) before the call returns. */
async function inEngine(input: PrefixCacheProcessInput): Promise<ProcessResult> {
  const lines: PrefixCacheLine[] = [];
  await runPrefixCacheRequests(input, (line) => lines.push(line));
  return resultOf(lines);
}

/** An agent's shape: a long system prompt every conversation shares, then the user's message. */
const SYSTEM = `You are a careful reviewer of TypeScript.\n${"Rule: keep answers short, exact and kind. ".repeat(30)}`;
const conversation = (question: string): ChatMessage[] => [
  { role: "system", content: SYSTEM },
  { role: "user", content: question },
];

function entryFiles(directory: string): string[] {
  const files: string[] = [];
  const walk = (folder: string): void => {
    if (!existsSync(folder)) return;
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".kv")) files.push(path);
    }
  };
  walk(join(directory, "prefix"));
  return files;
}

const computed = (usage: Usage): number => usage.inputTokens - usage.cachedInputTokens;

describe.skipIf(!existsSync(defaultAddonPath))("prefix cache on disk (native loop)", () => {
  let modelPath: string;
  let directory: string;
  beforeAll(async () => {
    modelPath = await ensureTestModel();
  });
  const newDirectory = (): string => (directory = mkdtempSync(join(tmpdir(), "spark-prefix-")));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("a second process loads the prompt from disk and writes the same answer, computing one token", async () => {
    newDirectory();
    const question = conversation("Is this loop correct?");
    // Written here; read by a process that never held it.
    const first = await inEngine({ modelPath, directory, requests: [{ messages: question }] });
    const [cold] = first.answers;
    expect(cold?.error).toBeUndefined();
    expect(cold?.usage.diskCachedInputTokens).toBeUndefined();
    expect(computed(cold!.usage)).toBe(cold!.usage.inputTokens);
    // The system prompt's entry and the finished turn's.
    expect(entryFiles(directory)).toHaveLength(2);
    const second = await inProcess({
      modelPath,
      directory,
      // Another question on a sequence of its own: only the system prompt is shared, and loaded.
      requests: [{ messages: question }, { messages: conversation("What does it return?") }],
    });
    const [warm, other] = second.answers;
    expect(warm?.text).toBe(cold?.text);
    expect(computed(warm!.usage)).toBe(1);
    expect(warm?.usage.diskCachedInputTokens).toBe(warm!.usage.inputTokens - 1);
    expect(other?.usage.diskCachedInputTokens).toBeGreaterThan(SYSTEM.length * 0.9);
    expect(computed(other!.usage)).toBeLessThan(80);
    const stats = JSON.parse(await readFile(join(directory, "stats.json"), "utf8")) as Record<
      string,
      number
    >;
    expect(stats).toMatchObject({ hits: 2, entriesWritten: 3, entriesInvalid: 0 });
  });

  it("a second conversation in the same process loads the entries that process wrote", async () => {
    newDirectory();
    // The second takes a sequence of its own (never used): its prefix is on disk, not in it.
    const { answers, notices } = await inEngine({
      modelPath,
      directory,
      requests: [
        { messages: conversation("Is this loop correct?") },
        { messages: conversation("What does it return?") },
      ],
    });
    expect(notices).toEqual([]);
    expect(answers[1]?.usage.diskCachedInputTokens).toBeGreaterThan(SYSTEM.length * 0.9);
    expect(computed(answers[1]!.usage)).toBeLessThan(80);
  });

  it("a truncated or corrupt entry is removed with one line each and the prompt is computed", async () => {
    newDirectory();
    const requests = [{ messages: conversation("Is this loop correct?") }];
    const first = await inEngine({ modelPath, directory, requests });
    const [prefixEntry, turnEntry] = entryFiles(directory).sort(
      (left, right) => statSync(left).size - statSync(right).size,
    );
    await truncate(turnEntry!, statSync(turnEntry!).size - 1000);
    const bytes = await readFile(prefixEntry!);
    bytes[bytes.length - 100] = (bytes[bytes.length - 100]! + 1) % 256;
    await writeFile(prefixEntry!, bytes);
    const second = await inEngine({ modelPath, directory, requests });
    expect(second.answers[0]?.text).toBe(first.answers[0]?.text);
    expect(second.answers[0]?.usage.diskCachedInputTokens).toBeUndefined();
    expect(computed(second.answers[0]!.usage)).toBe(second.answers[0]!.usage.inputTokens);
    expect(second.notices).toHaveLength(2);
    expect(second.notices.join("\n")).toMatch(/truncated|checksum/);
    // Removed, and written whole again by the second process.
    const stats = JSON.parse(await readFile(join(directory, "stats.json"), "utf8")) as Record<
      string,
      number
    >;
    expect(stats).toMatchObject({ entriesInvalid: 2, entriesWritten: 4 });
    expect(statSync(turnEntry!).size).toBeGreaterThan(statSync(prefixEntry!).size);
  });

  it("a model file replaced on disk never matches an entry of the old one", async () => {
    newDirectory();
    const path = join(directory, "model.gguf");
    copyFileSync(modelPath, path);
    const requests = [{ messages: conversation("Is this loop correct?") }];
    await inEngine({ modelPath: path, directory, requests });
    // Another model under the same name (same shape and size: only its weights differ).
    copyFileSync(await ensureTestModel({ seed: 7 }), path);
    const replaced = await inEngine({ modelPath: path, directory, requests });
    expect(replaced.answers[0]?.usage.diskCachedInputTokens).toBeUndefined();
    expect(replaced.answers[0]?.usage.cachedInputTokens).toBe(0);
    expect(replaced.notices).toEqual([]);
  });

  it("keeps the folder under its cap, evicting the least recently used entries", async () => {
    newDirectory();
    // About two of the tiny model's entries (~2.8 MB each at this prompt's length).
    const maxBytes = 6 * 1024 ** 2;
    const requests = ["one", "two", "three"].map((question) => ({
      messages: conversation(`Question ${question}: is this loop correct?`),
    }));
    await inEngine({ modelPath, directory, maxBytes, requests });
    const files = entryFiles(directory);
    const total = files.reduce((sum, file) => sum + statSync(file).size, 0);
    expect(total).toBeLessThanOrEqual(maxBytes);
    const stats = JSON.parse(await readFile(join(directory, "stats.json"), "utf8")) as Record<
      string,
      number
    >;
    expect(stats.entriesEvicted).toBeGreaterThanOrEqual(2);
    // The newest conversation's turn is kept. (Which other entry is depends on which of them the
    // later conversations loaded, each touching it: the unit test holds the order.)
    const again = await inEngine({ modelPath, directory, maxBytes, requests: [requests[2]!] });
    expect(computed(again.answers[0]!.usage)).toBe(1);
  });

  it("a file's first FIM after a restart starts from the entry an earlier process's left", async () => {
    newDirectory();
    const fimModel = await ensureTestModel({ fimTokens: true });
    // A file opened in the editor: ~1,900 prompt tokens computed by its first completion.
    const body = Array.from({ length: 60 }, (_, line) => `  total += values[${line}] * ${line};`);
    const prefix = `export function weigh(values: number[]): number {\n  let total = 0;\n${body.join("\n")}\n  return `;
    const suffix = "\n}\n";
    const opened = await inEngine({
      modelPath: fimModel,
      directory,
      requests: [{ completion: { prefix, suffix } }],
    });
    expect(computed(opened.answers[0]!.usage)).toBeGreaterThan(1500);
    expect(entryFiles(directory)).toHaveLength(1);
    // After a restart, the next keystroke: the prompt differs at the cursor.
    const typed = { completion: { prefix: `${prefix}t`, suffix } };
    const restarted = await inEngine({ modelPath: fimModel, directory, requests: [typed] });
    const withoutCache = await inEngine({ modelPath: fimModel, requests: [typed] });
    const [fromDisk] = restarted.answers;
    expect(fromDisk?.text).toBe(withoutCache.answers[0]?.text);
    expect(fromDisk?.usage.diskCachedInputTokens).toBeGreaterThan(1500);
    expect(computed(fromDisk!.usage)).toBeLessThan(40);
    // That keystroke computed a few tokens: nothing more is written for it.
    expect(entryFiles(directory)).toHaveLength(1);
    // A short file's completion is not worth a write.
    await inEngine({
      modelPath: fimModel,
      directory,
      requests: [{ completion: { prefix: "let x = ", suffix: ";\n" } }],
    });
    expect(entryFiles(directory)).toHaveLength(1);
  });

  it("on node-llama-cpp's loop a second engine loads the prompt from disk, apart from the native loop's", async () => {
    newDirectory();
    const requests = [{ messages: conversation("Is this loop correct?") }];
    const native = await inEngine({ modelPath, directory, requests });
    const nodeLlamaCpp = { modelPath, directory, requests, decodeLoop: "node-llama-cpp" as const };
    // The native loop's entries are another KV shape: nothing of them is loaded here.
    const first = await inEngine(nodeLlamaCpp);
    const [cold] = first.answers;
    expect(cold?.error).toBeUndefined();
    expect(cold?.text).toBe(native.answers[0]?.text);
    expect(cold?.usage.diskCachedInputTokens).toBeUndefined();
    expect(entryFiles(directory)).toHaveLength(4);
    const second = await inEngine(nodeLlamaCpp);
    const [warm] = second.answers;
    expect(second.notices).toEqual([]);
    expect(warm?.text).toBe(cold?.text);
    expect(computed(warm!.usage)).toBe(1);
    expect(warm?.usage.diskCachedInputTokens).toBe(warm!.usage.inputTokens - 1);
  });

  it("never loads one tenant's entries for another", async () => {
    newDirectory();
    const messages = conversation("My secret plan is in this file.");
    await inEngine({ modelPath, directory, requests: [{ messages, cacheScope: "tenant-a" }] });
    const others = await inEngine({
      modelPath,
      directory,
      requests: [
        { messages, cacheScope: "tenant-b" },
        { messages },
        { messages, cacheScope: "tenant-a" },
      ],
    });
    const [stranger, local, owner] = others.answers;
    expect(stranger?.usage.diskCachedInputTokens).toBeUndefined();
    expect(local?.usage.diskCachedInputTokens).toBeUndefined();
    expect(computed(owner!.usage)).toBe(1);
  });

  it("writes nothing when config.toml turns it off, and into SPARK_HOME/cache when it is on", async () => {
    newDirectory();
    const model = `[models.local]\nengine = "llama-cpp"\npath = ${JSON.stringify(modelPath)}\nthreads = 1\nsequences = 1\ncontext_size = 4096\n`;
    const runConfigured = async (configText: string): Promise<void> => {
      await writeFile(join(directory, "config.toml"), configText);
      const config = await loadConfig({
        cwd: directory,
        env: { SPARK_HOME: directory },
        homeDirectory: directory,
      });
      const engine = await createEngine("local", config.models.local!, config);
      const result = await collectStream(
        engine.stream({
          messages: conversation("Is this loop correct?"),
          sampling: { temperature: 0, maxOutputTokens: 4 },
        }),
      );
      expect(result.error).toBeUndefined();
      await engine[Symbol.asyncDispose]();
    };
    await runConfigured(`[cache]\nenabled = false\n${model}`);
    expect(existsSync(join(directory, "cache"))).toBe(false);
    await runConfigured(model);
    expect(entryFiles(join(directory, "cache"))).toHaveLength(2);
  });
});
