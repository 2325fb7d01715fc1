// A hand-written check for the common shape of a Responses create request (messages, function
// call outputs, function tools), run before zod: zod's validation of a follow-up frame costs
// ~110 µs when its code is cold, as it is at the start of every turn in the live server, and this
// check a few. It is conservative: it accepts only what the zod schemas accept (every value it
// lets through is one `responseCreateBodySchema` would return unchanged, since those schemas are
// loose objects without defaults or transforms); anything else, including every invalid
// request, goes to zod, which keeps its exact error messages.
import { metadataLimitProblem } from "./request-metadata.ts";

type Json = Record<string, unknown>;

function isPlainObject(value: unknown): value is Json {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

/** Every element, holes included (`Array.prototype.every` skips holes; JSON has none). */
function everyElement(values: unknown[], accepts: (value: unknown) => boolean): boolean {
  for (let index = 0; index < values.length; index += 1) {
    if (!accepts(values[index])) return false;
  }
  return true;
}

const optionalString = (value: unknown): boolean =>
  value === undefined || typeof value === "string";
const nullableString = (value: unknown): boolean => value === null || optionalString(value);
const nullableBoolean = (value: unknown): boolean =>
  value === undefined || value === null || typeof value === "boolean";

function contentParts(value: unknown): boolean {
  if (typeof value === "string") return true;
  if (!Array.isArray(value)) return false;
  return everyElement(
    value,
    (part) => isPlainObject(part) && typeof part.type === "string" && optionalString(part.text),
  );
}

const roles: ReadonlySet<unknown> = new Set(["user", "assistant", "system", "developer"]);

function inputItem(item: unknown): boolean {
  if (!isPlainObject(item) || !optionalString(item.id)) return false;
  switch (item.type) {
    case undefined:
    case "message":
      return roles.has(item.role) && contentParts(item.content);
    case "function_call":
      return (
        typeof item.call_id === "string" &&
        typeof item.name === "string" &&
        typeof item.arguments === "string" &&
        optionalString(item.namespace)
      );
    case "function_call_output":
      return typeof item.call_id === "string" && contentParts(item.output);
    default:
      return false;
  }
}

function input(value: unknown): boolean {
  if (value === undefined || typeof value === "string") return true;
  return Array.isArray(value) && everyElement(value, inputItem);
}

function memberTool(tool: unknown): tool is Json {
  return (
    isPlainObject(tool) &&
    tool.type === "function" &&
    optionalString(tool.name) &&
    nullableString(tool.description) &&
    (tool.parameters === undefined || tool.parameters === null || isPlainObject(tool.parameters)) &&
    nullableBoolean(tool.strict) &&
    tool.format === undefined
  );
}

function tools(value: unknown): boolean {
  if (value === undefined) return true;
  return (
    Array.isArray(value) &&
    everyElement(value, (tool) => memberTool(tool) && tool.tools === undefined)
  );
}

const choices: ReadonlySet<unknown> = new Set([undefined, "none", "auto", "required"]);

function toolChoice(value: unknown): boolean {
  if (choices.has(value)) return true;
  return isPlainObject(value) && value.type === "function" && typeof value.name === "string";
}

function nullableNumber(value: unknown, accepts: (number: number) => boolean): boolean {
  return value === undefined || value === null || (typeof value === "number" && accepts(value));
}

function metadata(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  // Over a limit goes to zod too, which words the error.
  return (
    isPlainObject(value) &&
    metadataLimitProblem(value) === undefined &&
    Object.values(value).every((entry) => typeof entry === "string")
  );
}

/** No output format, or plain text; a structured format goes to zod, which checks its schema. */
function text(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (!isPlainObject(value)) return false;
  const format = value.format;
  return (
    format === undefined || format === null || (isPlainObject(format) && format.type === "text")
  );
}

/** True when `body` is certainly a valid create request (the WebSocket event or the HTTP body). */
export function isCommonResponseCreate(body: unknown): boolean {
  return (
    isPlainObject(body) &&
    optionalString(body.model) &&
    input(body.input) &&
    nullableString(body.instructions) &&
    nullableString(body.previous_response_id) &&
    nullableNumber(body.max_output_tokens, (value) => Number.isSafeInteger(value) && value > 0) &&
    nullableNumber(body.temperature, (value) => value >= 0 && value <= 2) &&
    nullableNumber(body.top_p, (value) => value > 0 && value <= 1) &&
    nullableNumber(body.top_k, (value) => Number.isSafeInteger(value) && value >= -1) &&
    nullableNumber(body.min_p, (value) => value >= 0 && value <= 1) &&
    tools(body.tools) &&
    toolChoice(body.tool_choice) &&
    nullableBoolean(body.parallel_tool_calls) &&
    metadata(body.metadata) &&
    nullableString(body.prompt_cache_key) &&
    text(body.text) &&
    nullableBoolean(body.store) &&
    nullableBoolean(body.stream) &&
    (body.generate === undefined || typeof body.generate === "boolean")
  );
}
