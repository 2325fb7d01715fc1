// loadConfig against real files in temp directories: layer order, SPARK_HOME, path resolution,
// environment and flags, and errors that name the file (or variable) and key path.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { defaultServeConfig } from "../gateway/serve-config.ts";
import { escapeRegExp, useConfigDirectories } from "./config-test-directories.ts";
import { sparkHome } from "./spark-home.ts";

const directories = useConfigDirectories();

describe("loadConfig", () => {
  it("gives defaults when nothing is configured", async () => {
    const config = await directories.load();
    expect(config.sources).toEqual([]);
    expect(config.sparkHome).toBe(path.join(directories.homeDirectory, ".spark"));
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
      maxConnectionsPerKey: 256,
      maxPendingConnections: 256,
      maxPendingPerAddress: 16,
      handshakeTimeoutSeconds: 10,
      idleTimeoutSeconds: 600,
      connectionLifetimeSeconds: 3600,
      resumeGraceSeconds: 30,
      maxFrameBytes: 4 * 1024 * 1024,
      contextLimitTokens: 131072,
      replicaLeaseMs: 3000,
      drainGraceSeconds: 20,
      logRepeatIntervalSeconds: 10,
      responseStoreMaxEntries: 10_000,
      responseStoreMaxBytes: 256 * 1024 * 1024,
      responseStoreTtlSeconds: 3600,
    });
  });

  it("takes every [serve] default from the gateway's own defaults", async () => {
    const config = await directories.load();
    for (const [key, value] of Object.entries(config.serve))
      expect(value, key).toEqual(defaultServeConfig[key as keyof typeof defaultServeConfig]);
  });

  it("applies the project config over the user config key by key", async () => {
    const userFile = await directories.writeUserConfig(`
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
    const projectFile = await directories.writeProjectConfig(`
[models.fast]
context_size = 16384
[serve]
port = 9100
`);
    const config = await directories.load({ cwd: path.join(directories.project, "src", "deep") });
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
    expect(config.serve).toMatchObject({ port: 9100, apiKeys: ["one"] });
  });

  it("does not read the user config a second time as a project config", async () => {
    const userFile = await directories.writeUserConfig(`default_model = "fast"\n`);
    const insideHome = path.join(directories.homeDirectory, "code", "app");
    await mkdir(insideHome, { recursive: true });
    const config = await directories.load({ cwd: insideHome });
    expect(config.sources).toEqual([userFile]);
    const moved = await directories.load({
      cwd: insideHome,
      env: { SPARK_HOME: path.join(directories.root, "elsewhere") },
    });
    expect(moved.sources).toEqual([]);
  });

  it("reads [agent] workspace_roots, resolved against the file's folder", async () => {
    const file = await directories.writeUserConfig(
      `[agent]\nworkspace_roots = ["code", "/srv/repos"]\n`,
    );
    const config = await directories.load();
    expect(config.agent.workspaceRoots).toEqual([
      path.join(path.dirname(file), "code"),
      "/srv/repos",
    ]);
    const none = await directories.load({
      cwd: directories.root,
      env: { SPARK_HOME: path.join(directories.root, "x") },
    });
    expect(none.agent.workspaceRoots).toEqual([]);
  });

  it("replaces a model entry when a later layer switches its engine", async () => {
    await directories.writeUserConfig(
      `[models.fast]\nengine = "llama-cpp"\npath = "/m.gguf"\nthreads = 2\n`,
    );
    await directories.writeProjectConfig(
      `[models.fast]\nengine = "openai-compatible"\npreset = "groq"\n`,
    );
    const config = await directories.load();
    expect(config.models.fast).toEqual({
      engine: "openai-compatible",
      preset: "groq",
      baseUrl: "https://api.groq.com/openai/v1",
      apiKeyEnv: "GROQ_API_KEY",
    });
  });

  it("reads the user config from SPARK_HOME when it is set", async () => {
    await directories.writeUserConfig(`default_model = "ignored"\n`);
    const elsewhere = path.join(directories.root, "elsewhere");
    const file = await directories.writeUserConfig(`default_model = "moved"\n`, elsewhere);
    const config = await directories.load({ env: { SPARK_HOME: elsewhere } });
    expect(config.sparkHome).toBe(elsewhere);
    expect(config.sources).toEqual([file]);
    expect(config.defaultModel).toBe("moved");
    expect(
      sparkHome({ env: { SPARK_HOME: "~/x" }, homeDirectory: directories.homeDirectory }),
    ).toBe(path.join(directories.homeDirectory, "x"));
    expect(sparkHome({ env: {}, homeDirectory: directories.homeDirectory })).toBe(
      path.join(directories.homeDirectory, ".spark"),
    );
  });

  it("resolves model paths against the config file's folder and expands ~", async () => {
    await directories.writeUserConfig(`
[models.a]
engine = "llama-cpp"
path = "models/a.gguf"
[models.b]
engine = "llama-cpp"
path = "~/b.gguf"
`);
    await directories.writeProjectConfig(
      `[models.script]\nengine = "script"\npath = "../fixtures/run.jsonl"\n`,
    );
    const config = await directories.load();
    expect(config.models.a).toMatchObject({
      path: path.join(directories.homeDirectory, ".spark", "models", "a.gguf"),
    });
    expect(config.models.b).toMatchObject({ path: path.join(directories.homeDirectory, "b.gguf") });
    expect(config.models.script).toEqual({
      engine: "script",
      path: path.join(directories.project, "fixtures", "run.jsonl"),
    });
  });

  it("--model script:<file> selects the scripted engine, resolved against the working folder", async () => {
    const config = await directories.load({ flags: { model: "script:fixtures/turns.jsonl" } });
    expect(config.defaultModel).toBe("script");
    expect(config.models.script).toEqual({
      engine: "script",
      path: path.join(directories.project, "fixtures", "turns.jsonl"),
    });
  });

  it("names the file and key path for an invalid value", async () => {
    const file = await directories.writeUserConfig(
      `[models.fast]\nengine = "llama"\npath = "/x.gguf"\n`,
    );
    const error = await directories.loadError();
    expect(error.message).toBe(
      `${file}: models.fast.engine: expected one of "llama-cpp" | "openai-compatible" | "script", got "llama"`,
    );
  });

  it("reads a llama-cpp model's fim_template and refuses one without its placeholders", async () => {
    await directories.writeUserConfig(
      `[models.code]\nengine = "llama-cpp"\npath = "/m.gguf"\nfim_template = "<PRE> {prefix} <SUF>{suffix} <MID>"\n`,
    );
    const config = await directories.load();
    expect(config.models.code).toMatchObject({ fimTemplate: "<PRE> {prefix} <SUF>{suffix} <MID>" });

    const file = await directories.writeUserConfig(
      `[models.code]\nengine = "llama-cpp"\npath = "/m.gguf"\nfim_template = "<PRE> {prefix}"\n`,
    );
    const error = await directories.loadError();
    expect(error.message).toMatch(
      new RegExp(
        `^${escapeRegExp(file)}: models\\.code\\.fim_template: must contain \\{prefix\\} and \\{suffix\\}`,
      ),
    );
  });

  it("reads a llama-cpp model's decode_loop and refuses an unknown one", async () => {
    await directories.writeUserConfig(
      `[models.code]\nengine = "llama-cpp"\npath = "/m.gguf"\ndecode_loop = "node-llama-cpp"\n`,
    );
    const config = await directories.load();
    expect(config.models.code).toMatchObject({ decodeLoop: "node-llama-cpp" });
    await directories.writeUserConfig(
      `[models.code]\nengine = "llama-cpp"\npath = "/m.gguf"\ndecode_loop = "fast"\n`,
    );
    const error = await directories.loadError();
    expect(error.message).toContain("models.code.decode_loop");
  });

  it("reads a llama-cpp model's fim_order and fim_split, unset by default, and refuses others", async () => {
    await directories.writeUserConfig(
      `[models.code]\nengine = "llama-cpp"\npath = "/m.gguf"\nfim_order = "spm"\nfim_split = "cursor"\n` +
        `[models.other]\nengine = "llama-cpp"\npath = "/o.gguf"\n`,
    );
    const config = await directories.load();
    expect(config.models.code).toMatchObject({ fimOrder: "spm", fimSplit: "cursor" });
    expect(config.models.other).not.toHaveProperty("fimOrder");
    expect(config.models.other).not.toHaveProperty("fimSplit");
    for (const [key, value] of [
      ["fim_order", "pms"],
      ["fim_split", "word"],
    ]) {
      await directories.writeUserConfig(
        `[models.code]\nengine = "llama-cpp"\npath = "/m.gguf"\n${key} = "${value}"\n`,
      );
      const error = await directories.loadError();
      expect(error.message).toContain(`models.code.${key}`);
    }
  });

  it("reads a llama-cpp model's device_sampling and refuses an unknown one", async () => {
    await directories.writeUserConfig(
      `[models.code]\nengine = "llama-cpp"\npath = "/m.gguf"\ndevice_sampling = "off"\n`,
    );
    const config = await directories.load();
    expect(config.models.code).toMatchObject({ deviceSampling: "off" });
    await directories.writeUserConfig(
      `[models.code]\nengine = "llama-cpp"\npath = "/m.gguf"\ndevice_sampling = "gpu"\n`,
    );
    const error = await directories.loadError();
    expect(error.message).toContain("models.code.device_sampling");
  });

  it("names the file for problems only visible after merging", async () => {
    await directories.writeUserConfig(`[serve]\nport = 1\n`);
    const projectFile = await directories.writeProjectConfig(
      `[models.fast]\nengine = "llama-cpp"\n`,
    );
    const error = await directories.loadError();
    expect(error.message).toMatch(
      new RegExp(`^${escapeRegExp(projectFile)}: models\\.fast\\.path: required`),
    );

    await directories.writeProjectConfig(`[models.fast]\ncontext_size = 10\n`);
    const missingEngine = await directories.loadError();
    expect(missingEngine.message).toBe(
      `${projectFile}: models.fast.engine: required: expected one of "llama-cpp" | "openai-compatible" | "script"`,
    );

    await directories.writeProjectConfig(
      `[models.fast]\nengine = "openai-compatible"\npreset = "custom"\n`,
    );
    const custom = await directories.loadError();
    expect(custom.message).toBe(
      `${projectFile}: models.fast.base_url: required when preset = "custom"`,
    );
  });

  it("reports unknown keys, wrong types and out-of-range numbers", async () => {
    const file = await directories.writeUserConfig(`[serve]\nprot = 80\n`);
    expect((await directories.loadError()).message).toBe(`${file}: serve.prot: unknown key`);
    await directories.writeUserConfig(`[serve]\nport = "80"\n`);
    expect((await directories.loadError()).message).toBe(
      `${file}: serve.port: expected number, got "80"`,
    );
    await directories.writeUserConfig(`[serve]\nport = 70000\n`);
    expect((await directories.loadError()).message).toBe(
      `${file}: serve.port: expected number <= 65535, got 70000`,
    );
    await directories.writeUserConfig(`[serve]\nlog_repeat_interval_seconds = 0\n`);
    expect((await directories.loadError()).message).toBe(
      `${file}: serve.log_repeat_interval_seconds: expected number > 0, got 0`,
    );
    await directories.writeUserConfig(`[serve]\napi_keys = ["ok", 3]\n`);
    expect((await directories.loadError()).message).toBe(
      `${file}: serve.api_keys[1]: expected string, got 3`,
    );
    await directories.writeUserConfig(
      `[models.gpu]\nengine = "llama-cpp"\npath = "/x.gguf"\ngpu = true\n`,
    );
    expect((await directories.loadError()).message).toBe(
      `${file}: models.gpu.gpu: expected one of "auto" | "cuda" | "vulkan" | "metal" | false, got true`,
    );
  });

  it("names file, line and column for a TOML syntax error", async () => {
    const file = await directories.writeProjectConfig(
      `default_model = "fast"\n[serve]\nport = = 3\n`,
    );
    const error = await directories.loadError();
    expect(error.message).toMatch(new RegExp(`^${escapeRegExp(file)}:3:8: TOML syntax error: `));
  });
});
