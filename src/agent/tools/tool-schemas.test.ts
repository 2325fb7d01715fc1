// What the model sees of each tool is a contract: the JSON schemas are snapshot-tested, so any
// change to a description or parameter shows up in review.
import { describe, expect, it } from "vitest";
import { ToolRegistry } from "./tool-registry.ts";

describe("tool schemas", () => {
  it("match the recorded JSON schemas", async () => {
    const definitions = new ToolRegistry().definitions;
    expect(definitions.map((definition) => definition.name)).toEqual([
      "read_file",
      "list_files",
      "search",
      "apply_patch",
      "edit",
      "run_command",
    ]);
    await expect(`${JSON.stringify(definitions, null, 2)}\n`).toMatchFileSnapshot(
      "./__snapshots__/tool-schemas.json.snap",
    );
  });

  it("describe every parameter for the model", () => {
    for (const definition of new ToolRegistry().definitions) {
      const properties = definition.parameters.properties as Record<
        string,
        { description?: string }
      >;
      for (const [name, property] of Object.entries(properties)) {
        expect(property.description, `${definition.name}.${name}`).toBeTruthy();
      }
      expect(definition.parameters.additionalProperties).toBe(false);
    }
  });

  it("word validation errors for the model to fix its call", async () => {
    const registry = new ToolRegistry();
    const missing = registry.prepare({ id: "1", name: "read_file", arguments: '{"startLine": 0}' });
    expect(missing.summary).toBe("read_file (invalid call)");
    const { output } = await missing.run({} as never);
    expect(output).toContain('"path" is required');
    expect(output).toContain('"startLine"');
    expect(output).toContain("Fix the call and try again.");
    const badJson = await registry
      .prepare({ id: "2", name: "search", arguments: "{pattern:" })
      .run({} as never);
    expect(badJson.output).toContain("not valid JSON");
    const unknown = await registry
      .prepare({ id: "3", name: "write_file", arguments: "{}" })
      .run({} as never);
    expect(unknown.output).toContain(
      'There is no tool named "write_file". Available tools: read_file',
    );
    const extra = await registry
      .prepare({ id: "4", name: "list_files", arguments: '{"recursive": true}' })
      .run({} as never);
    expect(extra.output).toContain('unknown parameter(s) "recursive"');
  });
});
