// Qualified MCP tool names stay within what models accept and never collide after sanitising.
import { describe, expect, it } from "vitest";
import { MAX_TOOL_NAME_LENGTH, qualifiedToolName } from "./mcp-tool-name.ts";

describe("qualifiedToolName", () => {
  it("joins server and tool with __ when both are plain", () => {
    expect(qualifiedToolName("everything", "echo")).toBe("everything__echo");
    expect(qualifiedToolName("everything", "trigger-long-running-operation")).toBe(
      "everything__trigger-long-running-operation",
    );
  });

  it("replaces characters models refuse and keeps a hash so names stay distinct", () => {
    const dotted = qualifiedToolName("docs", "search.v2");
    const spaced = qualifiedToolName("docs", "search v2");
    expect(dotted).toMatch(/^docs__search_v2_[0-9a-f]{8}$/);
    expect(spaced).toMatch(/^docs__search_v2_[0-9a-f]{8}$/);
    expect(dotted).not.toBe(spaced);
  });

  it("cuts long names to 64 characters, distinct per tool", () => {
    const first = qualifiedToolName("server", `${"a".repeat(80)}1`);
    const second = qualifiedToolName("server", `${"a".repeat(80)}2`);
    expect(first).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(first).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(first).not.toBe(second);
  });
});
