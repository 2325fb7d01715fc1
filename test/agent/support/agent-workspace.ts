// Test helper: a temporary git-like workspace, a sessions folder, and an AgentSession driven by
// the scripted engine, with every event it emits collected in order.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AgentSession, type AgentSessionOptions } from "../../../src/agent/agent-session.ts";
import type { AgentEvent } from "../../../src/agent/agent-events.ts";
import { InProcessModelClient } from "../../../src/agent/model-client/in-process-model-client.ts";
import {
  createScriptEngine,
  type ScriptEngine,
} from "../../../src/engines/script/script-engine.ts";
import type { ScriptTurnInput } from "../../../src/engines/script/script-turn.ts";

export interface AgentWorkspace {
  root: string;
  sessionsDirectory: string;
  write(relativePath: string, content: string): void;
  read(relativePath: string): string;
  remove(): void;
}

/** `parentDirectory`: where the temporary folder goes (default: the system's temp folder). */
export function createAgentWorkspace(parentDirectory = os.tmpdir()): AgentWorkspace {
  mkdirSync(parentDirectory, { recursive: true });
  const base = realpathSync(mkdtempSync(path.join(parentDirectory, "spark-agent-")));
  const root = path.join(base, "repo");
  mkdirSync(path.join(root, ".git"), { recursive: true });
  mkdirSync(path.join(base, "home"));
  const write = (relativePath: string, content: string): void => {
    const absolute = path.join(root, relativePath);
    mkdirSync(path.dirname(absolute), { recursive: true });
    writeFileSync(absolute, content);
  };
  return {
    root,
    sessionsDirectory: path.join(base, "home", "sessions"),
    write,
    read: (relativePath) => readFileSync(path.join(root, relativePath), "utf8"),
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}

export interface ScriptedSession {
  session: AgentSession;
  engine: ScriptEngine;
  events: AgentEvent[];
}

export async function startScriptedSession(
  workspace: AgentWorkspace,
  turns: ScriptTurnInput[],
  options: Partial<AgentSessionOptions> & { resumeFrom?: string } = {},
): Promise<ScriptedSession> {
  const engine = await createScriptEngine({ turns });
  const sessionOptions: AgentSessionOptions = {
    client: new InProcessModelClient(engine),
    workspaceRoot: workspace.root,
    sessionsDirectory: workspace.sessionsDirectory,
    instructions: "You are Spark, in a test.",
    ...options,
  };
  const session =
    options.resumeFrom === undefined
      ? await AgentSession.create(sessionOptions)
      : await AgentSession.resume(options.resumeFrom, sessionOptions);
  const events: AgentEvent[] = [];
  session.subscribe((event) => events.push(event));
  return { session, engine, events };
}

export function eventsOfType<Type extends AgentEvent["type"]>(
  events: readonly AgentEvent[],
  type: Type,
): Extract<AgentEvent, { type: Type }>[] {
  return events.filter(
    (event): event is Extract<AgentEvent, { type: Type }> => event.type === type,
  );
}
