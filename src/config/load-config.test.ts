// loadConfig against real files in temp directories: layer order, SPARK_HOME, path resolution,
// environment and flags, and errors that name the file (or variable) and key path.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultServeConfig } from "../gateway/serve-config.ts";
import { SparkError } from "../protocol/spark-error.ts";
import { loadConfig } from "./load-config.ts";
import { sparkHome } from "./spark-home.ts";

let root: string;
let homeDirectory: string;
let project: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "spark-config-"));
  homeDirectory = path.join(root, "home");
  project = path.join(root, "work", "project");
  await mkdir(path.join(homeDirectory, ".spark"), { recursive: true });
  await mkdir(path.join(project, "src", "deep"), { recursive: true });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function writeUserConfig(text: string, directory = path.join(homeDirectory, ".spark")) {
  await mkdir(directory, { recursive: true });
  const file = path.join(directory, "config.toml");
  await writeFile(file, text);
  return file;
}

async function writeProjectConfig(text: string) {
  await mkdir(path.join(project, ".spark"), { recursive: true });
  const file = path.join(project, ".spark", "config.toml");
  await writeFile(file, text);
  return file;
}

async function loadError(options: Parameters<typeof loadConfig>[0]): Promise<SparkError> {
  const error: unknown = await loadConfig(options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(SparkError);
  expect((error as SparkError).code).toBe("invalid_config");
  return error as SparkError;
}

describe("loadConfig", () => {
  it("gives defaults when nothing is configured", async () => {
    const config = await loadConfig({ cwd: project, env: {}, homeDirectory });
    expect(config.sources).toEqual([]);
    expect(config.sparkHome).toBe(path.join(homeDirectory, ".spark"));
    expect(config.defaultModel).toBeUndefined();
    expect(config.models).toEqual({});
    expect(config.providerKeys).toEqual({});
    expect(config.serve).toEqual({
      host: "127.0.0.1",
      port: 7777,
      apiKeys: [],
      allowedOrigins: [],
      allowedHosts: [],
      maxConcurrencyPerKey: 16,
      maxConnections: 1024,
      idleTimeoutSeconds: 600,
      connectionLifetimeSeconds: 3600,
      resumeGraceSeconds: 30,
      maxFrameBytes: 4 * 1024 * 1024,
      contextLimitTokens: 131072,
    });
  });

  it("takes every [serve] default from the gateway's own defaults", async () => {
    const config = await loadConfig({ cwd: project, env: {}, homeDirectory });
    for (const [key, value] of Object.entries(config.serve))
      expect(value, key).toEqual(defaultServeConfig[key as keyof typeof defaultServeConfig]);
  });

  it("applies the project config over the user config key by key", async () => {
    const userFile = await writeUserConfig(`
default_model = "fast"
[models.fast]
engine = "llama-cpp"
path = "/models/fast.gguf"
context_size = 4096
gpu = false
[serve]
port = 9000
api_keys = ["one"]
`);
    const projectFile = await writeProjectConfig(`
[models.fast]
context_size = 16384
[serve]
host = "0.0.0.0"
`);
    const config = await loadConfig({
      cwd: path.join(project, "src", "deep"),
      env: {},
      homeDirectory,
    });
    expect(config.sources).toEqual([userFile, projectFile]);
    expect(config.defaultModel).toBe("fast");
    expect(config.models.fast).toEqual({
      engine: "llama-cpp",
      path: "/models/fast.gguf",
      contextSize: 16384,
      gpu: false,
      sequences: 4,
      speculative: false,
    });
    expect(config.serve).toMatchObject({ host: "0.0.0.0", port: 9000, apiKeys: ["one"] });
  });

  it("does not read the user config a second time as a project config", async () => {
    const userFile = await writeUserConfig(`default_model = "fast"\n`);
    const insideHome = path.join(homeDirectory, "code", "app");
    await mkdir(insideHome, { recursive: true });
    const config = await loadConfig({ cwd: insideHome, env: {}, homeDirectory });
    expect(config.sources).toEqual([userFile]);
    const moved = await loadConfig({
      cwd: insideHome,
      env: { SPARK_HOME: path.join(root, "elsewhere") },
      homeDirectory,
    });
    expect(moved.sources).toEqual([]);
  });

  it("reads [agent] workspace_roots, resolved against the file's folder", async () => {
    const file = await writeUserConfig(`[agent]\nworkspace_roots = ["code", "/srv/repos"]\n`);
    const config = await loadConfig({ cwd: project, env: {}, homeDirectory });
    expect(config.agent.workspaceRoots).toEqual([
      path.join(path.dirname(file), "code"),
      "/srv/repos",
    ]);
    const none = await loadConfig({
      cwd: root,
      env: { SPARK_HOME: path.join(root, "x") },
      homeDirectory,
    });
    expect(none.agent.workspaceRoots).toEqual([]);
  });

  it("replaces a model entry when a later layer switches its engine", async () => {
    await writeUserConfig(`[models.fast]\nengine = "llama-cpp"\npath = "/m.gguf"\nthreads = 2\n`);
    await writeProjectConfig(`[models.fast]\nengine = "openai-compatible"\npreset = "groq"\n`);
    const config = await loadConfig({ cwd: project, env: {}, homeDirectory });
    expect(config.models.fast).toEqual({
      engine: "openai-compatible",
      preset: "groq",
      baseUrl: "https://api.groq.com/openai/v1",
      apiKeyEnv: "GROQ_API_KEY",
    });
  });

  it("reads the user config from SPARK_HOME when it is set", async () => {
    await writeUserConfig(`default_model = "ignored"\n`);
    const elsewhere = path.join(root, "elsewhere");
    const file = await writeUserConfig(`default_model = "moved"\n`, elsewhere);
    const config = await loadConfig({
      cwd: project,
      env: { SPARK_HOME: elsewhere },
      homeDirectory,
    });
    expect(config.sparkHome).toBe(elsewhere);
    expect(config.sources).toEqual([file]);
    expect(config.defaultModel).toBe("moved");
    expect(sparkHome({ env: { SPARK_HOME: "~/x" }, homeDirectory })).toBe(
      path.join(homeDirectory, "x"),
    );
    expect(sparkHome({ env: {}, homeDirectory })).toBe(path.join(homeDirectory, ".spark"));
  });

  it("resolves model paths against the config file's folder and expands ~", async () => {
    await writeUserConfig(`
[models.a]
engine = "llama-cpp"
path = "models/a.gguf"
[models.b]
engine = "llama-cpp"
path = "~/b.gguf"
`);
    await writeProjectConfig(
      `[models.script]\nengine = "script"\npath = "../fixtures/run.jsonl"\n`,
    );
    const config = await loadConfig({ cwd: project, env: {}, homeDirectory });
    expect(config.models.a).toMatchObject({
      path: path.join(homeDirectory, ".spark", "models", "a.gguf"),
    });
    expect(config.models.b).toMatchObject({ path: path.join(homeDirectory, "b.gguf") });
    expect(config.models.script).toEqual({
      engine: "script",
      path: path.join(project, "fixtures", "run.jsonl"),
    });
  });

  it("--model script:<file> selects the scripted engine, resolved against the working folder", async () => {
    const config = await loadConfig({
      cwd: project,
      homeDirectory,
      env: {},
      flags: { model: "script:fixtures/turns.jsonl" },
    });
    expect(config.defaultModel).toBe("script");
    expect(config.models.script).toEqual({
      engine: "script",
      path: path.join(project, "fixtures", "turns.jsonl"),
    });
  });

  it("applies SPARK_* variables over files, and provider keys", async () => {
    await writeUserConfig(`
default_model = "fast"
[models.fast]
engine = "llama-cpp"
path = "/fast.gguf"
[models.pinned]
engine = "llama-cpp"
path = "/pinned.gguf"
threads = 3
[models.remote]
engine = "openai-compatible"
base_url = "http://10.0.0.1:8000/v1/"
api_key_env = "MY_CLUSTER_KEY"
max_event_bytes = 1048576
[serve]
port = 9000
`);
    const config = await loadConfig({
      cwd: project,
      homeDirectory,
      env: {
        SPARK_MODEL: "remote",
        SPARK_PORT: "8123",
        SPARK_HOST: "::1",
        SPARK_THREADS: "6",
        CEREBRAS_API_KEY: "cer-key",
        GROQ_API_KEY: "",
        MY_CLUSTER_KEY: "cluster-key",
        UNRELATED_API_KEY: "no",
      },
    });
    expect(config.defaultModel).toBe("remote");
    expect(config.serve).toMatchObject({ host: "::1", port: 8123 });
    expect(config.models.fast).toMatchObject({ threads: 6 });
    expect(config.models.pinned).toMatchObject({ threads: 3 });
    expect(config.models.remote).toEqual({
      engine: "openai-compatible",
      preset: "custom",
      baseUrl: "http://10.0.0.1:8000/v1",
      apiKeyEnv: "MY_CLUSTER_KEY",
      maxEventBytes: 1048576,
    });
    expect(config.providerKeys).toEqual({
      CEREBRAS_API_KEY: "cer-key",
      MY_CLUSTER_KEY: "cluster-key",
    });
  });

  it("makes SPARK_MODEL_PATH an implicit default model named local", async () => {
    await writeUserConfig(`default_model = "fast"\n[models.local]\ncontext_size = 2048\n`);
    const config = await loadConfig({
      cwd: project,
      homeDirectory,
      env: { SPARK_MODEL_PATH: "weights/tiny.gguf" },
    });
    expect(config.defaultModel).toBe("local");
    expect(config.models.local).toEqual({
      engine: "llama-cpp",
      path: path.join(project, "weights", "tiny.gguf"),
      contextSize: 2048,
      gpu: "auto",
      sequences: 4,
      speculative: false,
    });
  });

  it("applies flags last", async () => {
    await writeUserConfig(
      `[models.fast]\nengine = "llama-cpp"\npath = "/fast.gguf"\nthreads = 3\n`,
    );
    const config = await loadConfig({
      cwd: project,
      homeDirectory,
      env: { SPARK_PORT: "8123", SPARK_MODEL: "fast" },
      flags: { port: "9999", host: "localhost", model: "~/other.gguf", threads: 8 },
    });
    expect(config.serve).toMatchObject({ host: "localhost", port: 9999 });
    expect(config.defaultModel).toBe("local");
    expect(config.models.local).toMatchObject({
      path: path.join(homeDirectory, "other.gguf"),
      threads: 8,
    });
    expect(config.models.fast).toMatchObject({ threads: 8 });
    const named = await loadConfig({
      cwd: project,
      homeDirectory,
      env: {},
      flags: { model: "fast" },
    });
    expect(named.defaultModel).toBe("fast");
  });

  it("names the file and key path for an invalid value", async () => {
    const file = await writeUserConfig(`[models.fast]\nengine = "llama"\npath = "/x.gguf"\n`);
    const error = await loadError({ cwd: project, env: {}, homeDirectory });
    expect(error.message).toBe(
      `${file}: models.fast.engine: expected one of "llama-cpp" | "openai-compatible" | "script", got "llama"`,
    );
  });

  it("reads a llama-cpp model's fim_template and refuses one without its placeholders", async () => {
    await writeUserConfig(
      `[models.code]\nengine = "llama-cpp"\npath = "/m.gguf"\nfim_template = "<PRE> {prefix} <SUF>{suffix} <MID>"\n`,
    );
    const config = await loadConfig({ cwd: project, env: {}, homeDirectory });
    expect(config.models.code).toMatchObject({ fimTemplate: "<PRE> {prefix} <SUF>{suffix} <MID>" });

    const file = await writeUserConfig(
      `[models.code]\nengine = "llama-cpp"\npath = "/m.gguf"\nfim_template = "<PRE> {prefix}"\n`,
    );
    const error = await loadError({ cwd: project, env: {}, homeDirectory });
    expect(error.message).toMatch(
      new RegExp(
        `^${escape(file)}: models\\.code\\.fim_template: must contain \\{prefix\\} and \\{suffix\\}`,
      ),
    );
  });

  it("names the file for problems only visible after merging", async () => {
    await writeUserConfig(`[serve]\nport = 1\n`);
    const projectFile = await writeProjectConfig(`[models.fast]\nengine = "llama-cpp"\n`);
    const error = await loadError({ cwd: project, env: {}, homeDirectory });
    expect(error.message).toMatch(
      new RegExp(`^${escape(projectFile)}: models\\.fast\\.path: required`),
    );

    await writeProjectConfig(`[models.fast]\ncontext_size = 10\n`);
    const missingEngine = await loadError({ cwd: project, env: {}, homeDirectory });
    expect(missingEngine.message).toBe(
      `${projectFile}: models.fast.engine: required: expected one of "llama-cpp" | "openai-compatible" | "script"`,
    );

    await writeProjectConfig(`[models.fast]\nengine = "openai-compatible"\npreset = "custom"\n`);
    const custom = await loadError({ cwd: project, env: {}, homeDirectory });
    expect(custom.message).toBe(
      `${projectFile}: models.fast.base_url: required when preset = "custom"`,
    );
  });

  it("reports unknown keys, wrong types and out-of-range numbers", async () => {
    const file = await writeUserConfig(`[serve]\nprot = 80\n`);
    expect((await loadError({ cwd: project, env: {}, homeDirectory })).message).toBe(
      `${file}: serve.prot: unknown key`,
    );
    await writeUserConfig(`[serve]\nport = "80"\n`);
    expect((await loadError({ cwd: project, env: {}, homeDirectory })).message).toBe(
      `${file}: serve.port: expected number, got "80"`,
    );
    await writeUserConfig(`[serve]\nport = 70000\n`);
    expect((await loadError({ cwd: project, env: {}, homeDirectory })).message).toBe(
      `${file}: serve.port: expected number <= 65535, got 70000`,
    );
    await writeUserConfig(`[serve]\napi_keys = ["ok", 3]\n`);
    expect((await loadError({ cwd: project, env: {}, homeDirectory })).message).toBe(
      `${file}: serve.api_keys[1]: expected string, got 3`,
    );
    await writeUserConfig(`[models.gpu]\nengine = "llama-cpp"\npath = "/x.gguf"\ngpu = true\n`);
    expect((await loadError({ cwd: project, env: {}, homeDirectory })).message).toBe(
      `${file}: models.gpu.gpu: expected one of "auto" | "cuda" | "vulkan" | "metal" | false, got true`,
    );
  });

  it("names file, line and column for a TOML syntax error", async () => {
    const file = await writeProjectConfig(`default_model = "fast"\n[serve]\nport = = 3\n`);
    const error = await loadError({ cwd: project, env: {}, homeDirectory });
    expect(error.message).toMatch(new RegExp(`^${escape(file)}:3:8: TOML syntax error: `));
  });

  it("reads [routes] and [router], merging retry and breaker key by key", async () => {
    await writeUserConfig(`
default_model = "auto"
[routes]
fast = ["spark", "spark-backup", "deep"]
deep = "codex"
[router]
client_models = { "gpt-5.1-codex" = "fast" }
deadline_ms = 30000
retry = { max_attempts = 3, base_delay_ms = 50 }
breaker = { failures = 2 }
[[router.rules]]
route = "deep"
reason = "touches infra"
paths = ["infra/**"]
`);
    const projectFile = await writeProjectConfig(`
[router]
retry = { max_attempts = 1 }
[router.breaker]
open_ms = "soon"
`);
    const error = await loadError({ cwd: project, env: {}, homeDirectory });
    expect(error.message).toMatch(
      new RegExp(`^${escape(projectFile)}: router\\.breaker\\.open_ms: `),
    );
    await writeProjectConfig(`[router]\nretry = { max_attempts = 1 }\n`);
    const config = await loadConfig({ cwd: project, env: {}, homeDirectory });
    expect(config.defaultModel).toBe("auto");
    expect(config.router).toEqual({
      routes: { fast: ["spark", "spark-backup", "deep"], deep: ["codex"] },
      clientModels: { "gpt-5.1-codex": "fast" },
      deadlineMs: 30000,
      rules: [{ route: "deep", reason: "touches infra", paths: ["infra/**"] }],
      retry: { maxAttempts: 1, baseDelayMs: 50 },
      breaker: { failures: 2 },
    });
  });

  it('preset = "openai" serves gpt-5.3-codex-spark as fast and gpt-5.3-codex as deep', async () => {
    await writeUserConfig(`preset = "openai"\n[routes]\nreview = "deep"\n`);
    const config = await loadConfig({
      cwd: project,
      env: { OPENAI_API_KEY: "sk-test" },
      homeDirectory,
    });
    expect(config.defaultModel).toBe("auto");
    expect(config.models["gpt-5.3-codex-spark"]).toEqual({
      engine: "openai-compatible",
      preset: "openai",
      baseUrl: "https://api.openai.com/v1",
      model: "gpt-5.3-codex-spark",
      apiKeyEnv: "OPENAI_API_KEY",
      api: "responses",
    });
    expect(config.models["gpt-5.3-codex"]).toMatchObject({
      model: "gpt-5.3-codex",
      api: "responses",
    });
    expect(config.router.routes).toEqual({
      fast: ["gpt-5.3-codex-spark"],
      deep: ["gpt-5.3-codex"],
      review: ["deep"],
    });
    expect(config.providerKeys).toEqual({ OPENAI_API_KEY: "sk-test" });
  });

  it("names the variable or flag for an invalid value", async () => {
    const port = await loadError({ cwd: project, env: { SPARK_PORT: "http" }, homeDirectory });
    expect(port.message).toBe(`SPARK_PORT: expected an integer from 0 to 65535, got "http"`);
    const threads = await loadError({ cwd: project, env: { SPARK_THREADS: "0" }, homeDirectory });
    expect(threads.message).toBe(`SPARK_THREADS: expected an integer >= 1, got "0"`);
    const blank = await loadConfig({ cwd: project, env: { SPARK_MODEL: "  " }, homeDirectory });
    expect(blank.defaultModel).toBeUndefined();
    const flag = await loadError({ cwd: project, env: {}, homeDirectory, flags: { port: -1 } });
    expect(flag.message).toBe(`--port: expected an integer from 0 to 65535, got -1`);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
