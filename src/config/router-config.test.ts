// [routes], [router] and the openai preset as loadConfig reads them.
import { describe, expect, it } from "vitest";
import { escapeRegExp, useConfigDirectories } from "./config-test-directories.ts";

const directories = useConfigDirectories();

describe("router config", () => {
  it("reads [routes] and [router], merging retry and breaker key by key", async () => {
    await directories.writeUserConfig(`
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
    const projectFile = await directories.writeProjectConfig(`
[router]
retry = { max_attempts = 1 }
[router.breaker]
open_ms = "soon"
`);
    const error = await directories.loadError();
    expect(error.message).toMatch(
      new RegExp(`^${escapeRegExp(projectFile)}: router\\.breaker\\.open_ms: `),
    );
    await directories.writeProjectConfig(`[router]\nretry = { max_attempts = 1 }\n`);
    const config = await directories.load();
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
    await directories.writeUserConfig(`preset = "openai"\n[routes]\nreview = "deep"\n`);
    const config = await directories.load({ env: { OPENAI_API_KEY: "sk-test" } });
    expect(config.defaultModel).toBe("auto");
    expect(config.models["gpt-5.3-codex-spark"]).toEqual({
      engine: "openai-compatible",
      preset: "openai",
      baseUrl: "https://api.openai.com/v1",
      model: "gpt-5.3-codex-spark",
      apiKeyEnv: "OPENAI_API_KEY",
      api: "responses",
      transport: "websocket",
    });
    expect(config.models["gpt-5.3-codex"]).toMatchObject({
      model: "gpt-5.3-codex",
      api: "responses",
      transport: "websocket",
    });
    expect(config.router.routes).toEqual({
      fast: ["gpt-5.3-codex-spark"],
      deep: ["gpt-5.3-codex"],
      review: ["deep"],
    });
    expect(config.providerKeys).toEqual({ OPENAI_API_KEY: "sk-test" });
  });

  it("a pool's health checks default on, are read per model, and refuse a path without /", async () => {
    const replicas = 'base_urls = ["http://10.0.0.1:8000/v1/", "http://10.0.0.2:8000/v1"]';
    await directories.writeUserConfig(`
[models.vllm]
engine = "openai-compatible"
${replicas}
[models.tuned]
engine = "openai-compatible"
${replicas}
health_check_interval_ms = 0
health_check_timeout_ms = 500
health_check_path = "/../health"
`);
    const config = await directories.load();
    expect(config.models.vllm).toMatchObject({
      baseUrls: ["http://10.0.0.1:8000/v1", "http://10.0.0.2:8000/v1"],
      healthCheck: { intervalMs: 5_000, timeoutMs: 2_000, path: "/models" },
    });
    expect(config.models.tuned).toMatchObject({
      healthCheck: { intervalMs: 0, timeoutMs: 500, path: "/../health" },
    });
    await directories.writeUserConfig(`
[models.vllm]
engine = "openai-compatible"
${replicas}
health_check_path = "health"
`);
    const error = await directories.loadError();
    expect(error.message).toMatch(
      /models\.vllm\.health_check_path: expected a path starting with "\/"/,
    );
  });

  it('reads transport = "websocket", and refuses it without api = "responses"', async () => {
    await directories.writeUserConfig(`
[models.codex]
engine = "openai-compatible"
preset = "openai"
model = "gpt-5.3-codex"
api = "responses"
transport = "websocket"
`);
    const config = await directories.load();
    expect(config.models.codex).toMatchObject({ api: "responses", transport: "websocket" });

    const file = await directories.writeUserConfig(
      `[models.vllm]\nengine = "openai-compatible"\nbase_url = "http://127.0.0.1:8000/v1"\ntransport = "websocket"\n`,
    );
    const error = await directories.loadError();
    expect(error.message).toMatch(
      new RegExp(
        `^${escapeRegExp(file)}: models\\.vllm\\.transport: transport = "websocket" needs api = "responses"`,
      ),
    );
  });
});
