// The status-bar item's text and tooltip from what the extension knows: whether completions are
// on, the model (as configured, or as the server named it), the last completion's latency
// (request to first token; never the typing pause) and the current problem, if any.

export interface StatusState {
  enabled: boolean;
  /** spark.completionModel, or undefined for the server's default. */
  configuredModel: string | undefined;
  /** The model the server said answered the last completion. */
  answeringModel: string | undefined;
  /** The last network completion, request to first token. */
  latencyMs: number | undefined;
  problem: string | undefined;
  serverUrl: string;
}

export interface StatusText {
  text: string;
  tooltip: string;
}

export function statusText(state: StatusState): StatusText {
  const model = state.configuredModel ?? state.answeringModel ?? "server default model";
  if (!state.enabled)
    return {
      text: `$(circle-slash) ${model}`,
      tooltip: `Spark inline completions are off (click to turn on). Model: ${model}.`,
    };
  if (state.problem !== undefined)
    return { text: `$(warning) ${model}`, tooltip: `Spark: ${state.problem}` };
  const latency = state.latencyMs === undefined ? "" : ` ${Math.round(state.latencyMs)} ms`;
  return {
    text: `$(sparkle) ${model}${latency}`,
    tooltip:
      (state.latencyMs === undefined
        ? `Spark inline completions from ${model} at ${state.serverUrl}`
        : `Spark: ${model} at ${state.serverUrl}; last completion ${Math.round(state.latencyMs)} ms from request to first token`) +
      " (click to turn off)",
  };
}
