import { describe, expect, it } from "vitest";
import { z } from "zod";
import { SparkError } from "../../../protocol/spark-error.ts";
import { grammarSchemaFor } from "./grammar-schema.ts";
import { boundedNumberRules } from "./output-format-grammar.ts";

function refusal(schema: Record<string, unknown>): SparkError {
  try {
    grammarSchemaFor(schema, "answer");
  } catch (error) {
    if (error instanceof SparkError) return error;
    throw error;
  }
  throw new Error("the schema was accepted");
}

describe("grammarSchemaFor", () => {
  it("takes zod's schema for generateObject: annotations dropped, safe-integer bounds kept", () => {
    const schema = z.toJSONSchema(
      z.object({
        city: z.string().max(12).describe("Where"),
        count: z.number().int(),
        kind: z.enum(["rain", "sun"]),
        note: z.string().nullable(),
        later: z.string().optional(),
      }),
      { target: "draft-7" },
    ) as Record<string, unknown>;
    expect(grammarSchemaFor(schema, "answer")).toEqual({
      type: "object",
      properties: {
        city: { type: "string", maxLength: 12 },
        count: { type: "integer" },
        kind: { type: "string", enum: ["rain", "sun"] },
        // anyOf is written as oneOf, which the grammar builder reads (it makes anyOf null).
        note: { oneOf: [{ type: "string" }, { type: "null" }] },
        later: { type: "string" },
      },
      additionalProperties: false,
    });
  });

  it("splits a list of types into one branch each, so an object or null stays an object", () => {
    expect(
      grammarSchemaFor(
        { type: ["object", "null"], properties: { a: { type: "boolean" } } },
        "answer",
      ),
    ).toEqual({
      oneOf: [
        { type: "object", properties: { a: { type: "boolean" } } },
        { type: "null", properties: { a: { type: "boolean" } } },
      ],
    });
  });

  it("reads definitions as $defs, infers a missing type, and accepts tuples as prefixItems", () => {
    expect(
      grammarSchemaFor(
        {
          definitions: { point: { items: [{ type: "number" }, { type: "number" }] } },
          properties: { at: { $ref: "#/definitions/point" } },
        },
        "answer",
      ),
    ).toEqual({
      $defs: { point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }] } },
      type: "object",
      properties: { at: { $ref: "#/$defs/point" } },
    });
  });

  it("refuses each keyword the grammar cannot enforce, naming it and where it is", () => {
    const error = refusal({
      type: "object",
      properties: {
        email: { type: "string", pattern: "@" },
        age: { type: "integer", minimum: 0 },
        pick: { type: "object", anyOf: [{ type: "object" }] },
        link: { $ref: "https://example.com/schema.json" },
        day: { type: "string", format: "email" },
      },
      required: ["email", "missing"],
    });
    expect(error.code).toBe("invalid_request");
    expect(error.message).toContain('the JSON schema "answer"');
    expect(error.message).toContain("pattern at #/properties/email/pattern");
    expect(error.message).toContain("minimum 0 at #/properties/age/minimum");
    expect(error.message).toContain("type beside oneOf at #/properties/pick");
    expect(error.message).toContain('$ref "https://example.com/schema.json"');
    expect(error.message).toContain('format "email"');
    expect(error.message).toContain('required at #/required names "missing"');
  });

  it("lists at most six problems and counts the rest", () => {
    const properties = Object.fromEntries(
      Array.from({ length: 9 }, (_, index) => [`p${index}`, { type: "string", pattern: "x" }]),
    );
    expect(refusal({ type: "object", properties }).message).toContain("(and 3 more)");
  });
});

describe("boundedNumberRules", () => {
  const built =
    `integer-number-rule ::= "-"? ("0" | [1-9] [0-9]{0,15}) ([eE] [-+]? ("0" | [1-9] [0-9]{0,15}))?\n` +
    `root ::= integer-number-rule`;

  it("drops the exponent and the sixteenth digit, so every integer is exact and finite", () => {
    expect(boundedNumberRules(built)).toBe(
      `integer-number-rule ::= "-"? ("0" | [1-9] [0-9]{0,14})\nroot ::= integer-number-rule`,
    );
  });

  it("refuses a rule node-llama-cpp changed rather than keep it unbounded", () => {
    expect(() => boundedNumberRules(`integer-number-rule ::= [0-9]+`)).toThrow(/changed/);
  });
});
