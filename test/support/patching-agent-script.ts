// A coding agent's three turns as a turn-scripted test model writes them in Qwen3-Coder's own
// format (per-argument XML calls): read src/add.ts, then apply_patch fixing its bug, then a final
// answer. Turn 2 starts once the file's text (marker `addNumbers`) is in the context, turn 3 once
// apply_patch's result (`Patch applied:`) is. The calls are split into several tokens, so their
// arguments stream in pieces.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ScriptedTurns } from "../../src/engines/llama-cpp/gguf/scripted-turns.ts";
import { chatFamilies } from "../engines/support/chat-families.ts";
import { llamaModelsFolder } from "../engines/support/family-vocab-gguf.ts";
import { ensureTestModel } from "./test-model.ts";

export const BUGGY_FILE = "export const addNumbers = (a, b) => a - b;\n";
export const FIXED_FILE = "export const addNumbers = (a, b) => a + b;\n";
export const PATCH =
  "*** Begin Patch\n*** Update File: src/add.ts\n@@\n" +
  "-export const addNumbers = (a, b) => a - b;\n+export const addNumbers = (a, b) => a + b;\n" +
  "*** End Patch";
export const FINAL_ANSWER = "Fixed: addNumbers now adds.";

export const qwen3CoderPatchingTurns: ScriptedTurns = [
  {
    tokens: [
      "\n",
      "<tool_call>",
      "\n<function=read_file>\n<parameter=path>\n",
      "src/add.ts",
      "\n</parameter>\n</function>\n",
      "</tool_call>",
      "<|im_end|>",
    ],
  },
  {
    marker: "addNumbers",
    tokens: [
      "\n",
      "<tool_call>",
      "\n<function=apply_patch>\n<parameter=patch>\n",
      "*** Begin Patch\n",
      "*** Update File: src/add.ts\n@@\n",
      "-export const addNumbers = (a, b) => a - b;\n",
      "+export const addNumbers = (a, b) => a + b;\n",
      "*** End Patch",
      "\n</parameter>\n</function>\n",
      "</tool_call>",
      "<|im_end|>",
    ],
  },
  {
    marker: "Patch applied:",
    tokens: ["\n", "Fixed: ", "addNumbers now", " adds.", "<|im_end|>"],
  },
];

/** The model file: Qwen3-Coder's real template (from the bundled llama.cpp source), the script,
 * and a trained context long enough for the agent's byte-tokenized system prompt and tools. */
export async function ensureQwen3CoderPatchingModel(): Promise<string> {
  const family = chatFamilies.find((candidate) => candidate.name === "Qwen3-Coder");
  if (family === undefined) throw new Error("chat-families.ts lost Qwen3-Coder");
  const folder = await llamaModelsFolder([family.vocab]);
  const template = await readFile(join(folder, "templates", family.template), "utf8");
  return ensureTestModel({
    turns: qwen3CoderPatchingTurns,
    chatTemplate: template,
    contextLength: 32768,
  });
}
