// A coding agent's three turns as a turn-scripted test model writes them in a family's own call
// format (Qwen3-Coder's per-argument XML, Llama 3.1's JSON): read src/add.ts, then apply_patch
// fixing its bug, then a final answer. Turn 2 starts once the file's text (marker `addNumbers`) is
// in the context, turn 3 once apply_patch's result (`Patch applied:`) is. The calls are split into
// several tokens, so their arguments stream in pieces.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type {
  ScriptedTurn,
  ScriptedTurns,
} from "../../src/engines/llama-cpp/gguf/scripted-turns.ts";
import { chatFamilies } from "../engines/support/chat-families.ts";
import { llamaModelsFolder } from "../engines/support/family-vocab-gguf.ts";
import type { TestModelShapeName } from "../../src/engines/llama-cpp/gguf/test-model-shapes.ts";
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

/** Llama 3.1's calls: a JSON object after the assistant header, no marker around it. */
export const llama31PatchingTurns: ScriptedTurns = [
  {
    tokens: ["\n", '{"name": "read_file", ', '"parameters": {"path": "src/add.ts"}}', "<|im_end|>"],
  },
  {
    marker: "addNumbers",
    tokens: [
      "\n",
      '{"name": "apply_patch", ',
      '"parameters": {"patch": "',
      "*** Begin Patch\\n",
      "*** Update File: src/add.ts\\n@@\\n",
      "-export const addNumbers = (a, b) => a - b;\\n",
      "+export const addNumbers = (a, b) => a + b;\\n",
      "*** End Patch",
      '"}}',
      "<|im_end|>",
    ],
  },
  qwen3CoderPatchingTurns[2] as ScriptedTurn,
];

export const patchingFamilies = {
  "Qwen3-Coder": qwen3CoderPatchingTurns,
  "Llama 3.1": llama31PatchingTurns,
} as const;

/** The model file: the family's real template (from the bundled llama.cpp source), its script,
 * and a trained context long enough for the agent's byte-tokenized system prompt and tools.
 * `shape`: the script works on any untied one; micro prefills a long prompt fastest. */
export async function ensurePatchingModel(
  name: keyof typeof patchingFamilies = "Qwen3-Coder",
  shape: TestModelShapeName = "tiny",
): Promise<string> {
  const family = chatFamilies.find((candidate) => candidate.name === name);
  if (family === undefined) throw new Error(`chat-families.ts lost ${name}`);
  const folder = await llamaModelsFolder([family.vocab]);
  const template = await readFile(join(folder, "templates", family.template), "utf8");
  return ensureTestModel({
    shape,
    turns: patchingFamilies[name],
    chatTemplate: template,
    contextLength: 32768,
  });
}

export const ensureQwen3CoderPatchingModel = (): Promise<string> =>
  ensurePatchingModel("Qwen3-Coder");
