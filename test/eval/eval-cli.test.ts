// `spark eval` as a user runs it, on scripted models (the real CLI process, the real agent, the
// task's real check): a correct edit passes, a wrong one fails, a failing model and an unknown
// one are recorded as errors, a slow model times out, and Ctrl-C stops with a partial report.
import { afterEach, describe, expect, it } from "vitest";
import { createEvalFolder, sparkEval, type EvalFolder } from "./support/run-spark-eval.ts";

let folder: EvalFolder;
afterEach(() => folder.remove());

function patchPaginate(replacement: string): string {
  return `*** Begin Patch\n*** Update File: src/paginate.mjs\n-  const start = page * size;\n+  ${replacement}\n*** End Patch`;
}

describe("spark eval", () => {
  it("passes a correct scripted edit, fails a wrong one, records model errors, and reports per model", async () => {
    folder = createEvalFolder();
    const correct = folder.script("correct.jsonl", [
      {
        text: "Reading.",
        delayMs: 2,
        toolCalls: [{ name: "read_file", arguments: { path: "src/paginate.mjs" } }],
      },
      {
        text: "Fixing.",
        delayMs: 2,
        expect: { lastMessageRole: "tool", lastMessageIncludes: "page * size" },
        toolCalls: [
          {
            name: "apply_patch",
            arguments: { patch: patchPaginate("const start = (page - 1) * size;") },
          },
        ],
      },
      {
        text: "Pages now start at 1.",
        delayMs: 2,
        expect: { lastMessageIncludes: "Patch applied" },
      },
    ]);
    const wrong = folder.script("wrong.jsonl", [
      {
        text: "Fixing.",
        toolCalls: [
          {
            name: "apply_patch",
            arguments: { patch: patchPaginate("const start = (page + 1) * size;") },
          },
        ],
      },
      { text: "Done." },
    ]);
    const failing = folder.script("failing.jsonl", [
      { text: "Let me", error: { code: "upstream_error", message: "the upstream went away" } },
    ]);
    const run = await sparkEval(folder, [
      "--models",
      [correct, wrong, failing, "no-such-model"].join(","),
      "--tasks",
      "off-by-one-page",
      "--repeat",
      "2",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = run.report;
    expect(report).toMatchObject({
      schema: "spark-eval/2",
      interrupted: false,
      settings: { tasks: ["off-by-one-page"], repeat: 2, timeoutSeconds: 300 },
    });
    expect(report?.runs).toHaveLength(8);
    const [correctSummary, wrongSummary, failingSummary, unknownSummary] = report?.models ?? [];
    expect(correctSummary).toMatchObject({
      model: correct,
      runs: 2,
      passed: 2,
      passRate: 1,
      errors: 0,
    });
    expect(correctSummary?.medianTaskMs).toBeGreaterThan(0);
    expect(correctSummary?.medianTimeToFirstTokenMs).toBeGreaterThanOrEqual(0);
    expect(correctSummary?.decodeTokensPerSecond).toBeGreaterThan(0);
    expect(wrongSummary).toMatchObject({ runs: 2, passed: 0, passRate: 0, errors: 0 });
    expect(failingSummary).toMatchObject({ runs: 2, passed: 0, passRate: 0, errors: 2 });
    expect(unknownSummary).toMatchObject({ runs: 2, passRate: 0, errors: 2, medianTaskMs: null });

    const runsOf = (model: string) => report?.runs.filter((entry) => entry.model === model) ?? [];
    for (const entry of runsOf(correct)) {
      expect(entry).toMatchObject({ outcome: "pass", steps: 3, turnReason: "completed" });
      expect(entry.check?.passed).toBe(true);
      expect(entry.outputTokens).toBeGreaterThan(0);
      // Three model calls: their first tokens close prefill and are not decode.
      expect(entry.decodeTokens).toBe(entry.outputTokens - 3);
      expect(entry.decodeMs).toBeGreaterThan(0);
      expect(entry.decodeMs).toBeLessThan(entry.modelMs);
      expect(entry.decodeTokensPerSecond).toBeCloseTo(entry.decodeTokens / (entry.decodeMs / 1000));
    }
    for (const entry of runsOf(wrong)) {
      expect(entry).toMatchObject({ outcome: "fail", turnReason: "completed" });
      expect(entry.check?.output).toContain("AssertionError");
    }
    for (const entry of runsOf(failing)) {
      expect(entry).toMatchObject({ outcome: "error", turnReason: "error" });
      expect(entry.error?.code).toBe("upstream_error");
    }
    expect(runsOf("no-such-model")[0]).toMatchObject({
      outcome: "error",
      turnReason: null,
      error: { code: "model_not_found" },
    });
    // Each run had its own copy: the wrong edit did not leak into the next model's repository.
    expect(run.stdout).toMatch(/off-by-one-page\s+2\/2\s+0\/2\s+0\/2\s+0\/2/);
    expect(run.stdout).toMatch(/pass rate\s+100% \(2\/2\)\s+0% \(0\/2\)/);
    expect(run.stdout).toMatch(/^decode tokens\/s\s+\d+\.\d\s/m);
    expect(run.stderr).toContain("[8/8] no-such-model off-by-one-page #2 ... error");
  });

  it("records a model that runs past --timeout as a timeout and skips its check", async () => {
    folder = createEvalFolder();
    const slow = folder.script("slow.jsonl", [{ text: "word ".repeat(400).trim(), delayMs: 50 }]);
    const run = await sparkEval(folder, [
      "--models",
      slow,
      "--tasks",
      "strict-port",
      "--timeout",
      "0.5",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.report?.runs[0]).toMatchObject({ outcome: "timeout", turnReason: "interrupted" });
    expect(run.report?.runs[0]?.check).toBeUndefined();
    expect(run.report?.models[0]).toMatchObject({ timeouts: 1, passRate: 0, medianTaskMs: null });
  });

  it("stops at Ctrl-C, reports what finished and exits 130", async () => {
    folder = createEvalFolder();
    const slow = folder.script("slow.jsonl", [{ text: "word ".repeat(400).trim(), delayMs: 50 }]);
    let interrupted = false;
    const run = await sparkEval(
      folder,
      ["--models", slow, "--tasks", "strict-port,escape-html"],
      (stderr, child) => {
        if (interrupted || !stderr.includes("[1/2]")) return;
        interrupted = true;
        child.kill("SIGINT");
      },
    );
    expect(run.code).toBe(130);
    expect(run.report).toMatchObject({ interrupted: true, runs: [{ outcome: "interrupted" }] });
    expect(run.report?.models[0]).toMatchObject({ runs: 0, passRate: null });
    expect(run.stdout).toContain("Interrupted");
  });

  it("exits 2 for an unknown task, naming the tasks there are", async () => {
    folder = createEvalFolder();
    const run = await sparkEval(folder, ["--tasks", "no-such-task"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('No eval task "no-such-task"');
    expect(run.stderr).toContain("rename-across-files");
    expect(run.report).toBeUndefined();
  });
});
