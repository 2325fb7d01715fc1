// Where an editor test file's time goes: each phase of the shared setup (packaging, code-server,
// chromium, spark serve, the window, the extension's activation), of each test and of teardown,
// as seconds from the file's start. Printed after the file with SPARK_EDITOR_TIMINGS=1, to find
// the fixed cost worth cutting; nothing asserts on it (speed is measured, never asserted).
import { afterAll } from "vitest";

interface Phase {
  /** What ran, e.g. "open: spark serve". */
  name: string;
  /** The test it belongs to ("" for the file's own setup and teardown). */
  test: string;
  startedAt: number;
  endedAt: number;
}

export class SuiteTimings {
  private readonly phases: Phase[] = [];
  private readonly origin = performance.now();
  private test = "";

  /** Names the test later phases belong to. */
  enterTest(name: string): void {
    this.test = name;
  }

  /** Times `work` as the phase `name`, also when it throws. */
  async time<Value>(name: string, work: () => Promise<Value>): Promise<Value> {
    const startedAt = performance.now();
    try {
      return await work();
    } finally {
      this.phases.push({ name, test: this.test, startedAt, endedAt: performance.now() });
    }
  }

  /** Records a phase that ran from `startedAt` (performance.now()) until now. */
  record(name: string, startedAt: number): void {
    this.phases.push({ name, test: this.test, startedAt, endedAt: performance.now() });
  }

  /** One line a phase: start and length in seconds, the test it belongs to. */
  report(): string {
    const seconds = (milliseconds: number): string => (milliseconds / 1000).toFixed(1).padStart(6);
    return this.phases
      .map(
        (phase) =>
          `${seconds(phase.startedAt - this.origin)} s ${seconds(phase.endedAt - phase.startedAt)} s  ` +
          `${phase.name}${phase.test === "" ? "" : `  [${phase.test}]`}`,
      )
      .join("\n");
  }
}

/** The file's timings, printed after its last test when SPARK_EDITOR_TIMINGS=1. */
export function useSuiteTimings(label: () => string): SuiteTimings {
  const timings = new SuiteTimings();
  afterAll(() => {
    if (process.env.SPARK_EDITOR_TIMINGS === "1")
      console.log(`editor test timings, ${label()} (start, length, phase):\n${timings.report()}`);
  });
  return timings;
}
