// Test helper: `spark eval` as a user runs it, a child process with SPARK_HOME in a temporary
// folder; collects stdout, stderr and the JSON report it wrote.
import { spawn, type ChildProcess } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { EvalReport } from "../../../src/eval/eval-report.ts";

const SPARK = fileURLToPath(new URL("../../../bin/spark.js", import.meta.url));

export interface EvalFolder {
  root: string;
  /** Writes a script (one JSON object per model turn) and returns its `script:` model name. */
  script(name: string, turns: unknown[]): string;
  remove(): void;
}

export function createEvalFolder(): EvalFolder {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-eval-test-")));
  return {
    root,
    script: (name, turns) => {
      const file = path.join(root, name);
      writeFileSync(file, turns.map((turn) => JSON.stringify(turn)).join("\n") + "\n");
      return `script:${file}`;
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface EvalCommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The --json report, when the command wrote one. */
  report: EvalReport | undefined;
}

/** Runs `spark eval <args> --json <folder>/report.json` in `folder`. */
export function sparkEval(
  folder: EvalFolder,
  args: string[],
  onStderr?: (stderrSoFar: string, child: ChildProcess) => void,
): Promise<EvalCommandRun> {
  const reportPath = path.join(folder.root, "report.json");
  rmSync(reportPath, { force: true });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SPARK, "eval", ...args, "--json", reportPath], {
      cwd: folder.root,
      // One thread: llama.cpp's spinning threads crawl on a shared two-core machine.
      env: { ...process.env, SPARK_HOME: path.join(folder.root, "home"), SPARK_THREADS: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      onStderr?.(stderr, child);
    });
    child.once("error", reject);
    child.once("close", (code) => {
      const report = existsSync(reportPath)
        ? (JSON.parse(readFileSync(reportPath, "utf8")) as EvalReport)
        : undefined;
      resolve({ code, stdout, stderr, report });
    });
  });
}
