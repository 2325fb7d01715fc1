// The real Codex CLI (0.169.0 from npm) against the real `spark serve` with its default
// configuration, over HTTP and over WebSocket: one run where the model runs a command (Codex's
// fallback toolset: function tools, a `namespace` tool and hosted web_search), one where it edits a
// file through the freeform `apply_patch` custom tool (the toolset Codex's catalog gives gpt-5.5).
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptTurnInput } from "../../src/engines/script/script-turn.ts";
import { runCodexExec } from "./support/codex-cli.ts";
import { startSparkServe, type SparkServeProcess } from "./support/spark-serve-process.ts";

let server: SparkServeProcess | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** `spark serve` over a script, under the model name Codex will ask for. */
async function serveScript(model: string, turns: ScriptTurnInput[]): Promise<SparkServeProcess> {
  const directory = await mkdtemp(path.join(os.tmpdir(), "spark-codex-script-"));
  const script = path.join(directory, "turns.jsonl");
  await writeFile(script, turns.map((turn) => JSON.stringify(turn)).join("\n") + "\n");
  const config = `default_model = "${model}"\n[models."${model}"]\nengine = "script"\npath = "${script}"\n`;
  server = await startSparkServe(config);
  return server;
}

const commandTurns: ScriptTurnInput[] = [
  {
    text: "Running it.",
    toolCalls: [
      {
        name: "exec_command",
        arguments: { cmd: "echo spark-was-here > proof.txt && cat proof.txt" },
      },
    ],
  },
  // The command's output must come back to the model, or the script fails the turn.
  { text: "Done: proof.txt written.", expect: { lastMessageIncludes: "spark-was-here" } },
];

const patchTurns: ScriptTurnInput[] = [
  {
    text: "Patching.",
    toolCalls: [
      {
        name: "apply_patch",
        input: "*** Begin Patch\n*** Add File: hello.txt\n+hello from spark\n*** End Patch\n",
      },
    ],
  },
  {
    text: "Added hello.txt.",
    expect: { lastMessageRole: "tool", lastMessageIncludes: "hello.txt" },
  },
];

const transports = [
  { name: "HTTP", websockets: false },
  { name: "WebSocket", websockets: true },
] as const;

describe.each(transports)("Codex CLI over $name", ({ name, websockets }) => {
  it("runs a command the model asks for and reports back", async () => {
    const { url, metrics, log } = await serveScript("spark-script", commandTurns);
    const run = await runCodexExec({
      serverUrl: url,
      model: "spark-script",
      websockets,
      prompt: "Write proof.txt",
    });
    expect(run.code, `${run.stderr}\n${log()}`).toBe(0);
    expect(await readFile(path.join(run.workspace, "proof.txt"), "utf8")).toBe("spark-was-here\n");
    expect(run.stdout).toContain("Done: proof.txt written.");
    const transport = websockets ? "ws" : "http";
    expect(await metrics()).toMatch(
      new RegExp(
        `spark_gateway_responses_total\\{transport="${transport}",status="completed"\\} [1-9]`,
      ),
    );
    // Codex offers hosted web_search; Spark drops it and says so once.
    expect(log()).toMatch(/dropped hosted tools.*web_search/);
    void name;
  });

  it("edits a file through the freeform apply_patch tool", async () => {
    const { url, log } = await serveScript("gpt-5.5", patchTurns);
    const run = await runCodexExec({
      serverUrl: url,
      model: "gpt-5.5",
      websockets,
      prompt: "Add hello.txt",
    });
    expect(run.code, `${run.stderr}\n${log()}`).toBe(0);
    expect(await readFile(path.join(run.workspace, "hello.txt"), "utf8")).toBe(
      "hello from spark\n",
    );
    expect(run.stdout).toContain("Added hello.txt.");
  });

  it("asks for the --output-schema format, and the gateway parses and logs it", async () => {
    const verdict = '{"verdict":"pass","files":2}';
    const { url, log } = await serveScript("spark-script", [{ text: verdict }]);
    const run = await runCodexExec({
      serverUrl: url,
      model: "spark-script",
      websockets,
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
    expect(run.stdout).toContain(verdict);
    // The script engine has no grammar; the line says the request carried the format to it.
    expect(log()).toMatch(
      / response resp_\w+ \w+ model=spark-script status=completed format=json_schema:codex_output_schema /,
    );
  });
});
