// Validation messages name the field and what it must be, picking the union branch the client meant.
import { describe, expect, it } from "vitest";
import {
  responseCreateEventSchema,
  responseResumeEventSchema,
} from "../../protocol/responses-requests.ts";
import { schemaError } from "./schema-error.ts";

function messageFor(
  schema: typeof responseCreateEventSchema | typeof responseResumeEventSchema,
  value: unknown,
) {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error("expected a validation error");
  const error = schemaError(parsed.error, "The event");
  return { message: error.message, param: error.param };
}

describe("schemaError", () => {
  it("says which kinds of value a union takes", () => {
    expect(messageFor(responseCreateEventSchema, { type: "response.create", input: 42 })).toEqual({
      message: "The event: 'input' must be string or array, not number.",
      param: "input",
    });
  });

  it("follows the branch whose type tag matched", () => {
    const result = messageFor(responseCreateEventSchema, {
      type: "response.create",
      input: [{ type: "function_call", call_id: "call_1", arguments: "{}" }],
    });
    expect(result).toEqual({
      message: "The event: 'input[0].name' is required (string).",
      param: "input[0].name",
    });
  });

  it("calls a missing field required", () => {
    expect(messageFor(responseResumeEventSchema, { type: "response.resume" }).message).toBe(
      "The event: 'response_id' is required (string).",
    );
  });
});
