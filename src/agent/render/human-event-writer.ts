// Renders agent events for people reading a terminal or a log: text as it streams, each tool call
// as one line, each edit as its diff, and a closing line of usage and timings on stderr.
import type { AgentEvent } from "../agent-events.ts";

export interface TextSink {
  write(text: string): unknown;
}

export function createHumanEventWriter(
  stdout: TextSink,
  stderr: TextSink,
): (event: AgentEvent) => void {
  let atLineStart = true;
  const write = (text: string): void => {
    if (text === "") return;
    stdout.write(text);
    atLineStart = text.endsWith("\n");
  };
  const line = (text: string): void => {
    if (!atLineStart) write("\n");
    write(`${text}\n`);
  };
  return (event) => {
    switch (event.type) {
      case "session-started":
        stderr.write(
          `[spark] session ${event.sessionId}${event.resumed ? " (resumed)" : ""} in ${event.cwd}\n`,
        );
        break;
      case "text-delta":
        write(event.text);
        break;
      case "tool-call":
        line(`  → ${event.summary}`);
        break;
      case "tool-result":
        line(
          `  ${event.isError ? "✗" : "✓"} ${describeOutput(event.name, event.output, event.isError)}`,
        );
        break;
      case "edit-applied":
        line(event.unifiedDiff.trimEnd() || `  ${event.kind} ${event.path}`);
        break;
      case "edit-undone":
        line(`  undid ${event.files.map((file) => file.path).join(", ")}`);
        break;
      case "route":
        stderr.write(`[spark] ${event.model}: ${event.reason}\n`);
        break;
      case "user-message":
        line(`  [${event.via}] ${event.text}`);
        break;
      case "interrupted":
        line(`  [interrupted${event.reason === "steer" ? ": steering" : ""}]`);
        break;
      case "error":
        if (!atLineStart) write("\n");
        stderr.write(`spark: ${event.error.message} [${event.error.code}]\n`);
        break;
      case "turn-finished": {
        if (!atLineStart) write("\n");
        const { usage, timings } = event;
        stderr.write(
          `[spark] ${event.reason} · ${event.steps} step${event.steps === 1 ? "" : "s"} · ${formatDuration(timings.totalMs)} · ${usage.inputTokens} input tokens (${usage.cachedInputTokens} cached), ${usage.outputTokens} output\n`,
        );
        break;
      }
      case "context-compacted":
        stderr.write(
          `[spark] compacted older turns: ${event.tokensBefore} → ${event.tokensAfter} tokens\n`,
        );
        break;
      case "turn-started":
      case "budget":
        break;
      default:
        event satisfies never;
    }
  };
}

/** Errors show their first line (what went wrong); results their first line and size. */
function describeOutput(toolName: string, output: string, isError: boolean): string {
  const lines = output.split("\n");
  if (toolName === "read_file" && !isError) return `${lines.length} lines`;
  const first = lines[0] ?? "";
  const shown = first.length > 160 ? `${first.slice(0, 160)}…` : first;
  return lines.length > 1 && !isError ? `${shown} (${lines.length} lines)` : shown;
}

function formatDuration(milliseconds: number): string {
  return milliseconds < 1000
    ? `${Math.round(milliseconds)} ms`
    : `${(milliseconds / 1000).toFixed(1)} s`;
}
