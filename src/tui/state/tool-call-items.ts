// A tool call's line in the transcript: closed when its result (or its edit) arrives, with its
// duration, and for run_command the exit status and last lines of output.
import type { SessionViewState } from "./session-view.ts";
import { append } from "./transcript-draft.ts";

/** Ctrl+T, /output: the latest command's whole output, below everything, as one item. */
export function showLastCommandOutput(draft: SessionViewState): void {
  const command = draft.finished.findLast(
    (item) => item.kind === "tool-call" && item.commandOutcome !== undefined,
  );
  if (command?.kind !== "tool-call" || command.commandOutcome === undefined) {
    append(draft, {
      kind: "notice",
      tone: "info",
      text: "No command has run in this session yet.",
    });
    return;
  }
  const { lines } = command.commandOutcome;
  append(draft, {
    kind: "command-output",
    summary: `${command.summary} · ${command.commandOutcome.status} · ${lines.length} ${lines.length === 1 ? "line" : "lines"}`,
    lines: lines.length === 0 ? ["(no output)"] : lines,
  });
}

export function finishToolCall(
  draft: SessionViewState,
  callId: string,
  isError: boolean,
  durationMs: number | undefined,
  output: string,
): void {
  const live = draft.live;
  const firstLine = output.split("\n", 1)[0] ?? "";
  if (live?.kind !== "tool-call" || live.callId !== callId) {
    // Already closed (an edit closes its call): only a failure still needs showing.
    if (isError) append(draft, { kind: "error", message: `Tool call failed: ${firstLine}` });
    return;
  }
  draft.live = undefined;
  const commandOutcome = live.name === "run_command" ? readCommandOutcome(output) : undefined;
  draft.finished.push({
    ...live,
    status: isError ? "failed" : "done",
    ...(durationMs === undefined ? {} : { durationMs }),
    ...(isError && commandOutcome === undefined ? { errorLine: firstLine } : {}),
    ...(commandOutcome === undefined ? {} : { commandOutcome }),
  });
}

const COMMAND_STATUS = /^\[(exit code \d+|killed[^\]]*|interrupted by the user)\]$/;
const COMMAND_TAIL_LINES = 4;

/** run_command's result ends in "[exit code N]" (or killed/interrupted): show it and the last lines. */
function readCommandOutcome(
  output: string,
): { status: string; tail: string[]; lines: string[] } | undefined {
  const lines = output.trimEnd().split("\n");
  const status = COMMAND_STATUS.exec(lines.at(-1) ?? "")?.[1];
  if (status === undefined) return undefined;
  const body = lines.slice(0, -1).filter((line) => line !== "(no output)");
  return { status, tail: body.slice(-COMMAND_TAIL_LINES), lines: body };
}
