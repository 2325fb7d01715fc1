import { describe, expect, it } from "vitest";
import { isCommonResponseCreate } from "./response-create-fast-check.ts";
import { responseCreateBodySchema } from "./responses-requests.ts";

const weatherTool = {
  type: "function",
  name: "get_weather",
  description: "Weather for a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: true,
};

/** Create requests as clients send them: the shapes the fast check is for. */
const common: Record<string, unknown>[] = [
  { model: "local", input: "Hello" },
  { type: "response.create", model: "local", input: "Hi", stream_id: "a" },
  {
    model: "gpt-5.3-codex-spark",
    instructions: "Be brief.",
    previous_response_id: "resp_123",
    input: [
      { role: "user", content: "Fix the bug." },
      { type: "message", role: "developer", content: [{ type: "input_text", text: "Rules." }] },
      { type: "function_call", call_id: "call_1", name: "get_weather", arguments: "{}" },
      { type: "function_call_output", call_id: "call_1", output: "sunny", id: "fco_1" },
      { type: "function_call_output", call_id: "call_2", output: [{ type: "input_text" }] },
    ],
    tools: [weatherTool, { type: "function", name: "noop", parameters: null, strict: null }],
    tool_choice: { type: "function", name: "get_weather" },
    parallel_tool_calls: false,
    max_output_tokens: 64,
    temperature: 0,
    top_p: 1,
    metadata: { run: "1" },
    prompt_cache_key: "session-1",
    store: true,
    stream: true,
    generate: false,
    reasoning: { effort: "low" },
    text: { format: { type: "text" }, verbosity: "low" },
    include: ["reasoning.encrypted_content"],
  },
  {
    input: [],
    instructions: null,
    previous_response_id: null,
    max_output_tokens: null,
    temperature: null,
    top_p: null,
    metadata: null,
    prompt_cache_key: null,
    store: null,
    stream: null,
    text: null,
    tool_choice: "required",
  },
];

/** Values to put in every field: right, wrong and edge. */
const probes: unknown[] = [
  undefined,
  null,
  "",
  "x",
  "auto",
  "user",
  "message",
  "function",
  0,
  -1,
  1,
  2,
  2.5,
  0.5,
  1e300,
  2 ** 53 + 2,
  true,
  false,
  [],
  [{}],
  ["x"],
  {},
  { type: "x" },
  { type: "function" },
  { type: "function", name: "n" },
];

function mutations(request: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  const set = (path: (string | number)[], value: unknown): unknown => {
    const copy = structuredClone<Record<string, unknown>>(request);
    let target: Record<string | number, unknown> = copy;
    for (const key of path.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
    const last = path.at(-1) ?? "";
    if (value === undefined && Array.isArray(target)) target.splice(Number(last), 1);
    else if (value === undefined) delete target[last];
    else target[last] = value;
    return copy;
  };
  const walk = (value: unknown, path: (string | number)[]): void => {
    if (typeof value !== "object" || value === null) return;
    const keys = Array.isArray(value) ? value.map((_entry, index) => index) : Object.keys(value);
    for (const key of keys) {
      for (const probe of probes) out.push(set([...path, key], probe));
      walk((value as Record<string | number, unknown>)[key], [...path, key]);
    }
  };
  walk(request, []);
  for (const field of ["input", "tools", "tool_choice", "metadata", "temperature", "top_p"]) {
    for (const probe of probes) out.push(set([field], probe));
  }
  return out;
}

describe("isCommonResponseCreate", () => {
  it("accepts the common shapes, which zod accepts and returns unchanged", () => {
    for (const request of common) {
      expect(isCommonResponseCreate(request)).toBe(true);
      const parsed = responseCreateBodySchema.safeParse(request);
      expect(parsed.success).toBe(true);
      expect(parsed.data).toEqual(request);
    }
  });

  it("never accepts what zod rejects, and what it accepts zod returns unchanged", () => {
    let accepted = 0;
    let declined = 0;
    for (const request of common) {
      for (const mutated of mutations(request)) {
        if (!isCommonResponseCreate(mutated)) {
          declined += 1;
          continue;
        }
        accepted += 1;
        const parsed = responseCreateBodySchema.safeParse(mutated);
        expect(parsed.success, JSON.stringify(mutated)).toBe(true);
        expect(parsed.data).toEqual(mutated);
      }
    }
    // Both sides of the check were exercised, many times.
    expect(accepted).toBeGreaterThan(100);
    expect(declined).toBeGreaterThan(1000);
  });

  it("leaves rarer valid shapes to zod", () => {
    const rarer = [
      { input: [{ type: "item_reference", id: "msg_1" }] },
      { input: [{ type: "reasoning", summary: [] }] },
      { tools: [{ type: "custom", name: "apply_patch", format: { type: "text" } }] },
      { tools: [{ type: "namespace", name: "fs", tools: [weatherTool] }] },
      { tool_choice: { type: "custom", name: "apply_patch" } },
      { input: [{ type: "custom_tool_call_output", call_id: "c", output: "ok" }] },
      { text: { format: { type: "json_object" } } },
      {
        text: {
          format: { type: "json_schema", name: "out", schema: { type: "object" }, strict: true },
          verbosity: "low",
        },
      },
    ];
    for (const request of rarer) {
      expect(isCommonResponseCreate(request)).toBe(false);
      expect(responseCreateBodySchema.safeParse(request).success).toBe(true);
    }
  });

  it("checks every element of an array, holes included", () => {
    // eslint-disable-next-line no-sparse-arrays -- the hole is the case
    expect(isCommonResponseCreate({ input: [, { role: "user", content: "x" }] })).toBe(false);
  });

  it("declines what is not a plain object", () => {
    for (const value of [null, [], "x", 1, Object.create(null) as object, new Date()]) {
      expect(isCommonResponseCreate(value)).toBe(false);
    }
  });
});
