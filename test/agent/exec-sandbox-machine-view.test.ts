// What of the machine a sandboxed command sees (issue 32, finding 3), through the real `spark exec`
// running approved commands in a real bwrap: only the system roots, the toolchain and the
// workspace. A real redis-server on a unix socket in a folder beside the checkout (a place no rule
// names: another project, an unknown top-level folder) is unreachable and the folder absent; the
// unknown top-level folders of this machine are absent; AF_VSOCK sockets and io_uring fail with
// EPERM inside (the seccomp filter) and work outside; python from pyenv still runs.
import { execFileSync } from "node:child_process";
import {
  accessSync,
  constants,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SYSTEM_ROOTS } from "../../src/agent/sandbox/system-roots.ts";
import { TOOLCHAIN_ENVIRONMENT_FOLDERS } from "../../src/agent/sandbox/toolchain-environment-folders.ts";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { startRedisOnSocket } from "./support/redis-on-socket.ts";
import { missingSandbox, OUTSIDE_TMP, runApprovedCommands } from "./support/sandboxed-commands.ts";

const missing = await missingSandbox();
const CHECKOUT = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");
/** Beside the checkout: no rule hides it, only the allow-list of roots leaves it out. */
const BESIDE_CHECKOUT = path.dirname(CHECKOUT);
const besideWritable = isWritable(BESIDE_CHECKOUT) && !BESIDE_CHECKOUT.startsWith("/tmp");
const filtered = process.arch === "x64" || process.arch === "arm64";

let workspace: AgentWorkspace;
beforeEach(() => {
  workspace = createAgentWorkspace(OUTSIDE_TMP);
  execFileSync("git", ["init", "-q", workspace.root]);
});
afterEach(() => workspace.remove());

describe.skipIf(missing !== undefined)("a sandboxed command's view of the machine", () => {
  it.skipIf(!besideWritable)(
    "reaches no socket in a folder beside the checkout, and does not see the folder",
    async () => {
      const folder = mkdtempSync(path.join(BESIDE_CHECKOUT, "spark-test-other-project-"));
      const socket = path.join(folder, "app.sock");
      const redis = await startRedisOnSocket(socket);
      try {
        expect(execFileSync("redis-cli", ["-s", socket, "ping"], { encoding: "utf8" })).toBe(
          "PONG\n",
        );
        const [ping, listing] = await runApprovedCommands(workspace, [
          `redis-cli -s ${socket} set planted-by-the-command 1; redis-cli -s ${socket} ping; ls -d ${folder}`,
          `ls -A ${BESIDE_CHECKOUT}`,
        ]);
        expect(ping?.output).not.toContain("PONG");
        expect(ping?.output).toContain(`ls: cannot access '${folder}': No such file or directory`);
        expect(
          execFileSync("redis-cli", ["-s", socket, "exists", "planted-by-the-command"], {
            encoding: "utf8",
          }),
        ).toBe("0\n");
        // Only the way to the workspace (and toolchain folders, when any lie there).
        const names = entries(listing?.output);
        expect(names).toContain(path.basename(CHECKOUT));
        expect(names).not.toContain(path.basename(folder));
        expect(names.filter((name) => !expectedBeside().has(name))).toEqual([]);
      } finally {
        redis.kill("SIGTERM");
        rmSync(folder, { recursive: true, force: true });
      }
    },
  );

  it("sees no top-level folder but the system roots and the ways to what it needs", async () => {
    const [listing] = await runApprovedCommands(workspace, ["ls -A /"]);
    const seen = entries(listing?.output);
    const expected = expectedTopLevel([workspace.root]);
    expect(seen.filter((name) => !expected.has(name))).toEqual([]);
    // Every folder the host has at the top that the sandbox does not name is absent.
    const unnamed = readdirSync("/").filter(
      (name) => isDirectory(path.join("/", name)) && !expected.has(name),
    );
    for (const name of unnamed) expect(seen, name).not.toContain(name);
  });

  it("cannot open an AF_VSOCK socket or io_uring inside; both work outside", async () => {
    const probe = [
      "import ctypes, socket",
      "try:",
      "    socket.socket(40, socket.SOCK_STREAM); print('vsock opened')",
      "except OSError as error: print('vsock errno', error.errno)",
      "libc = ctypes.CDLL(None, use_errno=True)",
      "result = libc.syscall(425, 4, ctypes.create_string_buffer(120))",
      "print('io_uring', 'opened' if result >= 0 else 'errno %d' % ctypes.get_errno())",
    ].join("\n");
    const outside = execFileSync("python3", ["-c", probe], { encoding: "utf8" });
    const [inside] = await runApprovedCommands(workspace, [
      `python3 -c "${probe.replace(/"/g, '\\"')}"`,
    ]);
    if (!filtered) return;
    expect(inside?.output).toContain("vsock errno 1\n");
    expect(inside?.output).toContain("io_uring errno 1\n");
    // Where the kernel offers them at all, outside the sandbox they open.
    if (!outside.includes("vsock errno 97")) expect(outside).toContain("vsock opened");
    if (!/io_uring errno (38|1)\n/.test(outside)) expect(outside).toContain("io_uring opened");
  });

  it("still runs python from a version manager, and writes nowhere outside the workspace", async () => {
    const [python, write] = await runApprovedCommands(workspace, [
      "python3 -c 'print(6 * 7)'",
      "touch /spark-test-root-file; echo $?",
    ]);
    expect(python?.output).toBe("42\n[exit code 0]");
    expect(write?.output).toContain("Read-only file system");
  });
});

function entries(output: string | undefined): string[] {
  return (output ?? "").split("\n").filter((line) => line !== "" && !line.startsWith("[exit code"));
}

/** First components of what the sandbox binds by rule: roots, private folders, toolchains. */
function expectedTopLevel(extra: readonly string[]): Set<string> {
  const paths = [
    ...SYSTEM_ROOTS,
    "/dev",
    "/proc",
    "/tmp",
    "/var",
    "/run",
    ...extra,
    ...toolchainPaths(),
  ];
  return new Set(paths.map((candidate) => candidate.split("/")[1] ?? ""));
}

/** Names under BESIDE_CHECKOUT that a rule binds (the checkout; toolchains kept there). */
function expectedBeside(): Set<string> {
  const names = new Set([path.basename(CHECKOUT)]);
  for (const candidate of toolchainPaths()) {
    const relative = path.relative(BESIDE_CHECKOUT, candidate);
    if (relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative))
      names.add(relative.split(path.sep)[0] ?? "");
  }
  return names;
}

function toolchainPaths(): string[] {
  const homes = [process.env.HOME ?? "", os.homedir(), os.userInfo().homedir];
  const pathEntries = (process.env.PATH ?? "").split(path.delimiter);
  const variables = Object.keys(TOOLCHAIN_ENVIRONMENT_FOLDERS).flatMap((name) =>
    (process.env[name] ?? "").split(path.delimiter),
  );
  return [...homes, ...pathEntries, ...variables, path.dirname(path.dirname(process.execPath))]
    .filter((candidate) => path.isAbsolute(candidate))
    .flatMap((candidate) => [candidate, realOrSelf(candidate)]);
}

function realOrSelf(candidate: string): string {
  try {
    return execFileSync("realpath", [candidate], { encoding: "utf8" }).trim();
  } catch {
    return candidate;
  }
}

function isDirectory(candidate: string): boolean {
  try {
    return statSync(candidate).isDirectory();
  } catch {
    return false;
  }
}

function isWritable(folder: string): boolean {
  try {
    accessSync(folder, constants.W_OK);
    mkdirSync(folder, { recursive: true });
    return true;
  } catch {
    return false;
  }
}
