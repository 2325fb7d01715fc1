// node-llama-cpp's chat wrapper for a model, its choice remembered across processes: `auto` renders
// the GGUF's Jinja template against every specialized wrapper that might stand in for it, and on
// most families' real templates none does, after 0.6–3.6 s of JavaScript on every open. When that
// is how it ended (the model's own template), the cache folder remembers it under the model file's
// identity and node-llama-cpp's version, and a later open builds the template's wrapper at once.
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  JinjaTemplateChatWrapper,
  resolveChatWrapper,
  type ChatWrapper,
  type LlamaModel,
} from "node-llama-cpp";
import { modelFileIdentity } from "./prefix-cache/prefix-cache-key.ts";
import { nodeLlamaCppVersion } from "./remembered-gpu-refusal.ts";

/** The record's file in the cache folder (beside llama-backend.json and prefix/). */
export const CHAT_WRAPPER_FILE = "chat-wrappers.json";
const RECORD_VERSION = 1;
/** Models remembered at most; the least recently opened are forgotten first. */
const MAXIMUM_ENTRIES = 64;

interface RememberedModel {
  key: string;
  /** What `auto` chose: the model's own Jinja template (nothing else is remembered). */
  wrapper: "jinja-template";
  usedAt: number;
}

interface ChatWrapperRecord {
  version: number;
  models: RememberedModel[];
}

export interface ChatWrapperChoice {
  chatWrapper: ChatWrapper;
  /** True when the remembered choice was built instead of resolving again. */
  remembered: boolean;
}

/**
 * `resolveChatWrapper(model)`, or the template's wrapper built directly where a previous open
 * found that `auto` ends there. Without a cache folder it always resolves. `resolve` is the
 * resolver (a seam for the test that counts its calls).
 */
export async function chatWrapperFor(
  model: LlamaModel,
  modelPath: string,
  cacheDirectory: string | undefined,
  resolve: (model: LlamaModel) => ChatWrapper = resolveChatWrapper,
): Promise<ChatWrapperChoice> {
  const template = model.fileInfo.metadata?.tokenizer?.chat_template;
  if (cacheDirectory === undefined || typeof template !== "string" || template.trim() === "")
    return { chatWrapper: resolve(model), remembered: false };
  const key = await chatWrapperKey(modelPath).catch(() => undefined);
  if (key === undefined) return { chatWrapper: resolve(model), remembered: false };
  const record = await readRecord(cacheDirectory);
  if (record.models.some((entry) => entry.key === key)) {
    try {
      const chatWrapper = new JinjaTemplateChatWrapper({ tokenizer: model.tokenizer, template });
      void writeRecord(cacheDirectory, touch(record, key));
      return { chatWrapper, remembered: true };
    } catch {
      // The template no longer builds as it did: resolve as if nothing were remembered.
    }
  }
  const chatWrapper = resolve(model);
  if (chatWrapper instanceof JinjaTemplateChatWrapper)
    void writeRecord(cacheDirectory, touch(record, key));
  return { chatWrapper, remembered: false };
}

/** The model file's identity (path, size, time, first MiB) and the resolver's version. */
async function chatWrapperKey(modelPath: string): Promise<string | undefined> {
  const [version, identity] = await Promise.all([
    nodeLlamaCppVersion(),
    modelFileIdentity(modelPath),
  ]);
  if (version === undefined) return undefined;
  return createHash("sha256").update(`${version}\n${identity}`).digest("hex");
}

function touch(record: ChatWrapperRecord, key: string): ChatWrapperRecord {
  const others = record.models.filter((entry) => entry.key !== key);
  const models = [{ key, wrapper: "jinja-template" as const, usedAt: Date.now() }, ...others];
  return { version: RECORD_VERSION, models: models.slice(0, MAXIMUM_ENTRIES) };
}

/** The record, or an empty one when it is missing, unreadable or of another version. */
async function readRecord(cacheDirectory: string): Promise<ChatWrapperRecord> {
  const empty: ChatWrapperRecord = { version: RECORD_VERSION, models: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(join(cacheDirectory, CHAT_WRAPPER_FILE), "utf8"));
  } catch {
    return empty;
  }
  if (typeof parsed !== "object" || parsed === null) return empty;
  const { version, models } = parsed as Partial<ChatWrapperRecord>;
  if (version !== RECORD_VERSION || !Array.isArray(models)) return empty;
  const valid = models.filter(
    (entry): entry is RememberedModel =>
      typeof entry === "object" &&
      entry !== null &&
      typeof entry.key === "string" &&
      entry.wrapper === "jinja-template" &&
      typeof entry.usedAt === "number",
  );
  return { version: RECORD_VERSION, models: valid };
}

/** Writes atomically (a reader sees the old file or the new one); never throws. */
async function writeRecord(cacheDirectory: string, record: ChatWrapperRecord): Promise<void> {
  try {
    await mkdir(cacheDirectory, { recursive: true });
    const path = join(cacheDirectory, CHAT_WRAPPER_FILE);
    const partial = `${path}.${process.pid}.${Date.now()}.partial`;
    await writeFile(partial, JSON.stringify(record));
    await rename(partial, path);
  } catch {
    // Not remembered: the next open resolves again.
  }
}
