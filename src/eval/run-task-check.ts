// Runs a task's check (`node check.mjs`) in the edited repository: passed means exit code 0.
import { noCommandSandbox } from "../agent/sandbox/command-sandbox.ts";
import { runProcess } from "../agent/tools/run-process.ts";
import { quoteShellWords } from "../agent/approval/parse-shell-command.ts";

/** What a failed check printed, for the report: its last characters are where asserts land. */
const OUTPUT_TAIL_CHARACTERS = 2000;

export interface TaskCheckResult {
  passed: boolean;
  exitCode: number | null;
  timedOut: boolean;
  /** The end of what the check printed (empty when it passed quietly). */
  output: string;
}

export async function runTaskCheck(
  checkPath: string,
  repositoryRoot: string,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<TaskCheckResult> {
  const outcome = await runProcess({
    command: quoteShellWords([process.execPath, checkPath]),
    cwd: repositoryRoot,
    workspaceRoot: repositoryRoot,
    // Spark's own check, not an agent's command: it reads the task folder wherever it is.
    sandbox: noCommandSandbox("the eval's check is Spark's own"),
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
  const output = outcome.spawnError?.message ?? outcome.output;
  return {
    passed: outcome.exitCode === 0 && !outcome.timedOut && !outcome.aborted,
    exitCode: outcome.exitCode,
    timedOut: outcome.timedOut,
    output: output.length > OUTPUT_TAIL_CHARACTERS ? output.slice(-OUTPUT_TAIL_CHARACTERS) : output,
  };
}
