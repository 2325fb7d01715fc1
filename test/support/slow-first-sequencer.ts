// The order test files start in: vitest's own (the longest by the last run's durations first), but
// where it has durations for less than half the files (a clean clone, as in CI) the end-to-end
// folders first. Vitest then
// starts the largest files first, which put the slowest ones (code-server, a real Codex CLI on the
// embedded engine: minutes each) in the middle of the run or at its end, one worker finishing
// them alone while the other idles.
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Folders whose files drive real editors, browsers and CLIs, slowest first. */
const SLOW_FOLDERS = ["test/editor/", "test/clients/", "test/web/", "test/tui/"];

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const relativePath = (file: TestSpecification): string =>
      path.relative(this.ctx.config.root, file.moduleId).split(path.sep).join("/");
    const measured = (file: TestSpecification): boolean =>
      this.ctx.cache.getFileTestResults(`${file.project.name}:${relativePath(file)}`) !== undefined;
    if (sorted.filter(measured).length * 2 >= sorted.length) return sorted;
    const rank = (file: TestSpecification): number => {
      const index = SLOW_FOLDERS.findIndex((folder) => relativePath(file).startsWith(folder));
      return index === -1 ? SLOW_FOLDERS.length : index;
    };
    // Array.prototype.sort is stable: within a rank, vitest's order stays.
    return sorted.sort((left, right) => rank(left) - rank(right));
  }
}
