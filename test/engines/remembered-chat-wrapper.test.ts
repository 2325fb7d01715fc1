// node-llama-cpp's chat wrapper choice remembered across opens, on real families' templates (the
// llama.cpp bundle's, in vocab-only GGUFs): where `auto` ends at the model's own Jinja template, a
// later open builds that wrapper without resolving, and renders exactly what `auto`'s did; where a
// specialized wrapper stands in for the template, nothing is remembered; a replaced model file or
// an unreadable record resolves again.
import { mkdtemp, readFile, rm, utimes, writeFile, copyFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  JinjaTemplateChatWrapper,
  resolveChatWrapper,
  type ChatHistoryItem,
  type ChatWrapper,
  type LlamaModel,
} from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelMemory } from "../../src/engines/llama-cpp/cache-folder-record.ts";
import { loadModel, type LoadedModel } from "../../src/engines/llama-cpp/load-model.ts";
import { modelFileIdentity } from "../../src/engines/llama-cpp/prefix-cache/prefix-cache-key.ts";
import {
  CHAT_WRAPPER_FILE,
  chatWrapperFor,
} from "../../src/engines/llama-cpp/remembered-chat-wrapper.ts";
import { chatFamilies, type ChatFamily } from "./support/chat-families.ts";
import { familyVocabGguf, llamaModelsFolder } from "./support/family-vocab-gguf.ts";

/** Two families whose templates no specialized wrapper renders alike, and one (Qwen's) that does. */
const TEMPLATE_FAMILIES = ["Mistral Small 3.2", "GLM-4.6"];
const SPECIALIZED_FAMILY = "Qwen2.5";

const history: ChatHistoryItem[] = [
  { type: "system", text: "You are a coding agent." },
  { type: "user", text: "List the files." },
  { type: "model", response: [] },
];
const functions = {
  list_files: {
    description: "Lists the files in a folder.",
    params: { type: "object", properties: { path: { type: "string" } } },
  },
} as const;

function rendered(wrapper: ChatWrapper): string {
  return wrapper
    .generateContextState({ chatHistory: history, availableFunctions: functions })
    .contextText.toString();
}

/** resolveChatWrapper's answer per model: the same for a model every time, and ~1 s of CPU each. */
const resolvedWrappers = new Map<LlamaModel, ChatWrapper>();

/** resolveChatWrapper, counting its calls (each model resolved once for the whole file). */
function countingResolver(): { resolve: (model: LlamaModel) => ChatWrapper; calls: () => number } {
  let calls = 0;
  return {
    resolve: (model) => {
      calls += 1;
      const resolved = resolvedWrappers.get(model) ?? resolveChatWrapper(model);
      resolvedWrappers.set(model, resolved);
      return resolved;
    },
    calls: () => calls,
  };
}

/** What an engine's open passes: the cache folder and the model file's identity, read afresh. */
function memory(path: string, cacheDirectory: string): ModelMemory {
  return { cacheDirectory, modelIdentity: modelFileIdentity(path) };
}

function family(name: string): ChatFamily {
  const found = chatFamilies.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no chat family named ${name}`);
  return found;
}

describe("the chat wrapper choice remembered in the cache folder", () => {
  let scratch: string;
  const opened = new Map<string, { path: string; loaded: LoadedModel }>();

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "spark-chat-wrapper-"));
    const names = [...TEMPLATE_FAMILIES, SPECIALIZED_FAMILY];
    const models = await llamaModelsFolder(names.map((name) => family(name).vocab));
    for (const name of names) {
      const { vocab, template, bosToken, eosToken } = family(name);
      const written = await familyVocabGguf({
        vocab: join(models, `ggml-vocab-${vocab}.gguf`),
        template: await readFile(join(models, "templates", template), "utf8"),
        bosToken,
        eosToken,
      });
      // A copy of its own: the tests change its time.
      const path = join(scratch, `${name.replace(/\W+/g, "-")}.gguf`);
      await copyFile(written, path);
      opened.set(name, {
        path,
        loaded: await loadModel(path, { gpu: false, vocabularyOnly: true }),
      });
    }
  }, 180_000);

  afterAll(async () => {
    for (const { loaded } of opened.values()) await loaded.model.dispose();
    await rm(scratch, { recursive: true, force: true });
  });

  function model(name: string): { path: string; model: LlamaModel } {
    const found = opened.get(name);
    if (found === undefined) throw new Error(`${name} was not opened`);
    return { path: found.path, model: found.loaded.model };
  }

  it.each(TEMPLATE_FAMILIES)(
    "%s: the second open builds the template's wrapper without resolving, and renders as auto's",
    async (name) => {
      const cache = await mkdtemp(join(scratch, "cache-"));
      const { path, model: llamaModel } = model(name);
      const first = countingResolver();
      const resolved = await chatWrapperFor(llamaModel, memory(path, cache), first.resolve);
      expect(first.calls()).toBe(1);
      expect(resolved.remembered).toBe(false);
      expect(resolved.chatWrapper).toBeInstanceOf(JinjaTemplateChatWrapper);
      await expect.poll(() => readFile(join(cache, CHAT_WRAPPER_FILE), "utf8")).toContain("jinja");

      const second = countingResolver();
      const remembered = await chatWrapperFor(llamaModel, memory(path, cache), second.resolve);
      expect(second.calls()).toBe(0);
      expect(remembered.remembered).toBe(true);
      expect(remembered.chatWrapper).toBeInstanceOf(JinjaTemplateChatWrapper);
      expect(rendered(remembered.chatWrapper)).toBe(rendered(resolved.chatWrapper));
      expect(rendered(remembered.chatWrapper)).toContain("list_files");
    },
  );

  it("remembers nothing where a specialized wrapper stands in for the template", async () => {
    const cache = await mkdtemp(join(scratch, "cache-"));
    const { path, model: llamaModel } = model(SPECIALIZED_FAMILY);
    for (let open = 0; open < 2; open++) {
      const resolver = countingResolver();
      const choice = await chatWrapperFor(llamaModel, memory(path, cache), resolver.resolve);
      expect(resolver.calls()).toBe(1);
      expect(choice.remembered).toBe(false);
      expect(choice.chatWrapper).not.toBeInstanceOf(JinjaTemplateChatWrapper);
    }
  });

  it("resolves again for a model file replaced under the same name, and past a corrupt record", async () => {
    const cache = await mkdtemp(join(scratch, "cache-"));
    const { path, model: llamaModel } = model(TEMPLATE_FAMILIES[1]!);
    await chatWrapperFor(llamaModel, memory(path, cache), countingResolver().resolve);
    await expect.poll(() => readFile(join(cache, CHAT_WRAPPER_FILE), "utf8")).toContain("jinja");

    const later = new Date(Date.now() + 60_000);
    await utimes(path, later, later);
    const replaced = countingResolver();
    expect(
      (await chatWrapperFor(llamaModel, memory(path, cache), replaced.resolve)).remembered,
    ).toBe(false);
    expect(replaced.calls()).toBe(1);
    // Its write (off the open's path) lands first: the new identity beside the old one.
    const remembered = async (): Promise<number> =>
      (
        JSON.parse(await readFile(join(cache, CHAT_WRAPPER_FILE), "utf8")) as {
          jinjaTemplateModels: unknown[];
        }
      ).jinjaTemplateModels.length;
    await expect.poll(remembered).toBe(2);

    await writeFile(join(cache, CHAT_WRAPPER_FILE), '{"version":1,"models":[{"key"');
    const corrupt = countingResolver();
    const choice = await chatWrapperFor(llamaModel, memory(path, cache), corrupt.resolve);
    expect(corrupt.calls()).toBe(1);
    expect(choice.chatWrapper).toBeInstanceOf(JinjaTemplateChatWrapper);
    // Written again whole: the next open is remembered.
    await expect
      .poll(
        async () =>
          (await chatWrapperFor(llamaModel, memory(path, cache), corrupt.resolve)).remembered,
      )
      .toBe(true);
  });

  it("always resolves without a cache folder", async () => {
    const { model: llamaModel } = model(TEMPLATE_FAMILIES[1]!);
    const resolver = countingResolver();
    await chatWrapperFor(llamaModel, undefined, resolver.resolve);
    await chatWrapperFor(llamaModel, undefined, resolver.resolve);
    expect(resolver.calls()).toBe(2);
  });
});
