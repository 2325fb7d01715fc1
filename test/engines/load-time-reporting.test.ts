// What a model says at load, through the real commands: a chat template llama.cpp cannot parse is
// named with its reason and consequence by `spark models` and `spark serve`'s log, and the
// context the embedded engine chose (and why) is logged and said by `spark prompt --stats` and
// `spark doctor`; a test model trained for 32k gets at least what the agent needs without
// configuration, and context_size still overrides.
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_CONTEXT_FLOOR } from "../../src/engines/llama-cpp/choose-context-size.ts";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { startSparkServe } from "../clients/support/spark-serve-process.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { llamaModelsFolder, writeFamilyVocabGguf } from "./support/family-vocab-gguf.ts";

const SPARK = fileURLToPath(new URL("../../bin/spark.js", import.meta.url));
const BROKEN_TEMPLATE = "{% for message in messages %}{{ message.content }";

describe("load-time reporting", () => {
  let folder: string;
  let brokenModel: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(os.tmpdir(), "spark-load-report-"));
    const models = await llamaModelsFolder(["qwen2"]);
    brokenModel = join(folder, "broken-template.gguf");
    await writeFamilyVocabGguf(
      {
        vocab: join(models, "ggml-vocab-qwen2.gguf"),
        template: BROKEN_TEMPLATE,
        eosToken: "<|im_end|>",
      },
      brokenModel,
    );
  }, 120_000);
  afterAll(async () => rm(folder, { recursive: true, force: true }));

  it("spark models names a model whose template does not parse, the reason and the consequence", async () => {
    const home = join(folder, "home-models");
    await rm(home, { recursive: true, force: true });
    await mkdir(home, { recursive: true });
    await writeFile(
      join(home, "config.toml"),
      `default_model = "broken"\n[models.broken]\nengine = "llama-cpp"\npath = ${JSON.stringify(brokenModel)}\n`,
    );
    const run = spawnSync(process.execPath, [SPARK, "models"], {
      env: { ...process.env, SPARK_HOME: home },
      encoding: "utf8",
    });
    expect(run.status).toBe(0);
    const line = run.stdout.split("\n").find((text) => text.includes("model broken:"));
    expect(line, run.stdout).toBeDefined();
    expect(line).toMatch(/tool calls through node-llama-cpp's wrapper$/);
  });

  it("a 32k test model gets the agent's context without configuration; context_size overrides", async () => {
    const modelPath = await ensureTestModel({ contextLength: 32_768 });
    const automatic = await createLlamaCppEngine({ modelPath, threads: 1, sequences: 2 });
    try {
      expect(automatic.contextSize).toBeGreaterThanOrEqual(AGENT_CONTEXT_FLOOR);
      expect(automatic.contextSizeReason).toMatch(/^auto: \d+ tokens each for 2 sequences/);
    } finally {
      await automatic.dispose();
    }
    const configured = await createLlamaCppEngine({
      modelPath,
      threads: 1,
      sequences: 1,
      contextSize: 2048,
    });
    try {
      expect(configured.contextSize).toBe(2048);
      expect(configured.contextSizeReason).toBe("context_size = 2048");
    } finally {
      await configured.dispose();
    }
  });

  it("spark prompt --stats and spark doctor say the context chosen for the model", async () => {
    const modelPath = await ensureTestModel({ contextLength: 32_768 });
    const home = join(folder, "home-context");
    await rm(home, { recursive: true, force: true });
    await mkdir(home, { recursive: true });
    await writeFile(
      join(home, "config.toml"),
      `default_model = "tiny"\n[models.tiny]\nengine = "llama-cpp"\npath = ${JSON.stringify(modelPath)}\nsequences = 1\nthreads = 1\n`,
    );
    const spark = (args: string[]) =>
      spawnSync(process.execPath, [SPARK, ...args], {
        env: { ...process.env, SPARK_HOME: home },
        cwd: home,
        encoding: "utf8",
        timeout: 120_000,
      });
    const prompt = spark(["prompt", "--stats", "--max-tokens", "2", "Hi"]);
    expect(prompt.status, prompt.stderr).toBe(0);
    const chosen = /\[stats\] .*, context (\d+) tokens$/m.exec(prompt.stderr)?.[1];
    expect(chosen, prompt.stderr).toBeDefined();
    expect(Number(chosen)).toBeGreaterThanOrEqual(AGENT_CONTEXT_FLOOR);
    const doctor = spark(["doctor"]);
    expect(doctor.stdout).toContain(`  context: ${chosen} tokens a sequence (auto: `);
  }, 240_000);

  it("spark serve logs the context it chose for the model and why", async () => {
    const modelPath = await ensureTestModel({ contextLength: 32_768 });
    const server = await startSparkServe(
      `default_model = "tiny"\n[models.tiny]\nengine = "llama-cpp"\npath = ${JSON.stringify(modelPath)}\nsequences = 1\nthreads = 1\n`,
    );
    try {
      // Written before "listening", which startSparkServe waits for.
      expect(server.log()).toMatch(/spark: model tiny: context \d+ tokens a sequence \(auto: /);
    } finally {
      await server.stop();
    }
  }, 180_000);
});
