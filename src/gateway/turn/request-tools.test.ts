import { describe, expect, it } from "vitest";
import { customToolInput, requestTools } from "./request-tools.ts";

describe("requestTools", () => {
  it("flattens namespaces, turns custom tools into one-string functions, drops hosted tools", () => {
    const offered = requestTools([
      { type: "function", name: "grep", description: "Search.", parameters: { type: "object" } },
      {
        type: "namespace",
        name: "agents",
        description: "Sub-agents.",
        tools: [{ type: "function", name: "spawn", parameters: { type: "object" } }],
      },
      {
        type: "custom",
        name: "apply_patch",
        description: "Edit files.",
        format: { type: "grammar", syntax: "lark", definition: "start: 'x'" },
      },
      { type: "web_search" },
    ]);
    expect(offered.definitions.map((tool) => tool.name)).toEqual([
      "grep",
      "agents__spawn",
      "apply_patch",
    ]);
    expect(offered.definitions[2]?.description).toContain("lark grammar:\nstart: 'x'");
    expect(offered.definitions[2]?.parameters).toMatchObject({ required: ["input"] });
    expect(offered.byEngineName.get("agents__spawn")).toEqual({
      kind: "function",
      name: "spawn",
      namespace: "agents",
    });
    expect(offered.byEngineName.get("apply_patch")?.kind).toBe("custom");
    expect(offered.dropped).toEqual(["web_search"]);
    expect(offered.echoed.map((tool) => tool.type)).toEqual(["function", "namespace", "custom"]);
  });

  it("refuses a tool without a name", () => {
    expect(() => requestTools([{ type: "function" }])).toThrow(/needs a name/);
  });
});

describe("customToolInput", () => {
  it("takes the input string, or the raw text when the model ignored the schema", () => {
    expect(customToolInput('{"input":"a\\nb"}')).toBe("a\nb");
    expect(customToolInput("*** Begin Patch")).toBe("*** Begin Patch");
  });
});
