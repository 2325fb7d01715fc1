// A real `spark serve` (scripted engine) started before the test that uses it is known: its
// script is a named pipe, which the server reads as it loads its default model at start. So
// everything before that (the CLI, config, gateway, app server: ~9 s of a test under load) runs
// while the previous test does, and the test's turns, written into the pipe when it takes the
// server, let it listen within milliseconds. Then a plain file with the same turns replaces the
// pipe, for the agent sessions that read the script again (each plays it from its first turn).
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { closeSync, constants, openSync, renameSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createAgentWorkspace, type AgentWorkspace } from "../../agent/support/agent-workspace.ts";
import { SPARK_BIN, type SparkServeProcess } from "../../web/support/spark-serve-process.ts";

export class SpareSparkServe {
  private output = "";
  private taken = false;
  private readonly exited: Promise<number | null>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly workspace: AgentWorkspace,
    private readonly home: string,
    private readonly script: string,
  ) {
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      this.output += chunk;
    });
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null) resolve(child.exitCode);
      else child.once("exit", (code) => resolve(code));
    });
  }

  /**
   * Starts `spark serve` on a new workspace; it waits in its start for the turns of `take`. Its
   * agent sessions may also run in `otherWorkspaceRoots` (the pool's windows folder).
   */
  static start(otherWorkspaceRoots: readonly string[] = []): SpareSparkServe {
    const workspace = createAgentWorkspace();
    const home = path.dirname(workspace.sessionsDirectory);
    const script = path.join(home, "script.jsonl");
    execFileSync("mkfifo", [script]);
    const roots = workspaceRootArguments(workspace.root, otherWorkspaceRoots);
    const child = spawn(
      process.execPath,
      [SPARK_BIN, "serve", "--model", `script:${script}`, "--port", "0", ...roots],
      {
        cwd: workspace.root,
        env: { ...process.env, SPARK_HOME: home },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    return new SpareSparkServe(child, workspace, home, script);
  }

  /** Gives the server the scripted model's turns, once it listens. */
  async take(turns: unknown[]): Promise<SparkServeProcess> {
    if (this.taken) throw new Error("This spare spark serve was already taken.");
    this.taken = true;
    const text = turns.map((turn) => JSON.stringify(turn)).join("\n") + "\n";
    const written = this.writeScript(text);
    let url: string;
    try {
      url = await this.listening();
    } catch (error) {
      await this.discard();
      throw error;
    }
    // The default model is loaded before the server listens, so the pipe was read by now; the
    // file replaces it before anything else reads the script (a window opens later).
    await Promise.race([written, sleep(1_000)]);
    const stop = (): Promise<void> => this.stop();
    return {
      url,
      workspace: this.workspace,
      home: this.home,
      output: () => this.output,
      stop,
      close: () => stop().then(() => this.workspace.remove()),
    };
  }

  /** Stops a server no test took, and removes its workspace. */
  async discard(): Promise<void> {
    await this.stop();
    this.workspace.remove();
  }

  /**
   * Writes the turns into the pipe, then puts a file with them in its place. Never throws: what
   * went wrong is added to the server's output, which a failing test prints.
   */
  private async writeScript(text: string): Promise<void> {
    try {
      // The write waits for the server to open the pipe; a server that exited never will.
      const write = writeFile(this.script, text);
      const outcome = await Promise.race([
        write.then(() => "written" as const),
        this.exited.then(() => "exited" as const),
      ]);
      if (outcome === "exited") {
        // Opening the other end lets the blocked write finish instead of holding a thread.
        const reader = openSync(this.script, constants.O_RDONLY | constants.O_NONBLOCK);
        await Promise.race([write.catch(() => undefined), sleep(1_000)]);
        closeSync(reader);
        return;
      }
      const file = `${this.script}.file`;
      writeFileSync(file, text);
      renameSync(file, this.script);
    } catch (error) {
      this.output += `\n(test harness) writing the script failed: ${String(error)}\n`;
    }
  }

  private listening(): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const match = /listening on (http:\/\/[^\s]+)/.exec(this.output);
        if (match?.[1] === undefined) return;
        this.child.stderr?.off("data", check);
        resolve(match[1]);
      };
      this.child.stderr?.on("data", check);
      check();
      void this.exited.then((code) =>
        reject(
          new Error(`spark serve exited with ${String(code)} before listening:\n${this.output}`),
        ),
      );
    });
  }

  private async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5_000);
    this.child.kill("SIGTERM");
    await this.exited;
    clearTimeout(timer);
  }
}

/**
 * `spark serve`'s arguments for agent sessions in `otherRoots` besides its own workspace; none
 * without other roots (its workspace is then its only one).
 */
export function workspaceRootArguments(own: string, otherRoots: readonly string[]): string[] {
  if (otherRoots.length === 0) return [];
  return [own, ...otherRoots].flatMap((root) => ["--workspace-root", root]);
}
