import { describe, expect, it } from "vitest";
import { resolveOpenAICompatibleOptions } from "./openai-compatible-options.ts";
import { openAICompatiblePresets, presetNames } from "./presets.ts";

describe("resolveOpenAICompatibleOptions", () => {
  it("takes the base URL and key from the preset and the environment", () => {
    const resolved = resolveOpenAICompatibleOptions({
      preset: "cerebras",
      model: "llama3.1-8b",
      env: { CEREBRAS_API_KEY: "csk" },
    });
    expect(resolved).toMatchObject({
      baseUrl: "https://api.cerebras.ai/v1",
      origin: "https://api.cerebras.ai",
      basePath: "/v1",
      apiKey: "csk",
      apiKeyEnv: "CEREBRAS_API_KEY",
      supportsPrediction: false,
    });
  });

  it("prefers an explicit key and key variable", () => {
    expect(
      resolveOpenAICompatibleOptions({
        preset: "groq",
        model: "m",
        apiKey: "direct",
        env: { GROQ_API_KEY: "env" },
      }).apiKey,
    ).toBe("direct");
    expect(
      resolveOpenAICompatibleOptions({
        preset: "groq",
        model: "m",
        apiKeyEnv: "MY_KEY",
        env: { MY_KEY: "mine" },
      }).apiKey,
    ).toBe("mine");
    expect(
      resolveOpenAICompatibleOptions({ preset: "groq", model: "m", env: { GROQ_API_KEY: "" } })
        .apiKey,
    ).toBeUndefined();
  });

  it("lets base_url override a preset and strips the trailing slash", () => {
    const resolved = resolveOpenAICompatibleOptions({
      preset: "vllm",
      baseUrl: "http://gpu-box:9000/v1/",
      model: "m",
    });
    expect(resolved.baseUrl).toBe("http://gpu-box:9000/v1");
    expect(resolved.basePath).toBe("/v1");
    expect(resolved.apiKey).toBeUndefined();
  });

  it("lets a local server go without a model name, resolved later from its /models", () => {
    expect(resolveOpenAICompatibleOptions({ preset: "llama-server" }).model).toBeUndefined();
  });

  it("fills in default timeouts around the ones given", () => {
    const resolved = resolveOpenAICompatibleOptions({
      preset: "ollama",
      model: "m",
      timeouts: { idleMs: 5 },
    });
    expect(resolved.timeouts).toEqual({ connectMs: 5_000, firstByteMs: 120_000, idleMs: 5 });
  });

  it.each([
    [{ preset: "custom" as const, model: "m" }, /base_url/],
    [{ preset: "groq" as const, model: "" }, /model/],
    [{ preset: "custom" as const, baseUrl: "ftp://x/v1", model: "m" }, /http/],
    [{ preset: "custom" as const, baseUrl: "not a url", model: "m" }, /not a URL/],
    [{ preset: "vllm" as const, model: "m", timeouts: { connectMs: 0 } }, /connectMs/],
    [{ preset: "nope" as never, model: "m" }, /Unknown/],
    [{ preset: "openai" as const, model: "m", api: "completions" as never }, /not supported/],
  ])("rejects unusable options with invalid_config (%#)", (options, message) => {
    expect(() => resolveOpenAICompatibleOptions(options)).toThrowError(message);
    try {
      resolveOpenAICompatibleOptions(options);
    } catch (error) {
      expect(error).toMatchObject({ code: "invalid_config" });
    }
  });
});

describe("presets", () => {
  it("every hosted preset reads a key, every local one needs none", () => {
    for (const name of presetNames) {
      const preset = openAICompatiblePresets[name];
      const local = preset.baseUrl === undefined || preset.baseUrl.startsWith("http://127.0.0.1");
      expect(preset.apiKeyEnv === undefined).toBe(local);
    }
  });

  it("only OpenAI takes predicted outputs", () => {
    expect(presetNames.filter((name) => openAICompatiblePresets[name].supportsPrediction)).toEqual([
      "openai",
    ]);
  });

  it("takes transport = websocket only with the Responses API, with OpenAI's limits by default", () => {
    const resolved = resolveOpenAICompatibleOptions({
      preset: "openai",
      model: "gpt-5.3-codex",
      api: "responses",
      transport: "websocket",
      webSocket: { maxSessions: 8 },
      env: {},
    });
    expect(resolved.transport).toBe("websocket");
    expect(resolved.webSocket).toMatchObject({ maxSessions: 8, lifetimeMs: 55 * 60_000 });
    expect(() =>
      resolveOpenAICompatibleOptions({
        baseUrl: "http://127.0.0.1:8000/v1",
        transport: "websocket",
      }),
    ).toThrow(/needs api = "responses"/);
    expect(() =>
      resolveOpenAICompatibleOptions({
        baseUrl: "http://127.0.0.1:8000/v1",
        api: "responses",
        transport: "grpc" as "http",
      }),
    ).toThrow(/transport = "grpc" is not supported/);
  });
});
