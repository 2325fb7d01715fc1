import { describe, expect, it } from "vitest";
import { StatusState } from "./status-state.ts";

describe("StatusState", () => {
  it("clears the warning once the server answers, before any completion succeeded", () => {
    const state = new StatusState();
    state.failed("No Spark server answers at http://127.0.0.1:7777.");
    // "Start spark serve" started it; the probe after the start got its models.
    state.serverAnswered(["spark-code-tiny"]);
    expect(state.current).toEqual({
      answeringModel: "spark-code-tiny",
      latencyMs: undefined,
      problem: undefined,
    });
  });

  it("forgets the previous server's model and latency when the server changes", () => {
    const state = new StatusState();
    state.completionAnswered("old-model", 42);
    state.settingsChanged();
    state.serverAnswered(["new-model"]);
    expect(state.current).toEqual({
      answeringModel: "new-model",
      latencyMs: undefined,
      problem: undefined,
    });
  });

  it("keeps the model a completion named over the probe's guess", () => {
    const state = new StatusState();
    state.completionAnswered("fim", 30);
    state.serverAnswered(["chat"]);
    expect(state.current.answeringModel).toBe("fim");
    expect(state.current.latencyMs).toBe(30);
  });
});
