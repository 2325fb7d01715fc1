import { describe, expect, it } from "vitest";
import { parseSlashCommand } from "./slash-command.ts";
import { completeSlashCommand, findSlashCommand, slashCommands } from "./slash-commands.ts";

describe("slash commands", () => {
  it("has the issue's ten commands, /output, /status and /init (issue 37)", () => {
    expect(slashCommands.map((command) => command.name)).toEqual([
      "undo",
      "diff",
      "output",
      "model",
      "new",
      "resume",
      "sessions",
      "compact",
      "status",
      "init",
      "mcp",
      "clear",
      "help",
      "quit",
    ]);
    expect(findSlashCommand("model")?.name).toBe("model");
  });

  it("completes a partial name, leaving room for an argument where one is taken", () => {
    expect(completeSlashCommand("/re").map((suggestion) => suggestion.value)).toEqual(["/resume "]);
    expect(completeSlashCommand("/").length).toBe(slashCommands.length);
    expect(completeSlashCommand("/c").map((suggestion) => suggestion.value)).toEqual([
      "/compact",
      "/clear",
    ]);
    expect(completeSlashCommand("/model x")).toEqual([]);
    expect(completeSlashCommand("hello")).toEqual([]);
  });

  it("parses a command and its arguments", () => {
    expect(parseSlashCommand("/Model  fast ")).toEqual({ name: "model", args: "fast" });
    expect(parseSlashCommand("/undo")).toEqual({ name: "undo", args: "" });
    expect(parseSlashCommand("not a command")).toBeUndefined();
  });
});
