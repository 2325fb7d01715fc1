// What a sandboxed command can reach (issue 32, finding 3), through the real `spark exec` with the
// scripted model running approved commands in a real bwrap: no secret of the user's (a fake HOME
// outside /tmp with ~/.ssh, ~/.aws, ~/.npmrc), none of Spark's (SPARK_HOME's config with keys,
// the session logs), none of the system's (/etc/shadow); no host socket (a real redis-server on a
// unix socket in that HOME) and no host SysV IPC; and the toolchain still works.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { startRedisOnSocket } from "./support/redis-on-socket.ts";
import { missingSandbox, OUTSIDE_TMP, runApprovedCommands } from "./support/sandboxed-commands.ts";

const missing = await missingSandbox();

let workspace: AgentWorkspace;
/** The user's home as the commands' $HOME names it: outside /tmp, beside the workspace. */
let home: string;
let sparkHome: string;

function put(file: string, content: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

beforeEach(() => {
  workspace = createAgentWorkspace(OUTSIDE_TMP);
  execFileSync("git", ["init", "-q", workspace.root]);
  sparkHome = path.dirname(workspace.sessionsDirectory);
  home = path.join(path.dirname(workspace.root), "user-home");
  put(path.join(home, ".ssh", "id_rsa"), "FAKE-SSH-PRIVATE-KEY\n");
  put(path.join(home, ".aws", "credentials"), "aws_secret_access_key = FAKE-AWS-SECRET\n");
  put(path.join(home, ".npmrc"), "//registry.npmjs.org/:_authToken=FAKE-NPM-TOKEN\n");
  put(path.join(home, ".cargo", "credentials.toml"), 'token = "FAKE-CARGO-TOKEN"\n');
  put(path.join(home, ".cargo", "bin", "toolchain-marker"), "a toolchain file\n");
  put(path.join(sparkHome, "config.toml"), '[serve]\napi_keys = ["FAKE-SPARK-API-KEY"]\n');
});
afterEach(() => workspace.remove());

function asUser(): Record<string, string> {
  return { HOME: home };
}

describe.skipIf(missing !== undefined)("a sandboxed command", () => {
  it("reads no secret of the user's, Spark's or the system's", async () => {
    const [result] = await runApprovedCommands(
      workspace,
      [
        [
          "cat ~/.ssh/id_rsa ~/.aws/credentials ~/.npmrc ~/.cargo/credentials.toml",
          `cat ${sparkHome}/config.toml`,
          `ls -A ${workspace.sessionsDirectory}`,
          "cat /etc/shadow",
          "ls -A /run /run/user /var/run",
          // The allow-listed toolchain folder is there, read-only; the rest of the home is not.
          "cat ~/.cargo/bin/toolchain-marker",
          "ls -A ~ ~/.cargo",
        ].join("; "),
      ],
      asUser(),
    );
    const output = result?.output ?? "";
    for (const secret of [
      "FAKE-SSH-PRIVATE-KEY",
      "FAKE-AWS-SECRET",
      "FAKE-NPM-TOKEN",
      "FAKE-CARGO-TOKEN",
      "FAKE-SPARK-API-KEY",
      ".jsonl",
      "root:",
    ])
      expect(output, secret).not.toContain(secret);
    expect(output).toContain("a toolchain file\n");
    // The home holds only what the allow-list names: ~/.cargo with only its bin folder.
    expect(output).toMatch(new RegExp(`${home}:\\n\\.cargo\\n`));
    expect(output).toMatch(new RegExp(`${home}/\\.cargo:\\nbin\\n`));
    // Spark's folder is there, empty: the command sees neither the config nor the sessions.
    expect(existsSync(path.join(sparkHome, "config.toml"))).toBe(true);
  });

  it("reaches no filesystem socket outside the workspace", async () => {
    const socket = path.join(home, ".docker", "run", "redis.sock");
    mkdirSync(path.dirname(socket), { recursive: true });
    const redis = await startRedisOnSocket(socket);
    try {
      expect(execFileSync("redis-cli", ["-s", socket, "ping"], { encoding: "utf8" })).toBe(
        "PONG\n",
      );
      const [ping, sockets] = await runApprovedCommands(
        workspace,
        [
          `redis-cli -s ${socket} set planted-by-the-command 1; redis-cli -s ${socket} ping`,
          // Every socket the command can see: none outside the workspace. /usr, /proc and /sys
          // hold none and take the most time to walk.
          "find / \\( -path /proc -o -path /sys -o -path /usr \\) -prune -o -type s -print 2>/dev/null",
        ],
        asUser(),
      );
      expect(ping?.output).not.toContain("PONG");
      expect(ping?.output).toMatch(/No such file or directory/);
      expect(
        execFileSync("redis-cli", ["-s", socket, "exists", "planted-by-the-command"], {
          encoding: "utf8",
        }),
      ).toBe("0\n");
      const visible = (sockets?.output ?? "")
        .split("\n")
        .filter((line) => line.startsWith("/") && !line.startsWith(`${workspace.root}/`));
      expect(visible).toEqual([]);
    } finally {
      redis.kill("SIGTERM");
    }
  });

  it("sees no SysV IPC object of the host's and cannot remove one", async () => {
    const created = execFileSync("ipcmk", ["-M", "4096"], { encoding: "utf8" });
    const id = /(\d+)/.exec(created)?.[1] ?? "";
    expect(id).not.toBe("");
    try {
      const [result] = await runApprovedCommands(workspace, [
        `ipcs -m; ipcrm -m ${id}; echo "ipcrm exit $?"`,
      ]);
      const output = result?.output ?? "";
      expect(output).not.toMatch(new RegExp(`^\\S+\\s+${id}\\s`, "m"));
      expect(output).toMatch(/ipcrm exit [1-9]/);
      // Still there on the host.
      expect(execFileSync("ipcs", ["-m", "-i", id], { encoding: "utf8" })).toContain(id);
    } finally {
      try {
        execFileSync("ipcrm", ["-m", id], { stdio: "ignore" });
      } catch {
        // The command removed it (what the sandbox must prevent); the test has failed already.
      }
    }
  });

  it("still runs the toolchain: node, npm test and git", async () => {
    workspace.write(
      "package.json",
      JSON.stringify({ name: "w", scripts: { test: "node -e \"console.log('tests ran')\"" } }),
    );
    const results = await runApprovedCommands(
      workspace,
      ["node --version", "npm test --silent", "git status --short"],
      asUser(),
    );
    expect(results[0]?.output).toBe(`${process.version}\n[exit code 0]`);
    expect(results[1]?.output).toBe("tests ran\n[exit code 0]");
    expect(results[2]?.output).toBe("?? package.json\n[exit code 0]");
  });
});
