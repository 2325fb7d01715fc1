import { describe, expect, it } from "vitest";
import { statusText, type StatusState } from "./status-text.ts";

const base: StatusState = {
  enabled: true,
  configuredModel: undefined,
  answeringModel: undefined,
  latencyMs: undefined,
  problem: undefined,
  serverUrl: "http://127.0.0.1:7777",
};

describe("statusText", () => {
  it("names the model: the configured one, else the one that answered", () => {
    expect(statusText(base).text).toBe("$(sparkle) server default model");
    expect(statusText({ ...base, answeringModel: "qwen-fim", latencyMs: 27.6 }).text).toBe(
      "$(sparkle) qwen-fim 28 ms",
    );
    expect(statusText({ ...base, configuredModel: "mine", answeringModel: "qwen-fim" }).text).toBe(
      "$(sparkle) mine",
    );
  });

  it("keeps the end of a long model id, and the whole id in the tooltip", () => {
    const id = "script:/tmp/spark-agent-abc/home/script-1795693374258.jsonl";
    const status = statusText({ ...base, answeringModel: id, latencyMs: 9 });
    expect(status.text).toBe("$(sparkle) …home/script-1795693374258.jsonl 9 ms");
    expect(status.tooltip).toContain(id);
  });

  it("says when completions are off and what went wrong", () => {
    expect(statusText({ ...base, enabled: false, answeringModel: "m" }).text).toBe(
      "$(circle-slash) m",
    );
    const problem = statusText({ ...base, problem: "http://x refused the API key (401)." });
    expect(problem.text).toBe("$(warning) server default model");
    expect(problem.tooltip).toContain("refused the API key");
  });
});
