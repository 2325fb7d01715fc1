// Which command lines the launcher puts in raw mode at once: only the interactive terminal UI,
// never exec, serve, prompt or help (their stdin is the user's, cooked, or a pipe).
import { describe, expect, it } from "vitest";
import { startsTerminalUi } from "../../bin/hold-keys-early.js";

describe("startsTerminalUi", () => {
  it("is the UI with no command, tui, and the UI's own options", () => {
    expect(startsTerminalUi([])).toBe(true);
    expect(startsTerminalUi(["tui"])).toBe(true);
    expect(startsTerminalUi(["--model", "exec", "--allow-commands"])).toBe(true);
    expect(startsTerminalUi(["tui", "-m", "script:x.jsonl", "--session=ab12", "--cwd", "/r"])).toBe(
      true,
    );
  });

  it("is not any other command, help, version, or an unknown word", () => {
    for (const argumentsAfterScript of [
      ["exec", "fix it"],
      ["serve"],
      ["prompt", "hi"],
      ["sessions"],
      ["--help"],
      ["-v"],
      ["--model", "m", "exec", "x"],
      ["tui", "--help"],
      ["tui", "tui"],
    ])
      expect(startsTerminalUi(argumentsAfterScript)).toBe(false);
  });
});
