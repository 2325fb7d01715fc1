// Runs `spark --model script:…` in a tmux pane of a test's own, in a temporary repository with a
// SPARK_HOME of its own: the scripted turns, the pane's size and extra flags are the test's.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { createAgentWorkspace, type AgentWorkspace } from "../../agent/support/agent-workspace.ts";
import { SPARK, type TmuxServer } from "./tmux-pane.ts";

export interface SparkPane {
  workspace: AgentWorkspace;
  sparkHome: string;
  script: string;
  /** The shell command line that starts spark (again) in this workspace. */
  commandLine: (extraArguments?: string) => string;
  /** Starts spark in a new tmux session named `target`. */
  start: (target: string, options?: { columns?: number; rows?: number; extra?: string }) => void;
  /** tmux send-keys to `target`, each argument a key or a literal string. */
  keys: (target: string, ...keys: string[]) => void;
}

export function sparkPane(server: TmuxServer, turns: readonly object[]): SparkPane {
  const workspace = createAgentWorkspace();
  execFileSync("git", ["init", "-q"], { cwd: workspace.root });
  const sparkHome = path.dirname(workspace.sessionsDirectory);
  const script = path.join(sparkHome, "..", "turns.jsonl");
  writeFileSync(script, turns.map((turn) => JSON.stringify(turn)).join("\n") + "\n");
  const commandLine = (extra = ""): string =>
    `env SPARK_HOME='${sparkHome}' '${process.execPath}' '${SPARK}' --model 'script:${script}' ${extra}; echo "spark exited with $?"; sleep 600`;
  return {
    workspace,
    sparkHome,
    script,
    commandLine,
    start(target, options = {}) {
      server.run(
        "new-session",
        "-d",
        "-s",
        target,
        "-x",
        String(options.columns ?? 100),
        "-y",
        String(options.rows ?? 40),
        "-c",
        workspace.root,
        commandLine(options.extra),
      );
    },
    keys(target, ...keys) {
      server.run("send-keys", "-t", target, ...keys);
    },
  };
}

/** How often `pattern` occurs in `text`. */
export function occurrences(text: string, pattern: RegExp): number {
  return (
    text.match(
      new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`),
    )?.length ?? 0
  );
}
