// Environment variables and flags as loadConfig layers them over the files, and the errors that
// name the variable or flag.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useConfigDirectories } from "./config-test-directories.ts";

const directories = useConfigDirectories();

describe("config from the environment and flags", () => {
  it("applies SPARK_* variables over files, and provider keys", async () => {
    await directories.writeUserConfig(`
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
    const config = await directories.load({
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
    await directories.writeUserConfig(
      `default_model = "fast"\n[models.local]\ncontext_size = 2048\n`,
    );
    const config = await directories.load({ env: { SPARK_MODEL_PATH: "weights/tiny.gguf" } });
    expect(config.defaultModel).toBe("local");
    expect(config.models.local).toEqual({
      engine: "llama-cpp",
      path: path.join(directories.project, "weights", "tiny.gguf"),
      contextSize: 2048,
      gpu: "auto",
      sequences: 4,
      speculative: false,
    });
  });

  it("applies flags last", async () => {
    await directories.writeUserConfig(
      `[models.fast]\nengine = "llama-cpp"\npath = "/fast.gguf"\nthreads = 3\n`,
    );
    const config = await directories.load({
      env: { SPARK_PORT: "8123", SPARK_MODEL: "fast" },
      flags: { port: "9999", host: "localhost", model: "~/other.gguf", threads: 8 },
    });
    expect(config.serve).toMatchObject({ host: "localhost", port: 9999 });
    expect(config.defaultModel).toBe("local");
    expect(config.models.local).toMatchObject({
      path: path.join(directories.homeDirectory, "other.gguf"),
      threads: 8,
    });
    expect(config.models.fast).toMatchObject({ threads: 8 });
    const named = await directories.load({ flags: { model: "fast" } });
    expect(named.defaultModel).toBe("fast");
  });

  it("names the variable or flag for an invalid value", async () => {
    const port = await directories.loadError({ env: { SPARK_PORT: "http" } });
    expect(port.message).toBe(`SPARK_PORT: expected an integer from 0 to 65535, got "http"`);
    const threads = await directories.loadError({ env: { SPARK_THREADS: "0" } });
    expect(threads.message).toBe(`SPARK_THREADS: expected an integer >= 1, got "0"`);
    const blank = await directories.load({ env: { SPARK_MODEL: "  " } });
    expect(blank.defaultModel).toBeUndefined();
    const flag = await directories.loadError({ flags: { port: -1 } });
    expect(flag.message).toBe(`--port: expected an integer from 0 to 65535, got -1`);
  });
});
