// `spark doctor` lists what a sandboxed command run in the current folder sees (issue 32): the
// system roots read-only (nothing else of the machine), the homes, /run and /tmp hidden, the allow-listed toolchain folders of the
// user's home read-only, the workspace writable with its .git read-only, and Spark's own folder
// hidden even inside the workspace; and the seccomp filter. Skips where bubblewrap cannot run (doctor lists no mounts).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeCommandSandbox } from "../../src/agent/sandbox/detect-command-sandbox.ts";
import type { DoctorReport } from "../../src/cli/doctor/doctor-report.ts";
import { runSpark } from "./support/run-spark-cli.ts";

const detection = await probeCommandSandbox({
  platform: process.platform,
  searchPath: process.env.PATH,
});
const SCRATCH = fileURLToPath(new URL("../../.spark-test/doctor/", import.meta.url));

describe.skipIf(detection.kind === "none")("spark doctor's command view", () => {
  let base: string;
  let workspace: string;
  let home: string;
  let sparkHome: string;
  beforeAll(() => {
    mkdirSync(SCRATCH, { recursive: true });
    base = realpathSync(mkdtempSync(path.join(SCRATCH, "view-")));
    workspace = path.join(base, "repo");
    home = path.join(base, "home");
    sparkHome = path.join(workspace, "spark-home");
    mkdirSync(sparkHome, { recursive: true });
    mkdirSync(path.join(home, ".cargo", "bin"), { recursive: true });
    mkdirSync(path.join(home, ".ssh"));
    execFileSync("git", ["init", "-q", workspace]);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it("prints the mounts in order, the allow-list and the network", async () => {
    const result = await runSpark(
      ["doctor", "--offline"],
      { HOME: home, SPARK_HOME: sparkHome },
      workspace,
    );
    expect(result.stderr).toBe("");
    const lines = result.stdout.split("\n");
    const start = lines.indexOf(
      `  what a command run in ${workspace} sees (a later line wins over an earlier one):`,
    );
    expect(start).toBeGreaterThan(0);
    const view = lines.slice(start + 1, start + 40).join("\n");
    expect(view).toMatch(/^ {4}read-only: \/usr \(the system\)\n/);
    expect(view).toMatch(/read-only: \/etc, \/opt, \/sys.* \(the system\)/);
    expect(view).not.toMatch(/read-only: \/ /);
    expect(view).toMatch(new RegExp(`hidden: {4}(\\S+, )*${home}(, \\S+)* \\(home directories\\)`));
    expect(view).toContain("absent:    every other folder of the machine");
    expect(view).toContain("hidden:    /run (daemons' sockets)");
    expect(view).toContain("hidden:    /tmp, /var/tmp (private temporary files)");
    expect(view).toContain(`${home}/.cargo/bin`);
    expect(view).not.toContain(`${home}/.ssh`);
    expect(view).toContain(`writable:  ${workspace} (the workspace)`);
    // With the git directories of the repositories around it (a checkout holding this test's).
    expect(view).toContain(`read-only: ${workspace}/.git`);
    expect(view).toContain(`hidden:    ${sparkHome} (Spark's folder: its keys and session logs)`);
    expect(view).toContain("home folders shown read-only where they exist: .nvm,");
    expect(view).toContain("network: off");
    if (process.arch === "x64" || process.arch === "arm64")
      expect(view).toContain("socket() and socketpair() for AF_VSOCK, io_uring_setup");
    else expect(view).toContain(`no seccomp filter for ${process.arch}`);
    // The same, as data.
    const json = await runSpark(
      ["doctor", "--offline", "--json"],
      { HOME: home, SPARK_HOME: sparkHome },
      workspace,
    );
    const report = JSON.parse(json.stdout) as DoctorReport;
    expect(report.commandView?.seccomp.installed).toBe(
      process.arch === "x64" || process.arch === "arm64",
    );
    expect(report.commandView?.mounts.at(-1)).toEqual({
      access: "hidden",
      path: sparkHome,
      reason: "Spark's folder: its keys and session logs",
    });
  });
});
