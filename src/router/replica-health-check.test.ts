// The probe loop on its own: transitions reported once each, never two probes of one replica at a
// time, a timed-out probe counted as a failure, and nothing after stop.
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { ReplicaHealthCheck } from "./replica-health-check.ts";

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(2);
}

describe("ReplicaHealthCheck", () => {
  it("goes down on a failed probe and up on a passing one, reporting each change once", async () => {
    const outcomes = [true, false, false, true, true];
    const changes: boolean[] = [];
    let probes = 0;
    const check = new ReplicaHealthCheck(
      async () => {
        const healthy = outcomes[probes++] ?? true;
        if (!healthy) throw new Error("503");
      },
      { intervalMs: 1, timeoutMs: 1_000 },
      (up) => changes.push(up),
    );
    check.start();
    await until(() => probes >= outcomes.length);
    check.stop();
    expect(changes).toEqual([false, true]);
    expect(check.up).toBe(true);
    expect(check.failed).toBe(2);
    expect(check.lastFailure).toBe("503");
  });

  it("never overlaps probes, fails one past its timeout, and stops probing on stop", async () => {
    let running = 0;
    let mostAtOnce = 0;
    let probes = 0;
    let lastSignal: AbortSignal | undefined;
    const check = new ReplicaHealthCheck(
      async (signal) => {
        probes += 1;
        lastSignal = signal;
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        // Silent until aborted: every probe times out.
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        running -= 1;
        throw signal.reason;
      },
      { intervalMs: 1, timeoutMs: 20 },
    );
    check.start();
    await until(() => check.failed >= 3);
    expect(check.up).toBe(false);
    expect(check.lastFailure).toBe("no answer within 20 ms");
    check.stop();
    expect(lastSignal?.aborted).toBe(true);
    const after = probes;
    await sleep(60);
    expect(probes).toBe(after);
    expect(mostAtOnce).toBe(1);
  });
});
