// One turn: call the model with the transcript and tool schemas, stream its text, run its tool
// calls in order, append the results, and call again until it answers without tools. Interrupt,
// steer and queue take effect at the points documented on each branch.
import type { SamplingOptions, ToolCall, ToolChoice, Usage } from "../engines/engine.ts";
import { SparkError } from "../protocol/spark-error.ts";
import type { AgentEvent, TurnEndReason } from "./agent-events.ts";
import type { ContextBudget } from "./context/context-budget.ts";
import type { FileReadLedger, UndoStack } from "./edits/index.ts";
import type { ModelClient } from "./model-client/model-client.ts";
import { streamModelStep, type ModelStepResult } from "./stream-model-step.ts";
import type { CommandSandbox } from "./sandbox/command-sandbox.ts";
import type { CommandApproval } from "./approval/command-approval.ts";
import type { ToolRegistry } from "./tools/tool-registry.ts";
import { toEngineMessages, type TranscriptMessage } from "./transcript.ts";
import type { TurnControl } from "./turn-control.ts";

export interface TurnHost {
  client: ModelClient;
  registry: ToolRegistry;
  budget: ContextBudget;
  model: string | undefined;
  sessionKey: string;
  /** Who may share the engine's cached state: the session's tenant on a gateway; unset locally. */
  cacheScope: string | undefined;
  sampling: SamplingOptions | undefined;
  /** Tool choice for a turn's first model call (e.g. "required" to make a model start with a tool). */
  firstStepToolChoice: ToolChoice | undefined;
  maxSteps: number;
  workspaceRoot: string;
  ledger: FileReadLedger;
  undoStack: UndoStack;
  commandApproval: CommandApproval;
  commandSandbox: CommandSandbox;
  transcript(): readonly TranscriptMessage[];
  append(message: TranscriptMessage): void;
  replaceTranscript(messages: TranscriptMessage[]): void;
  emit(event: AgentEvent): void;
  /** Persists the undo entry an edit just pushed, so `spark undo` works from the log. */
  recordUndoEntry(undoEntryId: string): void;
}

export interface TurnResult {
  turnId: string;
  reason: TurnEndReason;
  /** The assistant's text in the turn's last step. */
  text: string;
  steps: number;
  usage: Usage;
  error?: SparkError;
}

const NOT_RUN = "Not run: the user interrupted before this tool call started.";

/** `text` is what the user typed; `content` is what the model gets (text plus any session notes). */
export async function runTurn(
  control: TurnControl,
  host: TurnHost,
  text: string,
  content = text,
): Promise<TurnResult> {
  const startedAt = performance.now();
  const turnId = control.id;
  const usage: Usage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
  const timings = {
    modelMs: 0,
    toolMs: 0,
    timeToFirstTokenMs: null as number | null,
    decodeMs: 0,
    decodeTokens: 0,
  };
  let turnStart = host.transcript().length;
  let steps = 0;
  let lastText = "";
  let retriedOverflow = false;
  let lastRoute = "";
  host.emit({ type: "turn-started", turnId, text });
  host.append({ role: "user", content });

  const finish = (reason: TurnEndReason, error?: SparkError): TurnResult => {
    if (error !== undefined) host.emit({ type: "error", turnId, error: error.toJSON() });
    host.emit({
      type: "turn-finished",
      turnId,
      reason,
      steps,
      usage,
      timings: {
        totalMs: round(performance.now() - startedAt),
        ...timings,
        modelMs: round(timings.modelMs),
        toolMs: round(timings.toolMs),
        decodeMs: round(timings.decodeMs),
      },
    });
    return {
      turnId,
      reason,
      text: lastText,
      steps,
      usage,
      ...(error === undefined ? {} : { error }),
    };
  };

  /** After an interrupt: a steer continues the turn with the new message; a plain interrupt ends it. */
  const afterInterrupt = (partialText: string): boolean => {
    const reason = control.takeInterrupt() ?? "interrupt";
    const steers = control.takeSteers();
    const continues = reason === "steer" && steers.length > 0;
    const discarded = continues ? [] : [...steers, ...control.takeQueued()];
    host.emit({
      type: "interrupted",
      turnId,
      reason: continues ? "steer" : "interrupt",
      partialText,
      discardedQueue: discarded,
    });
    if (continues) deliver(steers, "steer");
    return continues;
  };

  const deliver = (messages: string[], via: "steer" | "queue"): void => {
    for (const message of messages) {
      control.addUserText(message);
      host.append({ role: "user", content: message });
      host.emit({ type: "user-message", turnId, text: message, via });
    }
  };

  for (;;) {
    if (steps >= host.maxSteps) {
      return finish(
        "max_steps",
        new SparkError(
          "invalid_request",
          `The turn stopped after ${host.maxSteps} model calls (the step limit); send a follow-up to continue.`,
        ),
      );
    }
    const tools = host.registry.definitions;
    const fit = host.budget.fit(host.transcript(), tools, turnStart);
    if (fit.changed) host.replaceTranscript(fit.messages);
    turnStart = fit.currentTurnStart;
    host.emit({
      type: "budget",
      turnId,
      usedTokens: fit.usedTokens,
      limitTokens: host.budget.limitTokens,
      windowTokens: host.budget.windowTokens,
      truncatedToolOutputs: fit.truncatedToolOutputs,
      compacted: fit.compacted,
    });
    const signal = control.beginStep();
    steps += 1;
    const modelStartedAt = performance.now();
    const sent = [...host.transcript()];
    const step = await streamModelStep(
      host.client,
      {
        ...(host.model === undefined ? {} : { model: host.model }),
        messages: toEngineMessages(sent),
        tools,
        sessionKey: host.sessionKey,
        ...(host.cacheScope === undefined ? {} : { cacheScope: host.cacheScope }),
        ...(host.sampling === undefined ? {} : { sampling: host.sampling }),
        ...(steps === 1 && host.firstStepToolChoice !== undefined
          ? { toolChoice: host.firstStepToolChoice }
          : {}),
      },
      signal,
      (delta) => host.emit({ type: "text-delta", turnId, text: delta }),
      (route) => {
        // Said once per turn, and again only if a later step goes elsewhere.
        const key = `${route.model}\u0000${route.reason}`;
        if (key !== lastRoute) host.emit({ type: "route", turnId, ...route });
        lastRoute = key;
      },
    );
    timings.modelMs += performance.now() - modelStartedAt;
    addStepUsage(usage, step);
    addStepDecode(timings, step);
    if (timings.timeToFirstTokenMs === null && step.timings?.timeToFirstTokenMs != null) {
      timings.timeToFirstTokenMs = round(
        modelStartedAt - startedAt + step.timings.timeToFirstTokenMs,
      );
    }
    lastText = step.text;

    if (step.interrupted) {
      // The partial answer stays in the transcript, marked; unfinished tool calls are dropped.
      if (step.text !== "")
        host.append({ role: "assistant", content: step.text, interrupted: true });
      if (afterInterrupt(step.text)) continue;
      return finish("interrupted");
    }
    if (step.error?.code === "context_length_exceeded" && !retriedOverflow && step.text === "") {
      // The engine's tokenizer counts more than the estimate: learn its count, trim, retry once.
      retriedOverflow = true;
      host.budget.recordOverflow(sent, tools, step.usage?.inputTokens ?? 0);
      continue;
    }
    if (step.error !== undefined) {
      if (step.text !== "") host.append({ role: "assistant", content: step.text });
      return finish("error", step.error);
    }
    host.append({
      role: "assistant",
      content: step.text,
      ...(step.toolCalls.length > 0 ? { toolCalls: step.toolCalls } : {}),
    });
    host.budget.recordUsage(sent, tools, host.transcript().length, {
      inputTokens: step.usage?.inputTokens ?? 0,
      outputTokens: step.usage?.outputTokens ?? 0,
    });

    const toolsStartedAt = performance.now();
    await runToolCalls(step.toolCalls, control, host, signal);
    timings.toolMs += performance.now() - toolsStartedAt;

    if (signal.aborted) {
      if (afterInterrupt("")) continue;
      return finish("interrupted");
    }
    // Between steps, messages queued (or steered after the model finished) join the turn.
    const late = [...control.takeSteers()];
    control.takeInterrupt();
    if (late.length > 0) deliver(late, "steer");
    const queued = control.takeQueued();
    if (queued.length > 0) deliver(queued, "queue");
    if (step.toolCalls.length === 0 && late.length === 0 && queued.length === 0)
      return finish("completed");
  }
}

async function runToolCalls(
  calls: readonly ToolCall[],
  control: TurnControl,
  host: TurnHost,
  signal: AbortSignal,
): Promise<void> {
  for (const call of calls) {
    const prepared = host.registry.prepare(call);
    if (signal.aborted) {
      host.append({ role: "tool", toolCallId: call.id, name: call.name, content: NOT_RUN });
      continue;
    }
    host.emit({
      type: "tool-call",
      turnId: control.id,
      callId: call.id,
      name: call.name,
      arguments: call.arguments,
      summary: prepared.summary,
    });
    const startedAt = performance.now();
    const execution = await prepared.run({
      workspaceRoot: host.workspaceRoot,
      ledger: host.ledger,
      undoStack: host.undoStack,
      signal,
      commandApproval: host.commandApproval,
      commandSandbox: host.commandSandbox,
      userTextThisTurn: control.userText,
    });
    const recorded = new Set<string>();
    for (const edit of execution.edits) {
      if (!recorded.has(edit.undoEntryId)) host.recordUndoEntry(edit.undoEntryId);
      recorded.add(edit.undoEntryId);
      host.emit({ type: "edit-applied", turnId: control.id, callId: call.id, ...edit });
    }
    host.emit({
      type: "tool-result",
      turnId: control.id,
      callId: call.id,
      name: call.name,
      output: execution.output,
      isError: execution.isError,
      // A command's time, not the user's: the wait for an approval is left out.
      durationMs: round(execution.runMs ?? performance.now() - startedAt),
    });
    host.append({
      role: "tool",
      toolCallId: call.id,
      name: call.name,
      content: execution.isError ? `Error: ${execution.output}` : execution.output,
    });
  }
}

function addStepUsage(total: Usage, step: ModelStepResult): void {
  total.inputTokens += step.usage?.inputTokens ?? 0;
  total.cachedInputTokens += step.usage?.cachedInputTokens ?? 0;
  const fromDisk = step.usage?.diskCachedInputTokens;
  if (fromDisk !== undefined)
    total.diskCachedInputTokens = (total.diskCachedInputTokens ?? 0) + fromDisk;
  total.outputTokens += step.usage?.outputTokens ?? 0;
}

/**
 * Decode as StreamClock measures it: each step's first token closes its prefill, so only the
 * tokens after it count, over that step's first-to-last-token time.
 */
function addStepDecode(
  total: { decodeMs: number; decodeTokens: number },
  step: ModelStepResult,
): void {
  const decodeMs = step.timings?.decodeMs ?? 0;
  const outputTokens = step.usage?.outputTokens ?? 0;
  if (decodeMs <= 0 || outputTokens < 2) return;
  total.decodeMs += decodeMs;
  total.decodeTokens += outputTokens - 1;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
