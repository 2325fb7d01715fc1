// `spark exec --resume last` in a fresh process: the finished session's conversation comes from the
// prefix cache on disk, so only the new message (and the template's tokens around it) is computed,
// and the answer is the one a process with the cache off gives.
import { cpSync, existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/agent-events.ts";
import type { Usage } from "../../src/engines/engine.ts";
import { loadChatFormatAddon } from "../../src/engines/llama-cpp/chat-format/chat-format-addon.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { BUGGY_FILE, FIXED_FILE, ensurePatchingModel } from "../support/patching-agent-script.ts";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { spark } from "./support/spark-exec.ts";

const ready = existsSync(defaultAddonPath) && loadChatFormatAddon().addon !== undefined;

let workspace: AgentWorkspace | undefined;
afterEach(() => workspace?.remove());

function finished(events: AgentEvent[]): { usage: Usage; firstTokenMs: number | undefined } {
  const last = events.at(-1);
  if (last?.type !== "turn-finished") throw new Error("the turn did not finish");
  return { usage: last.usage, firstTokenMs: last.timings.timeToFirstTokenMs ?? undefined };
}

function text(events: AgentEvent[]): string {
  return events.map((event) => (event.type === "text-delta" ? event.text : "")).join("");
}

function config(modelPath: string, cacheEnabled: boolean): string {
  return (
    `[cache]\nenabled = ${String(cacheEnabled)}\n` +
    `[models.coder]\nengine = "llama-cpp"\npath = ${JSON.stringify(modelPath)}\n` +
    "threads = 1\nsequences = 1\n"
  );
}

describe.skipIf(!ready)("spark exec --resume with the prefix cache on disk", () => {
  it(
    "a resumed session loads its conversation from disk and computes only the new message",
    { timeout: 300_000 },
    async () => {
      workspace = createAgentWorkspace();
      workspace.write("src/add.ts", BUGGY_FILE);
      // The script's last turn (its final answer) follows any message once the patch is applied.
      const modelPath = await ensurePatchingModel("Qwen3-Coder", "micro");
      const home = path.dirname(workspace.sessionsDirectory);
      writeFileSync(path.join(home, "config.toml"), config(modelPath, true));
      const first = await spark(workspace, [
        "exec",
        "--json",
        "--model",
        "coder",
        "Fix the bug in src/add.ts.",
      ]);
      expect(first.code, first.stderr).toBe(0);
      expect(workspace.read("src/add.ts")).toBe(FIXED_FILE);

      // The same session resumed from a copy of this home with the cache off: the reference.
      const uncachedHome = `${home}-uncached`;
      cpSync(path.join(home, "sessions"), path.join(uncachedHome, "sessions"), {
        recursive: true,
      });
      writeFileSync(path.join(uncachedHome, "config.toml"), config(modelPath, false));
      const resumeArgs = ["exec", "--json", "--resume", "last", "--model", "coder", "Thanks."];
      const uncached = await spark(workspace, resumeArgs, undefined, { SPARK_HOME: uncachedHome });
      expect(uncached.code, uncached.stderr).toBe(0);
      const resumed = await spark(workspace, resumeArgs);
      expect(resumed.code, resumed.stderr).toBe(0);

      const cold = finished(uncached.events);
      const warm = finished(resumed.events);
      const computed = (usage: Usage): number => usage.inputTokens - usage.cachedInputTokens;
      console.log(
        `resume: prompt ${warm.usage.inputTokens} tokens; cache on: ` +
          `${String(warm.usage.diskCachedInputTokens)} from disk, ${computed(warm.usage)} computed, ` +
          `first token ${String(warm.firstTokenMs)} ms; cache off: ${computed(cold.usage)} computed, ` +
          `first token ${String(cold.firstTokenMs)} ms`,
      );
      expect(text(resumed.events)).toBe(text(uncached.events));
      expect(text(resumed.events)).toContain("Fixed: addNumbers now adds.");
      expect(warm.usage.inputTokens).toBe(cold.usage.inputTokens);
      expect(cold.usage.diskCachedInputTokens).toBeUndefined();
      expect(computed(cold.usage)).toBe(cold.usage.inputTokens);
      // One step (the final answer): everything before "Thanks." came from disk.
      expect(warm.usage.diskCachedInputTokens).toBeGreaterThan(0.9 * warm.usage.inputTokens);
      expect(computed(warm.usage)).toBeLessThan(64);
    },
  );
});
