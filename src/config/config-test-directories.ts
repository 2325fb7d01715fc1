// Test support for loadConfig's tests: a fresh home and project folder per test, and helpers that
// write their config files, load from the project with no environment (overridable per call), or
// expect such a load to fail with invalid_config.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect } from "vitest";
import { SparkError } from "../protocol/spark-error.ts";
import type { LoadedConfig } from "./config-types.ts";
import { loadConfig, type LoadConfigOptions } from "./load-config.ts";

export interface ConfigDirectories {
  root: string;
  homeDirectory: string;
  project: string;
  writeUserConfig(text: string, directory?: string): Promise<string>;
  writeProjectConfig(text: string): Promise<string>;
  /** loadConfig from the project folder with an empty environment, unless `overrides` say otherwise. */
  load(overrides?: Partial<LoadConfigOptions>): Promise<LoadedConfig>;
  loadError(overrides?: Partial<LoadConfigOptions>): Promise<SparkError>;
}

/** Registers the per-test folders; read the paths inside tests (they change per test). */
export function useConfigDirectories(): ConfigDirectories {
  const directories: ConfigDirectories = {
    root: "",
    homeDirectory: "",
    project: "",
    async writeUserConfig(text, directory = path.join(directories.homeDirectory, ".spark")) {
      await mkdir(directory, { recursive: true });
      const file = path.join(directory, "config.toml");
      await writeFile(file, text);
      return file;
    },
    async writeProjectConfig(text) {
      await mkdir(path.join(directories.project, ".spark"), { recursive: true });
      const file = path.join(directories.project, ".spark", "config.toml");
      await writeFile(file, text);
      return file;
    },
    load(overrides = {}) {
      return loadConfig({
        cwd: directories.project,
        env: {},
        homeDirectory: directories.homeDirectory,
        ...overrides,
      });
    },
    async loadError(overrides = {}) {
      const error: unknown = await directories.load(overrides).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(SparkError);
      expect((error as SparkError).code).toBe("invalid_config");
      return error as SparkError;
    },
  };
  beforeEach(async () => {
    directories.root = await mkdtemp(path.join(os.tmpdir(), "spark-config-"));
    directories.homeDirectory = path.join(directories.root, "home");
    directories.project = path.join(directories.root, "work", "project");
    await mkdir(path.join(directories.homeDirectory, ".spark"), { recursive: true });
    await mkdir(path.join(directories.project, "src", "deep"), { recursive: true });
  });
  afterEach(async () => {
    await rm(directories.root, { recursive: true, force: true });
  });
  return directories;
}

/** Text as a literal inside a RegExp. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
