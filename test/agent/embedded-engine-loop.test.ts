// The loop with a real Engine: the embedded llama.cpp engine on the project's tiny random-weight
// model. Its text is noise, so this checks only what must hold for any model: the turn ends
// cleanly, usage is counted, and every tool call it made got a result.
import { afterAll, describe, expect, it } from "vitest";
import { AgentSession, type AgentSessionOptions } from "../../src/agent/agent-session.ts";
import type { AgentEvent } from "../../src/agent/agent-events.ts";
import { InProcessModelClient } from "../../src/agent/model-client/in-process-model-client.ts";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import type { Engine } from "../../src/engines/engine.ts";
import { readFileTool } from "../../src/agent/tools/read-file-tool.ts";
import { ToolRegistry } from "../../src/agent/tools/tool-registry.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { createAgentWorkspace, eventsOfType } from "./support/agent-workspace.ts";

describe("agent loop on the embedded engine", () => {
  let engine: Engine | undefined;
  const workspace = createAgentWorkspace();
  afterAll(async () => {
    await engine?.dispose();
    workspace.remove();
  });

  /** A session on the shared engine; the tiny model's byte-level tokenizer makes every tool
   * schema costly, so one tool is all that fits its 4096-token window. */
  async function startSession(
    options: Partial<AgentSessionOptions>,
  ): Promise<{ session: AgentSession; events: AgentEvent[] }> {
    engine ??= await createLlamaCppEngine({
      modelPath: await ensureTestModel(),
      threads: 1,
      sequences: 1,
      contextSize: 4096,
    });
    const session = await AgentSession.create({
      client: new InProcessModelClient(engine),
      workspaceRoot: workspace.root,
      sessionsDirectory: workspace.sessionsDirectory,
      instructions: "You are Spark.",
      maxSteps: 2,
      contextWindowTokens: 4096,
      registry: new ToolRegistry([readFileTool]),
      ...options,
    });
    const events: AgentEvent[] = [];
    session.subscribe((event) => events.push(event));
    return { session, events };
  }

  it("completes a grammar-constrained read_file call through the agent", async () => {
    workspace.write("b.txt", "beta\n");
    const { session, events } = await startSession({
      // The noise model never chooses a tool itself; a required first call is sampled under the
      // grammar built from read_file's schema, so it must parse and validate.
      firstStepToolChoice: "required",
      // Room for the noise model to close its path string (~160 tokens at temperature 0).
      sampling: { maxOutputTokens: 400, temperature: 0 },
    });
    await session.submit("Read b.txt.");
    const calls = eventsOfType(events, "tool-call");
    expect(calls[0]?.name).toBe("read_file");
    const results = eventsOfType(events, "tool-result");
    expect(results[0]?.callId).toBe(calls[0]?.callId);
    // The path is noise, so the file is usually missing: the error went back to the model as a result.
    expect(typeof results[0]?.output).toBe("string");
    await session.close();
  });

  it("ends the turn cleanly, whatever the model says", async () => {
    workspace.write("a.txt", "alpha\n");
    const { session, events } = await startSession({
      sampling: { maxOutputTokens: 12, temperature: 0 },
    });
    const result = await session.submit("Read a.txt.");
    expect(result.error?.message).toBeUndefined();
    expect(["completed", "max_steps"]).toContain(result.reason);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(eventsOfType(events, "budget")[0]?.windowTokens).toBe(4096);
    const calls = session.transcript.flatMap((message) =>
      message.role === "assistant" ? (message.toolCalls ?? []) : [],
    );
    const results = new Set(
      session.transcript.flatMap((message) =>
        message.role === "tool" ? [message.toolCallId] : [],
      ),
    );
    for (const call of calls) expect(results.has(call.id)).toBe(true);
    await session.close();
  });
});
