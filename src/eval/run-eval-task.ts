// One run of one task on one model: a fresh copy of the task's repository, a real AgentSession on
// the model (the same agent `spark exec` runs), the task's prompt as one turn under a deadline,
// then the task's check. Whatever goes wrong is recorded in the run; nothing here throws.
import { AgentSession } from "../agent/agent-session.ts";
import type { AgentEvent } from "../agent/agent-events.ts";
import type { ModelClient } from "../agent/model-client/model-client.ts";
import type { CommandSandbox } from "../agent/sandbox/command-sandbox.ts";
import { SparkError } from "../protocol/spark-error.ts";
import { decodeTokensPerSecond, type EvalOutcome, type EvalRun } from "./eval-report.ts";
import type { EvalTask } from "./eval-task.ts";
import { runTaskCheck } from "./run-task-check.ts";
import { createTaskWorkspace } from "./task-workspace.ts";

/** A check is a few node asserts; longer means it hangs. */
const CHECK_TIMEOUT_MS = 30_000;

/** A model ready for one session, and how to let it go afterwards. */
export interface EvalModelSession {
  client: ModelClient;
  /** The model name the session asks its client for (undefined: the client's default). */
  name: string | undefined;
  contextWindowTokens?: number;
  close(): Promise<void>;
}

export interface EvalRunInput {
  task: EvalTask;
  /** The model as the user named it (the report's key). */
  model: string;
  attempt: number;
  openModel: () => Promise<EvalModelSession>;
  timeoutMs: number;
  maxSteps?: number;
  /** Let the agent run any command (otherwise only commands the prompt names exactly). */
  allowCommands: boolean;
  /** What the agent's commands run inside; default: bubblewrap where it works, no network. */
  commandSandbox?: CommandSandbox;
  /** Ctrl-C: interrupts the turn or the check, and the run is recorded as interrupted. */
  signal: AbortSignal;
}

export async function runEvalTask(input: EvalRunInput): Promise<EvalRun> {
  const run: EvalRun = {
    model: input.model,
    task: input.task.name,
    attempt: input.attempt,
    outcome: "error",
    durationMs: 0,
    timeToFirstTokenMs: null,
    modelMs: 0,
    inputTokens: 0,
    outputTokens: 0,
    decodeMs: 0,
    decodeTokens: 0,
    decodeTokensPerSecond: null,
    steps: 0,
    turnReason: null,
    routes: [],
  };
  let workspace: Awaited<ReturnType<typeof createTaskWorkspace>> | undefined;
  let opened: EvalModelSession | undefined;
  try {
    workspace = await createTaskWorkspace(input.task);
    opened = await input.openModel();
    const timedOut = await runTurn(input, opened, workspace, run);
    if (timedOut || input.signal.aborted) {
      run.outcome = input.signal.aborted ? "interrupted" : "timeout";
      return run;
    }
    const check = await runTaskCheck(input.task.checkPath, workspace.root, {
      timeoutMs: CHECK_TIMEOUT_MS,
      signal: input.signal,
    });
    run.check = check;
    run.outcome = input.signal.aborted ? "interrupted" : outcomeOf(check.passed, run);
  } catch (error) {
    run.error = SparkError.from(error).toJSON();
    run.outcome = input.signal.aborted ? "interrupted" : "error";
  } finally {
    await opened?.close().catch(() => undefined);
    await workspace?.remove().catch(() => undefined);
  }
  return run;
}

function outcomeOf(checkPassed: boolean, run: EvalRun): EvalOutcome {
  // The repository is what counts: an edit that landed before the model failed still passes.
  if (checkPassed) return "pass";
  return run.turnReason === "completed" ? "fail" : "error";
}

/** Runs the prompt as one turn, filling `run`; true when the deadline interrupted it. */
async function runTurn(
  input: EvalRunInput,
  opened: EvalModelSession,
  workspace: { root: string; sessionsDirectory: string },
  run: EvalRun,
): Promise<boolean> {
  const session = await AgentSession.create({
    client: opened.client,
    workspaceRoot: workspace.root,
    sessionsDirectory: workspace.sessionsDirectory,
    ...(opened.name === undefined ? {} : { model: opened.name }),
    commandApproval: { autoApprove: input.allowCommands },
    ...(input.commandSandbox === undefined ? {} : { commandSandbox: input.commandSandbox }),
    ...(input.maxSteps === undefined ? {} : { maxSteps: input.maxSteps }),
    ...(opened.contextWindowTokens === undefined
      ? {}
      : { contextWindowTokens: opened.contextWindowTokens }),
  });
  session.subscribe((event) => record(event, run));
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    session.interrupt();
  }, input.timeoutMs);
  const onAbort = (): void => session.interrupt();
  input.signal.addEventListener("abort", onAbort, { once: true });
  const startedAt = performance.now();
  try {
    if (input.signal.aborted) return false;
    const result = await session.submit(input.task.prompt);
    run.turnReason = result.reason;
    if (result.error !== undefined) run.error = result.error.toJSON();
    return timedOut;
  } finally {
    run.durationMs = run.durationMs || performance.now() - startedAt;
    clearTimeout(deadline);
    input.signal.removeEventListener("abort", onAbort);
    await session.close();
  }
}

function record(event: AgentEvent, run: EvalRun): void {
  if (event.type === "route") run.routes.push(event.model);
  if (event.type === "error" && run.error === undefined) run.error = event.error;
  if (event.type !== "turn-finished") return;
  run.durationMs = event.timings.totalMs;
  run.timeToFirstTokenMs = event.timings.timeToFirstTokenMs;
  run.modelMs = event.timings.modelMs;
  run.inputTokens = event.usage.inputTokens;
  run.outputTokens = event.usage.outputTokens;
  run.decodeMs = event.timings.decodeMs;
  run.decodeTokens = event.timings.decodeTokens;
  run.decodeTokensPerSecond = decodeTokensPerSecond(run.decodeTokens, run.decodeMs);
  run.steps = event.steps;
}
