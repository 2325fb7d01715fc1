// Request checks every engine shares, so a bad request is the same typed error everywhere.
import type { EngineRequest } from "./engine.ts";
import { SparkError } from "../protocol/spark-error.ts";
import { checkSchemaSize } from "./json-schema-size.ts";

export function validateEngineRequest(request: EngineRequest): SparkError | undefined {
  if (request.completion !== undefined) {
    if (typeof request.completion.prefix !== "string")
      return new SparkError("invalid_request", "A completion request needs a prompt (prefix).");
  } else if (!Array.isArray(request.messages) || request.messages.length === 0) {
    return new SparkError(
      "invalid_request",
      "The request has no messages: send at least one user message.",
    );
  }
  const format = request.outputFormat;
  if (format !== undefined) {
    if (request.completion !== undefined) {
      return new SparkError(
        "invalid_request",
        "A raw or fill-in-the-middle completion takes no output format; send it as a chat.",
      );
    }
    if (
      format.type === "json_schema" &&
      (typeof format.schema !== "object" || format.schema === null || Array.isArray(format.schema))
    ) {
      return new SparkError(
        "invalid_request",
        "A json_schema output format needs a schema object.",
      );
    }
    if (format.type === "json_schema") {
      const tooLarge = checkSchemaSize(format.schema, `The output format "${format.name}"`);
      if (tooLarge !== undefined) return tooLarge;
    }
  }
  // The gateway refuses these with the field named; an engine called another way still must.
  for (const tool of request.tools ?? []) {
    const tooLarge = checkSchemaSize(tool.parameters, `The tool "${tool.name}"'s parameters`);
    if (tooLarge !== undefined) return tooLarge;
  }
  const sampling = request.sampling ?? {};
  if (
    sampling.temperature !== undefined &&
    !(sampling.temperature >= 0 && sampling.temperature <= 2)
  ) {
    return new SparkError(
      "invalid_request",
      `temperature must be between 0 and 2, got ${sampling.temperature}.`,
    );
  }
  if (sampling.topP !== undefined && !(sampling.topP > 0 && sampling.topP <= 1)) {
    return new SparkError("invalid_request", `top_p must be in (0, 1], got ${sampling.topP}.`);
  }
  if (sampling.topK !== undefined && !(Number.isSafeInteger(sampling.topK) && sampling.topK >= 0)) {
    return new SparkError(
      "invalid_request",
      `top_k must be a non-negative integer (0 or -1: every token), got ${sampling.topK}.`,
    );
  }
  if (sampling.minP !== undefined && !(sampling.minP >= 0 && sampling.minP <= 1)) {
    return new SparkError("invalid_request", `min_p must be in [0, 1], got ${sampling.minP}.`);
  }
  for (const [name, value] of [
    ["presence_penalty", sampling.presencePenalty],
    ["frequency_penalty", sampling.frequencyPenalty],
  ] as const) {
    if (value !== undefined && !(value >= -2 && value <= 2)) {
      return new SparkError("invalid_request", `${name} must be in [-2, 2], got ${value}.`);
    }
  }
  if (
    sampling.maxOutputTokens !== undefined &&
    !(Number.isInteger(sampling.maxOutputTokens) && sampling.maxOutputTokens > 0)
  ) {
    return new SparkError(
      "invalid_request",
      `max output tokens must be a positive integer, got ${sampling.maxOutputTokens}.`,
    );
  }
  if (
    sampling.stop !== undefined &&
    sampling.stop.some((stop) => typeof stop !== "string" || stop === "")
  ) {
    return new SparkError("invalid_request", "stop sequences must be non-empty strings.");
  }
  return undefined;
}

export interface EngineCapabilities {
  /** Raw completion and fill-in-the-middle requests (`request.completion`). */
  completions?: boolean;
  /** Structured output (`request.outputFormat`): the engine enforces it or passes it on. */
  outputFormat?: boolean;
  /** Continuing the assistant's partial answer (`request.continueFinalMessage`). */
  continuation?: boolean;
  /** Non-zero presence or frequency penalties: the engine applies them or passes them on. */
  penalties?: boolean;
}

/**
 * The check every engine makes before a stream starts: a disposed engine, a request shape the
 * engine cannot serve, then the request itself.
 */
export function rejectStreamRequest(
  engineName: string,
  disposed: boolean,
  request: EngineRequest,
  capabilities: EngineCapabilities = {},
): SparkError | undefined {
  if (disposed) {
    return new SparkError(
      "engine_disposed",
      `The ${engineName} engine was disposed; create a new one.`,
    );
  }
  if (capabilities.completions !== true) {
    const refused = refuseCompletion(engineName, request);
    if (refused !== undefined) return refused;
  }
  if (capabilities.outputFormat !== true) {
    const refused = refuseOutputFormat(engineName, request);
    if (refused !== undefined) return refused;
  }
  if (capabilities.continuation !== true) {
    const refused = refuseContinuation(engineName, request);
    if (refused !== undefined) return refused;
  }
  if (capabilities.penalties !== true) {
    const refused = refusePenalties(engineName, request);
    if (refused !== undefined) return refused;
  }
  return validateEngineRequest(request);
}

/**
 * The typed refusal of an engine that cannot apply presence or frequency penalties: a non-zero
 * one would otherwise be ignored without a word (0, which clients send as a default, is no
 * penalty and passes).
 */
export function refusePenalties(
  engineName: string,
  request: EngineRequest,
): SparkError | undefined {
  const sampling = request.sampling ?? {};
  const named = [
    ["presence_penalty", sampling.presencePenalty],
    ["frequency_penalty", sampling.frequencyPenalty],
  ].filter(([, value]) => value !== undefined && value !== 0);
  if (named.length === 0) return undefined;
  return new SparkError(
    "invalid_request",
    `The ${engineName} engine does not apply ${named.map(([name]) => name).join(" or ")}; ` +
      `send 0 or leave it out (top_k, top_p, min_p and temperature shape its sampling), ` +
      `or use a model served by an upstream engine that applies it.`,
  );
}

/** The typed refusal of an engine that has no raw-prompt (completion/FIM) path. */
export function refuseCompletion(
  engineName: string,
  request: EngineRequest,
): SparkError | undefined {
  if (request.completion === undefined) return undefined;
  return new SparkError(
    "fim_unsupported",
    `The ${engineName} engine does not serve raw or fill-in-the-middle completions; ` +
      `use a model served by the embedded llama.cpp engine.`,
  );
}

/** The typed refusal of an engine that cannot make its answer follow a JSON format. */
export function refuseOutputFormat(
  engineName: string,
  request: EngineRequest,
): SparkError | undefined {
  const format = request.outputFormat;
  if (format === undefined) return undefined;
  const asked = format.type === "json_schema" ? `a JSON schema ("${format.name}")` : "JSON";
  return new SparkError(
    "invalid_request",
    `Structured output: the ${engineName} engine cannot constrain its answer to ${asked}; ` +
      `use a model served by the embedded llama.cpp engine or an OpenAI-compatible upstream, ` +
      `or send the request without text.format / response_format.`,
  );
}

/** The typed refusal of an engine that cannot continue a partial assistant answer. */
export function refuseContinuation(
  engineName: string,
  request: EngineRequest,
): SparkError | undefined {
  if (request.continueFinalMessage !== true) return undefined;
  return new SparkError(
    "continuation_unsupported",
    `The ${engineName} engine cannot continue a partial answer (continueFinalMessage); send the ` +
      "request without the partial answer.",
  );
}
