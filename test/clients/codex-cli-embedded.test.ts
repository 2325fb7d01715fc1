// A real Codex CLI turn (0.169.0, default configuration) on the embedded llama.cpp engine, over
// HTTP and over WebSocket. The model is the project's `micro` test model (one narrow layer, a
// 65,536-token trained context, allowed to end its turns): its text is noise, so the test proves
// that a ~34k-token Codex turn goes through Spark and completes without a protocol error.
// The slowest tests in the suite: ~10 s of prefill per run on one CPU thread (HTTP ~15 s,
// WebSocket ~27 s with its warm-up, alone on 2 cores; up to ~60 s each under a full parallel run).
// With `--output-schema` the noise must come back as JSON that fits the schema: Codex offers its
// tools too, so this is the native loop's calls-or-formatted-JSON path under a real client.
// One server (one model load) for the file: the first run prefills the whole prompt, later ones
// continue the cached prefix Codex's instructions and tools share, as a user's second turn does;
// each case checks the log and the metrics it added.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureTestModel } from "../support/test-model.ts";
import { runCodexExec } from "./support/codex-cli.ts";
import {
  completedResponses,
  startSparkServe,
  type SparkServeProcess,
} from "./support/spark-serve-process.ts";

let server: SparkServeProcess;

beforeAll(async () => {
  server = await serveMicroModel();
});

afterAll(async () => server?.stop());

async function serveMicroModel(): Promise<SparkServeProcess> {
  const modelPath = await ensureTestModel({ shape: "micro", endsTurns: true });
  const config = [
    `default_model = "micro"`,
    `[models.micro]`,
    `engine = "llama-cpp"`,
    `path = "${modelPath}"`,
    `context_size = 65536`,
    `sequences = 1`,
    `threads = 1`,
    ``,
  ].join("\n");
  return startSparkServe(config);
}

describe.each([
  { transport: "http", websockets: false },
  { transport: "ws", websockets: true },
] as const)("Codex CLI on the embedded engine over $transport", ({ transport, websockets }) => {
  it("completes a turn", { timeout: 180_000 }, async () => {
    const { url, log, metrics } = server;
    const logBefore = log().length;
    const completedBefore = completedResponses(await metrics(), transport);
    const run = await runCodexExec({
      serverUrl: url,
      model: "micro",
      websockets,
      prompt: "Say hi",
    });
    expect(run.code, `${run.stderr}\n${log()}`).toBe(0);
    expect(log().slice(logBefore)).toMatch(
      /response resp_\w+ \w+ model=micro status=completed input_tokens=\d{5}/,
    );
    expect(completedResponses(await metrics(), transport)).toBeGreaterThan(completedBefore);
  });
});

describe("Codex CLI exec --output-schema on the embedded engine", () => {
  it("gets a final answer that parses and fits the schema", { timeout: 180_000 }, async () => {
    const { url, log } = server;
    const logBefore = log().length;
    const run = await runCodexExec({
      serverUrl: url,
      model: "micro",
      websockets: false,
      prompt: "Review the change.",
      outputSchema: {
        type: "object",
        properties: {
          verdict: { type: "string", enum: ["pass", "fail"] },
          files: { type: "integer" },
        },
        required: ["verdict", "files"],
        additionalProperties: false,
      },
    });
    expect(run.code, `${run.stderr}\n${log()}`).toBe(0);
    const answer = JSON.parse(run.stdout.trim()) as { verdict?: unknown; files?: unknown };
    expect(["pass", "fail"]).toContain(answer.verdict);
    expect(Number.isInteger(answer.files)).toBe(true);
    expect(log().slice(logBefore)).toMatch(/ format=json_schema:codex_output_schema /);
  });
});
