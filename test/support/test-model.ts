// Gives tests a path to Spark's self-written tiny GGUF, written once per shape, type, seed,
// architecture and format version into .spark-test/models and shared by every test worker.

import { createHash, randomBytes } from "node:crypto";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { GgufTensorType } from "../../src/engines/llama-cpp/gguf/tensor-encoding.ts";
import type { TestModelShapeName } from "../../src/engines/llama-cpp/gguf/test-model-shapes.ts";
import { testModelShapes } from "../../src/engines/llama-cpp/gguf/test-model-shapes.ts";
import type { TokenSuccessors } from "../../src/engines/llama-cpp/gguf/successor-weights.ts";
import type { ScriptedTurns } from "../../src/engines/llama-cpp/gguf/scripted-turns.ts";
import {
  defaultTestModelArchitecture,
  defaultTestModelSeed,
  testModelFormatVersion,
  writeTestModel,
  type TestModelArchitecture,
} from "../../src/engines/llama-cpp/gguf/write-test-model.ts";

export interface EnsureTestModelOptions {
  shape?: TestModelShapeName;
  type?: GgufTensorType;
  seed?: number;
  /** "qwen2" (default) resolves node-llama-cpp's QwenChatWrapper; "llama" its Jinja wrapper. */
  architecture?: TestModelArchitecture;
  /** Trained context length in the file; default: the shape's. */
  contextLength?: number;
  /** The noise model may end its turns (see WriteTestModelOptions.endsTurns). */
  endsTurns?: boolean;
  /** Qwen2.5-Coder's FIM tokens in the vocabulary (see WriteTestModelOptions.fimTokens). */
  fimTokens?: boolean;
  /** A scripted model (see WriteTestModelOptions.successors); undefined: noise. */
  successors?: TokenSuccessors | undefined;
  /** A model scripted per turn (see WriteTestModelOptions.turns); undefined: noise. */
  turns?: ScriptedTurns | undefined;
  /** Another family's chat template instead of Qwen2.5's (see WriteTestModelOptions). */
  chatTemplate?: string | undefined;
}

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const testModelDirectory = join(repositoryRoot, ".spark-test", "models");
// One write per file per process, even when several tests ask at once.
const pendingWrites = new Map<string, Promise<string>>();

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Every option decided; a noise model has no successors. */
type ResolvedTestModelOptions = Required<
  Omit<EnsureTestModelOptions, "successors" | "turns" | "chatTemplate">
> &
  Pick<EnsureTestModelOptions, "successors" | "turns" | "chatTemplate">;

async function writeOnce(path: string, options: ResolvedTestModelOptions): Promise<string> {
  if (await exists(path)) return path;
  await mkdir(testModelDirectory, { recursive: true });
  // Other workers may write the same file; each writes its own temp file and the atomic rename
  // means a reader only ever sees a missing file or a complete one.
  const temporaryPath = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeTestModel(temporaryPath, options);
    await rename(temporaryPath, path);
  } finally {
    await rm(temporaryPath, { force: true });
  }
  return path;
}

/** Absolute path of the cached test model, writing it first if this version is not there yet. */
export async function ensureTestModel(options: EnsureTestModelOptions = {}): Promise<string> {
  const shape = options.shape ?? "tiny";
  const resolved: ResolvedTestModelOptions = {
    shape,
    type: options.type ?? testModelShapes[shape].defaultType,
    seed: options.seed ?? defaultTestModelSeed,
    architecture: options.architecture ?? defaultTestModelArchitecture,
    contextLength: options.contextLength ?? testModelShapes[shape].contextLength,
    endsTurns: options.endsTurns ?? false,
    fimTokens: options.fimTokens ?? false,
    successors: options.successors,
    turns: options.turns,
    chatTemplate: options.chatTemplate,
  };
  const scripted = resolved.successors ?? resolved.turns;
  const script =
    scripted === undefined
      ? ""
      : `-${resolved.turns === undefined ? "script" : "turns"}${createHash("sha256").update(JSON.stringify(scripted)).digest("hex").slice(0, 12)}`;
  const template =
    resolved.chatTemplate === undefined
      ? ""
      : `-template${createHash("sha256").update(resolved.chatTemplate).digest("hex").slice(0, 12)}`;
  const fileName =
    `spark-test-${resolved.architecture}-${resolved.shape}-${resolved.type}` +
    `-seed${resolved.seed}-ctx${resolved.contextLength}${resolved.endsTurns ? "-ends" : ""}` +
    `${resolved.fimTokens ? "-fim" : ""}${script}${template}` +
    `-v${testModelFormatVersion}.gguf`;
  const path = join(testModelDirectory, fileName);
  let pending = pendingWrites.get(path);
  if (pending === undefined) {
    pending = writeOnce(path, resolved);
    pendingWrites.set(path, pending);
    pending.catch(() => pendingWrites.delete(path));
  }
  return pending;
}
