// The schema size walk: each limit at and past its value, and a subschema hidden under a property
// named like a value keyword ("enum", "default") still counted.
import { describe, expect, it } from "vitest";
import { SCHEMA_SIZE_LIMITS, schemaSizeViolation } from "../../src/engines/json-schema-size.ts";
import { grammarRuleCount } from "../../src/engines/llama-cpp/structured-output/grammar-rule-budget.ts";

const values = (count: number, width = 4) =>
  Array.from({ length: count }, (_, index) => String(index).padStart(width, "0"));
const object = (count: number, schema: object = { type: "boolean" }) => ({
  type: "object",
  properties: Object.fromEntries(values(count, 5).map((name) => [`p${name}`, schema])),
});

describe("schemaSizeViolation", () => {
  it("accepts every limit reached exactly", () => {
    expect(schemaSizeViolation({ enum: values(1_000) })).toBeUndefined();
    expect(schemaSizeViolation(object(5_000))).toBeUndefined();
    expect(schemaSizeViolation({ type: "string", maxLength: 1_000 })).toBeUndefined();
  });

  it("names each limit one past it", () => {
    expect(schemaSizeViolation({ enum: values(1_001) })?.limit).toBe("enum values");
    expect(schemaSizeViolation(object(5_001))?.limit).toBe("properties");
    expect(schemaSizeViolation({ type: "array", minItems: 1_001 })?.detail).toContain(
      "minItems 1001 at #/minItems",
    );
    // 300 values of 51 characters: over 15,000 in an enum of more than 250.
    expect(schemaSizeViolation({ enum: values(300, 51) })?.limit).toBe("enum characters");
    const longNames = {
      type: "object",
      properties: Object.fromEntries(values(3_000, 41).map((name) => [name, {}])),
    };
    expect(schemaSizeViolation(longNames)?.limit).toBe("schema characters");
    const deep = { oneOf: Array.from({ length: SCHEMA_SIZE_LIMITS.nodes }, () => ({})) };
    expect(schemaSizeViolation(deep)?.limit).toBe("subschemas");
  });

  it("counts enums across the schema, under properties named enum or default", () => {
    const hidden = {
      type: "object",
      properties: {
        enum: { enum: values(600) },
        default: { type: "array", items: { enum: values(600) } },
      },
    };
    expect(schemaSizeViolation(hidden)?.limit).toBe("enum values");
  });
});

describe("grammarRuleCount", () => {
  it("counts rules and the copies a repetition makes", () => {
    expect(grammarRuleCount(`root ::= "a"{0,1000}\nitem ::= [0-9]{3,}`)).toBe(2 + 1_000 + 3);
  });
});
