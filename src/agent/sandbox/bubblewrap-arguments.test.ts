// bwrap's command line: the order of the mounts is the security (a later mount overrides an
// earlier one), so it is checked whole.
import { describe, expect, it } from "vitest";
import { bubblewrapCommandLine } from "./bubblewrap-arguments.ts";

describe("bubblewrapCommandLine", () => {
  it("mounts / read-only, a private /tmp, the workspace writable, then its protected folders read-only", () => {
    const argv = bubblewrapCommandLine(
      {
        workspaceRoot: "/home/ada/repo",
        cwd: "/home/ada/repo",
        readOnlyPaths: ["/home/ada/repo/.git", "/home/ada/repo/.spark"],
        network: false,
      },
      "npm test",
    );
    // prettier-ignore
    expect(argv).toEqual([
      "--ro-bind", "/", "/",
      "--dev", "/dev",
      "--proc", "/proc",
      "--tmpfs", "/tmp",
      "--bind", "/home/ada/repo", "/home/ada/repo",
      "--ro-bind", "/home/ada/repo/.git", "/home/ada/repo/.git",
      "--ro-bind", "/home/ada/repo/.spark", "/home/ada/repo/.spark",
      "--unshare-pid",
      "--unshare-net",
      "--cap-drop", "ALL",
      "--die-with-parent",
      "--new-session",
      "--chdir", "/home/ada/repo",
      "--", "/bin/sh", "-c", "npm test",
    ]);
  });

  it("keeps the network only when allowed", () => {
    const plan = { workspaceRoot: "/w", cwd: "/w", readOnlyPaths: [] };
    expect(bubblewrapCommandLine({ ...plan, network: true }, "true")).not.toContain(
      "--unshare-net",
    );
    expect(bubblewrapCommandLine({ ...plan, network: false }, "true")).toContain("--unshare-net");
  });

  it("binds a workspace under /tmp after the private /tmp, so it stays visible", () => {
    const argv = bubblewrapCommandLine(
      { workspaceRoot: "/tmp/w", cwd: "/tmp/w", readOnlyPaths: [], network: false },
      "true",
    );
    expect(argv.indexOf("--tmpfs")).toBeLessThan(argv.indexOf("--bind"));
  });
});
