// bwrap's command line: the order of the mounts is the security (a later mount overrides an
// earlier one), so it is checked whole.
import { describe, expect, it } from "vitest";
import { bubblewrapCommandLine } from "./bubblewrap-arguments.ts";
import type { SandboxMount } from "./sandbox-mounts.ts";

const mounts: SandboxMount[] = [
  { kind: "read-only", source: "/usr", target: "/usr", reason: "the system" },
  { kind: "link", linkTarget: "usr/bin", target: "/bin", reason: "the system" },
  { kind: "devices", target: "/dev", reason: "" },
  { kind: "processes", target: "/proc", reason: "" },
  { kind: "empty", target: "/home", reason: "" },
  { kind: "empty", target: "/tmp", reason: "" },
  { kind: "masked", target: "/etc/shadow", reason: "" },
  { kind: "read-only", source: "/opt/nvm", target: "/home/ada/.nvm", reason: "" },
  { kind: "writable", target: "/home/ada/repo", reason: "" },
  { kind: "read-only", source: "/home/ada/repo/.git", target: "/home/ada/repo/.git", reason: "" },
  { kind: "empty", target: "/home/ada/repo/.spark-home", reason: "" },
];

describe("bubblewrapCommandLine", () => {
  it("makes the mounts in their order, then its own namespaces, and runs the command in cwd", () => {
    const argv = bubblewrapCommandLine(
      { mounts, cwd: "/home/ada/repo/src", network: false, seccompDescriptor: 3 },
      "npm test",
    );
    // prettier-ignore
    expect(argv).toEqual([
      "--ro-bind", "/usr", "/usr",
      "--symlink", "usr/bin", "/bin",
      "--dev", "/dev",
      "--proc", "/proc",
      "--tmpfs", "/home",
      "--tmpfs", "/tmp",
      "--ro-bind", "/dev/null", "/etc/shadow",
      "--ro-bind", "/opt/nvm", "/home/ada/.nvm",
      "--bind", "/home/ada/repo", "/home/ada/repo",
      "--ro-bind", "/home/ada/repo/.git", "/home/ada/repo/.git",
      "--tmpfs", "/home/ada/repo/.spark-home",
      "--remount-ro", "/",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      "--unshare-net",
      "--cap-drop", "ALL",
      "--die-with-parent",
      "--new-session",
      "--seccomp", "3",
      "--chdir", "/home/ada/repo/src",
      "--", "/bin/sh", "-c", "npm test",
    ]);
  });

  it("reads a seccomp program only when given a descriptor", () => {
    expect(bubblewrapCommandLine({ mounts, cwd: "/", network: false }, "true")).not.toContain(
      "--seccomp",
    );
  });

  it("keeps the network only when allowed", () => {
    expect(bubblewrapCommandLine({ mounts, cwd: "/", network: true }, "true")).not.toContain(
      "--unshare-net",
    );
    expect(bubblewrapCommandLine({ mounts, cwd: "/", network: false }, "true")).toContain(
      "--unshare-net",
    );
  });
});
