// Structured output between the wire and the engines: Responses' `text.format` and Chat
// Completions' `response_format` become the one OutputFormat engines take, echoed back on the
// response object and named in the operator's log.
import type { OutputFormat } from "../../engines/engine.ts";
import type { ChatResponseFormat } from "../../protocol/chat-completions.ts";
import type { ResponseTextFormatEcho } from "../../protocol/responses-events.ts";
import type { ResponseTextFormat } from "../../protocol/responses-requests.ts";
import { checkSchemaSizeAt } from "../wire/schema-error.ts";

/**
 * Responses' `text.format`; undefined for free text (absent, null or `{type: "text"}`). Throws a
 * 400 for a schema over the size limits.
 */
export function outputFormatFromText(
  format: ResponseTextFormat | null | undefined,
): OutputFormat | undefined {
  if (format == null) return undefined;
  switch (format.type) {
    case "text":
      return undefined;
    case "json_object":
      return { type: "json_object" };
    case "json_schema":
      return jsonSchemaFormat(format, "text.format.schema");
    default:
      format satisfies never;
      return undefined;
  }
}

/** Chat Completions' `response_format`, the same formats with the schema one level down. */
export function outputFormatFromChat(
  format: ChatResponseFormat | null | undefined,
): OutputFormat | undefined {
  if (format == null) return undefined;
  switch (format.type) {
    case "text":
      return undefined;
    case "json_object":
      return { type: "json_object" };
    case "json_schema":
      return jsonSchemaFormat(format.json_schema, "response_format.json_schema.schema");
    default:
      format satisfies never;
      return undefined;
  }
}

function jsonSchemaFormat(
  format: {
    name: string;
    schema: Record<string, unknown>;
    strict?: boolean | null | undefined;
    description?: string | null | undefined;
  },
  param: string,
): OutputFormat {
  checkSchemaSizeAt(format.schema, param);
  return {
    type: "json_schema",
    name: format.name,
    schema: format.schema,
    ...(format.strict == null ? {} : { strict: format.strict }),
    ...(format.description == null ? {} : { description: format.description }),
  };
}

/** `text.format` on the response object: what was asked for, so a client sees it was honoured. */
export function echoTextFormat(format: OutputFormat | undefined): ResponseTextFormatEcho {
  if (format === undefined) return { type: "text" };
  if (format.type === "json_object") return { type: "json_object" };
  return {
    type: "json_schema",
    name: format.name,
    schema: format.schema,
    strict: format.strict ?? null,
    ...(format.description === undefined ? {} : { description: format.description }),
  };
}

/** For the log line: `json_schema:<name>` or `json_object`; undefined for free text. */
export function describeOutputFormat(format: OutputFormat | undefined): string | undefined {
  if (format === undefined) return undefined;
  return format.type === "json_schema" ? `json_schema:${format.name}` : format.type;
}
