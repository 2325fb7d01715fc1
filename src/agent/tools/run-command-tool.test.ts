// run_command with real processes: refused unless asked for or approved, exit codes, timeouts
// and interrupts that kill the whole process group, and long output keeping its tail.
import { afterEach, describe, expect, it } from "vitest";
import {
  createToolWorkspace,
  type ToolWorkspace,
} from "../../../test/agent/support/tool-context.ts";
import type { CommandApprovalRequest } from "../approval/command-approval.ts";
import { ToolRegistry } from "./tool-registry.ts";

const registry = new ToolRegistry();
let workspace: ToolWorkspace;
afterEach(() => workspace.remove());

async function run(args: Record<string, unknown>) {
  return registry
    .prepare({ id: "c", name: "run_command", arguments: JSON.stringify(args) })
    .run(workspace.context);
}

describe("run_command", () => {
  it("refuses a command the user did not ask for", async () => {
    workspace = createToolWorkspace({ userText: "Fix the typo in README.md" });
    const result = await run({ command: "echo hi > made.txt" });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^not approved: ask the user/);
  });

  it("runs a read-only command unasked, in the workspace; without a sandbox a named one asks", async () => {
    workspace = createToolWorkspace({ userText: "please run `ls -a` and then `exit 3`" });
    workspace.write("marker.txt", "x");
    expect((await run({ command: "ls -a" })).output).toContain("marker.txt\n[exit code 0]");
    const unsandboxed = await run({ command: "exit 3" });
    expect(unsandboxed.isError).toBe(true);
    expect(unsandboxed.output).toContain("commands run without a sandbox here");
  });

  it("reports the exit code of an approved command", async () => {
    workspace = createToolWorkspace({ approval: { autoApprove: true } });
    expect((await run({ command: "exit 3" })).output).toBe("(no output)\n[exit code 3]");
  });

  it("asks an interactive approver about the whole command, and why", async () => {
    const asked: CommandApprovalRequest[] = [];
    workspace = createToolWorkspace({
      userText: "run echo approved",
      approval: { autoApprove: false, ask: async (request) => (asked.push(request), true) },
    });
    const smuggling = "echo approved && echo $((40 + 2))";
    expect((await run({ command: smuggling })).output).toBe("approved\n42\n[exit code 0]");
    expect(asked).toEqual([
      {
        command: smuggling,
        cwd: workspace.root,
        reason:
          "it uses command chaining &&, so only explicit approval of the whole command can run it",
      },
    ]);
  });

  it("tells the model when the user declined", async () => {
    workspace = createToolWorkspace({
      approval: { autoApprove: false, ask: () => Promise.resolve(false) },
    });
    workspace.write("keep.txt", "x");
    const result = await run({ command: "rm keep.txt" });
    expect(result.output).toMatch(
      /^not approved: ask the user. `rm keep.txt` was not run: the user declined it/,
    );
    expect(workspace.read("keep.txt")).toBe("x");
  });

  it("kills the process group when the timeout passes", async () => {
    workspace = createToolWorkspace({ approval: { autoApprove: true } });
    const started = performance.now();
    const result = await run({ command: "echo begun; sleep 30 & sleep 30", timeoutMs: 1000 });
    expect(result.output).toBe("begun\n[killed: still running after 1000 ms]");
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("stops at once when the turn is interrupted", async () => {
    const controller = new AbortController();
    workspace = createToolWorkspace({ approval: { autoApprove: true }, signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const result = await run({ command: "sleep 10" });
    expect(result.isError).toBe(true);
    expect(result.output).toContain("[interrupted by the user]");
    // A generous bound: without the kill this waits for all of `sleep 10`.
  }, 5000);

  it("keeps the tail of long output", async () => {
    workspace = createToolWorkspace({ approval: { autoApprove: true } });
    const result = await run({ command: "seq 1 1000" });
    expect(result.output).toMatch(/^\[output truncated: showing the last 256 of 1001 lines\./);
    expect(result.output.endsWith("999\n1000\n[exit code 0]")).toBe(true);
  });
});
