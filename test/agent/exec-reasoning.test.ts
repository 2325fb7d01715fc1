// The agent never shows a model's reasoning as its answer: `spark exec` on a scripted model that
// reasons first, in process and through `spark serve` (Responses reasoning items), prints only
// the answer's text.
import { afterEach, describe, expect, it } from "vitest";
import { startSparkServe } from "../clients/support/spark-serve-process.ts";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { script, spark } from "./support/spark-exec.ts";

const THOUGHT = "HIDDEN-THOUGHT: the user greets me, a short answer will do.";
const turns = [{ reasoning: THOUGHT, text: "Hello there." }];

let workspace: AgentWorkspace;
afterEach(() => workspace.remove());

describe("spark exec with a reasoning model", () => {
  it("prints the answer without the reasoning, in process", async () => {
    workspace = createAgentWorkspace();
    const model = script(workspace, "reasoning.jsonl", turns);
    const run = await spark(workspace, ["exec", "--json", "--model", `script:${model}`, "Hi"]);
    expect(run.code).toBe(0);
    const text = run.events.map((event) => (event.type === "text-delta" ? event.text : ""));
    expect(text.join("")).toBe("Hello there.");
    expect(JSON.stringify(run.events)).not.toContain("HIDDEN-THOUGHT");
  });

  it("prints the answer without the reasoning, through spark serve", async () => {
    workspace = createAgentWorkspace();
    const model = script(workspace, "reasoning.jsonl", turns);
    const server = await startSparkServe(
      `default_model = "replay"\n[models.replay]\nengine = "script"\npath = ${JSON.stringify(model)}\n`,
    );
    try {
      const run = await spark(workspace, [
        "exec",
        "--json",
        "--server",
        server.url,
        "--model",
        "replay",
        "Hi",
      ]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const text = run.events.map((event) => (event.type === "text-delta" ? event.text : ""));
      expect(text.join("")).toBe("Hello there.");
      expect(JSON.stringify(run.events)).not.toContain("HIDDEN-THOUGHT");
    } finally {
      await server.stop();
    }
  });
});
