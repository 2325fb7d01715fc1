// The real `spark exec` twice on one machine (one SPARK_HOME): the second process loads the agent's
// system prompt, tools and conversation from the prefix cache on disk instead of computing them,
// and does exactly what the first did; `spark doctor` then shows the cache's entries and hit rate.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/agent-events.ts";
import type { DoctorReport } from "../../src/cli/doctor/doctor-report.ts";
import { loadChatFormatAddon } from "../../src/engines/llama-cpp/chat-format/chat-format-addon.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import type { Usage } from "../../src/engines/engine.ts";
import { BUGGY_FILE, FIXED_FILE, ensurePatchingModel } from "../support/patching-agent-script.ts";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { spark, sparkText } from "./support/spark-exec.ts";

const ready = existsSync(defaultAddonPath) && loadChatFormatAddon().addon !== undefined;

let workspace: AgentWorkspace | undefined;
afterEach(() => workspace?.remove());

/** What the agent did, to compare two runs: its calls, their results and its text. */
function transcript(events: AgentEvent[]): unknown[] {
  return events.flatMap((event): unknown[] => {
    switch (event.type) {
      case "tool-call":
        return [[event.name, event.arguments]];
      case "tool-result":
        return [[event.isError, event.output]];
      case "text-delta":
        return [event.text];
      default:
        return [];
    }
  });
}

function turnUsage(events: AgentEvent[]): Usage {
  const finished = events.at(-1);
  if (finished?.type !== "turn-finished") throw new Error("the turn did not finish");
  return finished.usage;
}

describe.skipIf(!ready)("spark exec with the prefix cache on disk", () => {
  it(
    "a second run starts from the first one's prompt on disk and does the same",
    { timeout: 300_000 },
    async () => {
      workspace = createAgentWorkspace();
      workspace.write("src/add.ts", BUGGY_FILE);
      // micro: one narrow layer prefills the agent's ~6,600-token prompt fastest; the cache's
      // entries and the script's turns are the same on any shape.
      const modelPath = await ensurePatchingModel("Qwen3-Coder", "micro");
      const home = path.dirname(workspace.sessionsDirectory);
      writeFileSync(
        path.join(home, "config.toml"),
        `[models.coder]\nengine = "llama-cpp"\npath = ${JSON.stringify(modelPath)}\n` +
          "threads = 1\nsequences = 1\n",
      );
      const args = ["exec", "--json", "--model", "coder", "Fix the bug in src/add.ts."];
      const first = await spark(workspace, args);
      expect(first.code, first.stderr).toBe(0);
      expect(workspace.read("src/add.ts")).toBe(FIXED_FILE);
      const cold = turnUsage(first.events);
      expect(cold.diskCachedInputTokens).toBeUndefined();
      expect(existsSync(path.join(home, "cache", "prefix"))).toBe(true);

      workspace.write("src/add.ts", BUGGY_FILE);
      const second = await spark(workspace, args);
      expect(second.code, second.stderr).toBe(0);
      expect(workspace.read("src/add.ts")).toBe(FIXED_FILE);
      expect(transcript(second.events)).toEqual(transcript(first.events));
      const warm = turnUsage(second.events);
      expect(warm.inputTokens).toBe(cold.inputTokens);
      // The first step's whole prompt came from disk; the later steps continue it in memory.
      expect(warm.diskCachedInputTokens).toBeGreaterThan((0.5 * cold.inputTokens) / 3);
      const computed = (usage: Usage): number => usage.inputTokens - usage.cachedInputTokens;
      expect(computed(warm)).toBeLessThan(computed(cold) / 3);

      const doctor = await sparkText(workspace, ["doctor", "--json", "--offline"]);
      const report = JSON.parse(doctor.stdout) as DoctorReport;
      expect(report.prefixCache).toMatchObject({
        enabled: true,
        directory: path.join(home, "cache"),
      });
      expect(report.prefixCache?.entries).toBeGreaterThan(0);
      expect(report.prefixCache?.hitRate).toBeGreaterThan(0);
    },
  );
});
