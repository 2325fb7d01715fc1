// The sandbox's view, from real folders: a home is hidden but for its allow-listed toolchain
// folders and PATH, the workspace is writable wherever it lies, and Spark's folder is hidden
// wherever it lies (around, inside or beside the workspace). bwrap itself is exercised by
// test/agent/exec-sandbox-secrets.test.ts; here the order and choice of mounts is.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isHidden, sandboxMounts, type SandboxViewInput } from "./sandbox-mounts.ts";

/** Outside /tmp, which the sandbox empties whole: what is hidden here is hidden by the home rules. */
const SCRATCH = fileURLToPath(new URL("../../../.spark-test/mounts/", import.meta.url));

let base: string;
let home: string;
beforeEach(() => {
  mkdirSync(SCRATCH, { recursive: true });
  base = realpathSync(mkdtempSync(path.join(SCRATCH, "spark-mounts-")));
  home = path.join(base, "home");
  for (const folder of [".ssh", ".cargo/bin", ".cargo/registry", ".nvm", "bin", "repo/.git"])
    mkdirSync(path.join(home, folder), { recursive: true });
  writeFileSync(path.join(home, ".cargo", "credentials.toml"), "token");
  writeFileSync(path.join(home, ".npmrc"), "token");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function view(overrides: Partial<SandboxViewInput> = {}) {
  const input: SandboxViewInput = {
    workspaceRoot: path.join(home, "repo"),
    protectedReadOnly: [path.join(home, "repo", ".git")],
    sparkHome: path.join(home, ".spark"),
    homes: [home],
    searchPath: `/usr/bin:${path.join(home, "bin")}:relative/bin`,
    ...overrides,
  };
  const mounts = sandboxMounts(input);
  return { mounts, hidden: (candidate: string) => isHidden(mounts, candidate) };
}

describe("sandboxMounts", () => {
  it("hides the home but for the allow-list and PATH, and shows the workspace inside it", () => {
    const { mounts, hidden } = view();
    expect(hidden(path.join(home, ".ssh"))).toBe(true);
    expect(hidden(path.join(home, ".npmrc"))).toBe(true);
    expect(hidden(path.join(home, ".cargo", "credentials.toml"))).toBe(true);
    expect(hidden(path.join(home, ".cargo", "bin"))).toBe(false);
    expect(hidden(path.join(home, ".nvm"))).toBe(false);
    expect(hidden(path.join(home, "bin"))).toBe(false);
    expect(hidden(path.join(home, "repo", "src"))).toBe(false);
    expect(hidden("/usr/bin")).toBe(false);
    for (const folder of ["/tmp", "/run", "/root"]) expect(hidden(folder)).toBe(true);
    const kinds = mounts.map((mount) => `${mount.kind} ${mount.target}`);
    const workspace = kinds.indexOf(`writable ${path.join(home, "repo")}`);
    expect(kinds.indexOf(`read-only ${path.join(home, ".nvm")}`)).toBeLessThan(workspace);
    expect(kinds.indexOf(`read-only ${path.join(home, "repo", ".git")}`)).toBeGreaterThan(
      workspace,
    );
  });

  it("hides Spark's folder inside the workspace, and around it before binding the workspace", () => {
    const sparkHome = path.join(home, "repo", "spark-home");
    mkdirSync(sparkHome);
    const inside = view({ sparkHome });
    expect(inside.hidden(path.join(sparkHome, "config.toml"))).toBe(true);
    expect(inside.hidden(path.join(home, "repo", "src"))).toBe(false);
    const around = view({ sparkHome: home, homes: [] });
    expect(around.hidden(path.join(home, ".ssh"))).toBe(true);
    expect(around.hidden(path.join(home, "repo", "src"))).toBe(false);
  });

  it("hides a home's own files when the workspace is the home", () => {
    const { hidden } = view({ workspaceRoot: home });
    expect(hidden(path.join(home, ".ssh"))).toBe(true);
    expect(hidden(path.join(home, ".npmrc"))).toBe(true);
    expect(hidden(path.join(home, ".cargo", "credentials.toml"))).toBe(true);
    expect(hidden(path.join(home, ".cargo", "bin"))).toBe(false);
    expect(hidden(path.join(home, "repo", "src"))).toBe(false);
  });

  it("shows the system roots and nothing else of the machine", () => {
    const { mounts, hidden } = view();
    expect(mounts.some((mount) => mount.target === "/")).toBe(false);
    for (const visible of ["/usr/bin", "/etc/passwd"]) expect(hidden(visible)).toBe(false);
    // A folder no rule names (a sibling project, /var/lib's databases, /home) is absent.
    for (const absent of [path.join(base, "other-project"), "/var/lib", "/home", "/mnt"])
      expect(hidden(absent), absent).toBe(true);
    expect(hidden("/etc/shadow")).toBe(true);
    expect(mounts).toContainEqual({
      kind: "link",
      linkTarget: "../run",
      target: "/var/run",
      reason: "as on most systems",
    });
  });

  it("binds the toolchains the environment names and the running Node.js's installation", () => {
    const tools = path.join(base, "tools");
    for (const folder of ["nvm", "cargo/bin", "cargo/registry", "node/bin", "node/lib"])
      mkdirSync(path.join(tools, folder), { recursive: true });
    writeFileSync(path.join(tools, "cargo", "credentials.toml"), "token");
    writeFileSync(path.join(tools, "node", "bin", "node"), "");
    mkdirSync(path.join(home, ".jdks", "17"), { recursive: true });
    const { hidden } = view({
      executablePath: path.join(tools, "node", "bin", "node"),
      environment: {
        NVM_DIR: path.join(tools, "nvm"),
        CARGO_HOME: path.join(tools, "cargo"),
        // A home's dot-folder off the allow-list: not shown whatever the variable says.
        JAVA_HOME: path.join(home, ".jdks", "17"),
        // A folder holding the workspace would show its siblings: not bound.
        GOROOT: base,
      },
    });
    expect(hidden(path.join(tools, "nvm"))).toBe(false);
    expect(hidden(path.join(tools, "cargo", "bin"))).toBe(false);
    expect(hidden(path.join(tools, "cargo", "credentials.toml"))).toBe(true);
    expect(hidden(path.join(tools, "node", "lib"))).toBe(false);
    expect(hidden(path.join(home, ".jdks", "17"))).toBe(true);
    expect(hidden(path.join(base, "tools", "other"))).toBe(true);
  });

  it("binds no allow-listed folder that is a link to the home itself", () => {
    rmSync(path.join(home, ".nvm"), { recursive: true });
    symlinkSync(home, path.join(home, ".nvm"));
    const { mounts, hidden } = view();
    expect(mounts.some((mount) => mount.target === path.join(home, ".nvm"))).toBe(false);
    expect(hidden(path.join(home, ".nvm", ".ssh"))).toBe(true);
  });
});
