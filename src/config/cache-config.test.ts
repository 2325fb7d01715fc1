// `[cache]` as config.toml sets it: on with a 2 GiB cap in cache/ under SPARK_HOME by default,
// turned off or moved by the user's file, and never pointed elsewhere by a project's.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cacheSettings } from "./cache-settings.ts";
import { useConfigDirectories } from "./config-test-directories.ts";

const directories = useConfigDirectories();

describe("[cache]", () => {
  it("is on by default, in cache/ under SPARK_HOME, capped at 2 GiB", async () => {
    const config = await directories.load();
    expect(cacheSettings(config)).toEqual({
      enabled: true,
      directory: path.join(config.sparkHome, "cache"),
      maxBytes: 2 * 1024 ** 3,
    });
  });

  it("is turned off, capped and moved by the user's config", async () => {
    await directories.writeUserConfig(
      `[cache]\nenabled = false\nmax_bytes = 1000000\ndirectory = "~/spark-kv"\n`,
    );
    const config = await directories.load();
    expect(cacheSettings(config)).toEqual({
      enabled: false,
      directory: path.join(directories.homeDirectory, "spark-kv"),
      maxBytes: 1_000_000,
    });
  });

  it("refuses a project's cache directory", async () => {
    const file = await directories.writeProjectConfig(`[cache]\ndirectory = "/tmp/shared"\n`);
    const error = await directories.loadError();
    expect(error.message).toContain(`${file}: cache.directory cannot be set in a project's config`);
  });
});
