// node-llama-cpp's chat wrapper for a model, its choice remembered across processes: `auto` renders
// the GGUF's Jinja template against every specialized wrapper that might stand in for it, and on
// most families' real templates none does, after 0.6–3.6 s of JavaScript on every open. When that
// is how it ended (the model's own template), the cache folder remembers it under the model file's
// identity and node-llama-cpp's version, and a later open builds the template's wrapper at once.
import { join } from "node:path";
import {
  JinjaTemplateChatWrapper,
  resolveChatWrapper,
  type ChatWrapper,
  type LlamaModel,
} from "node-llama-cpp";
import {
  modelRecordKey,
  readCacheRecord,
  writeCacheRecord,
  type ModelMemory,
} from "./cache-folder-record.ts";

/** The record's file in the cache folder (beside llama-backend.json and prefix/). */
export const CHAT_WRAPPER_FILE = "chat-wrappers.json";
const RECORD_VERSION = 2;
/** Models remembered at most; the earliest remembered are forgotten first. */
const MAXIMUM_MODELS = 64;

/** Keys of the models whose `auto` choice was their own Jinja template, newest first. */
interface ChatWrapperRecord {
  version: number;
  jinjaTemplateModels: string[];
}

export interface ChatWrapperChoice {
  chatWrapper: ChatWrapper;
  /** True when the remembered choice was built instead of resolving again. */
  remembered: boolean;
}

/**
 * `resolveChatWrapper(model)`, or the template's wrapper built directly where a previous open
 * found that `auto` ends there. Without a memory (the cache off) it always resolves. `resolve` is
 * the resolver (a seam for the test that counts its calls).
 */
export async function chatWrapperFor(
  model: LlamaModel,
  memory: ModelMemory | undefined,
  resolve: (model: LlamaModel) => ChatWrapper = resolveChatWrapper,
): Promise<ChatWrapperChoice> {
  const template = model.fileInfo.metadata?.tokenizer?.chat_template;
  if (memory === undefined || typeof template !== "string" || template.trim() === "")
    return { chatWrapper: resolve(model), remembered: false };
  const key = await modelRecordKey(memory.modelIdentity);
  if (key === undefined) return { chatWrapper: resolve(model), remembered: false };
  const path = join(memory.cacheDirectory, CHAT_WRAPPER_FILE);
  const remembered = await readRecord(path);
  if (remembered.includes(key)) {
    try {
      const chatWrapper = new JinjaTemplateChatWrapper({ tokenizer: model.tokenizer, template });
      return { chatWrapper, remembered: true };
    } catch {
      // The template no longer builds as it did: resolve as if nothing were remembered.
    }
  }
  const chatWrapper = resolve(model);
  if (chatWrapper instanceof JinjaTemplateChatWrapper && !remembered.includes(key)) {
    const record: ChatWrapperRecord = {
      version: RECORD_VERSION,
      jinjaTemplateModels: [key, ...remembered].slice(0, MAXIMUM_MODELS),
    };
    // Off the open's path; not remembered when it cannot be written: the next open resolves.
    void writeCacheRecord(path, record).catch(() => undefined);
  }
  return { chatWrapper, remembered: false };
}

/** The remembered keys, or none when the record is missing, unreadable or of another version. */
async function readRecord(path: string): Promise<string[]> {
  const parsed = (await readCacheRecord(path)) as Partial<ChatWrapperRecord> | undefined;
  if (parsed?.version !== RECORD_VERSION || !Array.isArray(parsed.jinjaTemplateModels)) return [];
  return parsed.jinjaTemplateModels.filter((key): key is string => typeof key === "string");
}
