// The bundled tasks are sound: each loads, its check fails on the repository as shipped (there is
// something to do) and passes once its reference solution is copied over (the check is doable).
import { cp } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { bundledTasksDirectory, loadEvalTasks } from "../../src/eval/eval-task.ts";
import { runTaskCheck } from "../../src/eval/run-task-check.ts";
import { createTaskWorkspace } from "../../src/eval/task-workspace.ts";

const tasks = await loadEvalTasks(bundledTasksDirectory);
const options = { timeoutMs: 30_000, signal: new AbortController().signal };

describe("bundled eval tasks", () => {
  it("has six to ten tasks, among them a rename, a multi-file change and a security fix", () => {
    expect(tasks.length).toBeGreaterThanOrEqual(6);
    expect(tasks.length).toBeLessThanOrEqual(10);
    const kinds = new Set(tasks.map((task) => task.kind));
    for (const kind of ["rename", "multi-file", "security", "bug fix"])
      expect(kinds).toContain(kind);
  });

  it.each(tasks.map((task) => [task.name, task] as const))(
    "%s: the check fails as shipped and passes with the reference solution",
    async (_name, task) => {
      const workspace = await createTaskWorkspace(task);
      try {
        const before = await runTaskCheck(task.checkPath, workspace.root, options);
        expect(before.passed, "the task has nothing to do").toBe(false);
        expect(before.output).toMatch(/Error/);
        expect(task.solutionDirectory).toBeDefined();
        await cp(task.solutionDirectory ?? "", workspace.root, { recursive: true });
        const after = await runTaskCheck(task.checkPath, workspace.root, options);
        expect(after.output).toBe("");
        expect(after.passed).toBe(true);
      } finally {
        await workspace.remove();
      }
    },
  );

  it("picks tasks by name and refuses an unknown one", async () => {
    const picked = await loadEvalTasks(bundledTasksDirectory, ["strict-port", "escape-html"]);
    expect(picked.map((task) => task.name)).toEqual(["strict-port", "escape-html"]);
    await expect(loadEvalTasks(bundledTasksDirectory, ["strict-port", "nope"])).rejects.toThrow(
      /No eval task "nope"; the tasks are: add-greeting-parameter/,
    );
  });
});
