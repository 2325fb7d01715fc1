// The status line: the session's state (with the running turn's time), model and route, time to
// first token, decode tokens/s, context use, cached prompt tokens and the session id.
import { Text } from "ink";
import type { SessionStatus } from "../../protocol/agent/session-events.ts";
import type { StreamMetrics } from "../state/session-view-state.ts";
import { formatTokens } from "../../protocol/transcript/index.ts";

export interface StatusLineProps {
  model: string | undefined;
  /** Where the agent runs: "in-process" or the server's URL. */
  route: string;
  status: SessionStatus;
  metrics: StreamMetrics;
  sessionId: string;
  /** The model the next turn will switch to (/model), if it differs. */
  nextModel?: string | undefined;
  /** How long the running turn has taken so far. */
  elapsedMs?: number | undefined;
}

export function StatusLine(props: StatusLineProps) {
  const { metrics } = props;
  const parts = [
    `${shortModel(props.model) ?? "default model"}${props.nextModel === undefined ? "" : ` → ${shortModel(props.nextModel)}`} · ${props.route}`,
    `ttft ${metrics.timeToFirstTokenMs === null ? "–" : `${Math.round(metrics.timeToFirstTokenMs)} ms`}`,
    `${metrics.decodeTokensPerSecond === null ? "–" : Math.round(metrics.decodeTokensPerSecond)} tok/s`,
    `ctx ${formatTokens(metrics.contextTokens)}/${formatTokens(metrics.windowTokens)}`,
    `cached ${formatTokens(metrics.cachedPromptTokens)}`,
    `session ${props.sessionId.slice(0, 12)}`,
  ];
  return (
    <Text dimColor wrap="truncate-end">
      <Text color={statusColor(props.status)}>
        {statusWord(props.status)}
        {props.elapsedMs === undefined ? "" : ` ${formatElapsed(props.elapsedMs)}`}
      </Text>{" "}
      · {parts.join(" · ")}
    </Text>
  );
}

/** script:/long/path/turns.jsonl → script:turns.jsonl; the status line has one row. */
function shortModel(model: string | undefined): string | undefined {
  if (model?.startsWith("script:") !== true) return model;
  return `script:${model.split(/[\\/]/).at(-1) ?? ""}`;
}

/** 7s, 1m 05s, 1h 02m. */
export function formatElapsed(milliseconds: number): string {
  const seconds = Math.floor(milliseconds / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

function statusWord(status: SessionStatus): string {
  return status === "awaiting-approval" ? "approval" : status;
}

function statusColor(status: SessionStatus): string {
  return status === "running" ? "green" : status === "awaiting-approval" ? "yellow" : "gray";
}
