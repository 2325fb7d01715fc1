// The real `spark exec` on the embedded engine with models that speak non-Hermes dialects
// (Qwen3-Coder's per-argument XML calls, Llama 3.1's JSON, each with its real template): a
// turn-scripted model reads a file, applies a patch and answers, each call parsed by llama.cpp's
// own parser and run by the agent.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadChatFormatAddon } from "../../src/engines/llama-cpp/chat-format/chat-format-addon.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import {
  BUGGY_FILE,
  FINAL_ANSWER,
  FIXED_FILE,
  PATCH,
  ensurePatchingModel,
  patchingFamilies,
} from "../support/patching-agent-script.ts";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { spark } from "./support/spark-exec.ts";

const ready = existsSync(defaultAddonPath) && loadChatFormatAddon().addon !== undefined;

let workspace: AgentWorkspace | undefined;
afterEach(() => workspace?.remove());

const families = Object.keys(patchingFamilies) as (keyof typeof patchingFamilies)[];

describe.skipIf(!ready).each(families)("spark exec on a %s model (chat format)", (family) => {
  it(
    "reads the file, applies the patch in the model's own call syntax, and answers",
    { timeout: 240_000 },
    async () => {
      workspace = createAgentWorkspace();
      workspace.write("src/add.ts", BUGGY_FILE);
      // micro: the script lives in block 0 at any shape, and one narrow layer prefills the
      // agent's byte-tokenized system prompt and tools in a fraction of tiny's time.
      const modelPath = await ensurePatchingModel(family, "micro");
      writeFileSync(
        path.join(path.dirname(workspace.sessionsDirectory), "config.toml"),
        `[models.coder]\nengine = "llama-cpp"\npath = ${JSON.stringify(modelPath)}\n` +
          "threads = 1\nsequences = 1\n",
      );
      const run = await spark(workspace, [
        "exec",
        "--json",
        "--model",
        "coder",
        "Fix the bug in src/add.ts.",
      ]);
      expect(run.code, run.stderr).toBe(0);
      const calls = run.events.flatMap((event) =>
        event.type === "tool-call"
          ? [{ name: event.name, arguments: JSON.parse(event.arguments) as unknown }]
          : [],
      );
      expect(calls).toEqual([
        { name: "read_file", arguments: { path: "src/add.ts" } },
        { name: "apply_patch", arguments: { patch: PATCH } },
      ]);
      const results = run.events.flatMap((event) =>
        event.type === "tool-result" ? [{ isError: event.isError, output: event.output }] : [],
      );
      expect(results[0]).toEqual({ isError: false, output: `1\t${BUGGY_FILE.trimEnd()}` });
      expect(results[1]?.isError).toBe(false);
      expect(results[1]?.output).toMatch(/^Patch applied:\nM src\/add\.ts/);
      expect(workspace.read("src/add.ts")).toBe(FIXED_FILE);
      const text = run.events.map((event) => (event.type === "text-delta" ? event.text : ""));
      expect(text.join("")).toBe(FINAL_ANSWER);
    },
  );
});
