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
  const fullModel = state.configuredModel ?? state.answeringModel ?? "server default model";
  const model = shortened(fullModel);
  if (!state.enabled)
    return {
      text: `$(circle-slash) ${model}`,
      tooltip: `Spark inline completions are off (click to turn on). Model: ${fullModel}.`,
    };
  if (state.problem !== undefined)
    return { text: `$(warning) ${model}`, tooltip: `Spark: ${state.problem}` };
  const latency = state.latencyMs === undefined ? "" : ` ${Math.round(state.latencyMs)} ms`;
  return {
    text: `$(sparkle) ${model}${latency}`,
    tooltip:
      (state.latencyMs === undefined
        ? `Spark inline completions from ${fullModel} at ${state.serverUrl}`
        : `Spark: ${fullModel} at ${state.serverUrl}; last completion ${Math.round(state.latencyMs)} ms from request to first token`) +
      " (click to turn off)",
  };
}

/** Model ids can be paths (`script:/tmp/…/fim.jsonl`): the status bar keeps their end. */
function shortened(model: string): string {
  return model.length <= 32 ? model : `…${model.slice(-31)}`;
}
