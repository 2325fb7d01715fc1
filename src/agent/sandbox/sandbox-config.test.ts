// `[sandbox]` in the user's config: its defaults, its values, and that a cloned repository's
// ./.spark/config.toml cannot turn the sandbox off, open the network or pass secrets through it.
import { describe, expect, it } from "vitest";
import { useConfigDirectories } from "../../config/config-test-directories.ts";
import { resolveCommandSandbox } from "./resolve-command-sandbox.ts";

const directories = useConfigDirectories();

describe("[sandbox] settings", () => {
  it("default to auto, no network and no extra variables", async () => {
    expect((await directories.load()).sandbox).toEqual({ mode: "auto", network: false, env: [] });
  });

  it("come from the user's config", async () => {
    await directories.writeUserConfig(
      '[sandbox]\nmode = "off"\nnetwork = true\nenv = ["NPM_TOKEN"]\n',
    );
    expect((await directories.load()).sandbox).toEqual({
      mode: "off",
      network: true,
      env: ["NPM_TOKEN"],
    });
  });

  it("refuses a mode other than auto or off, and env entries that are not variable names", async () => {
    await directories.writeUserConfig('[sandbox]\nmode = "on"\n');
    expect((await directories.loadError()).message).toContain("sandbox.mode");
    await directories.writeUserConfig('[sandbox]\nenv = ["NPM TOKEN"]\n');
    expect((await directories.loadError()).message).toContain("sandbox.env");
  });

  it("cannot be set by a project's config", async () => {
    for (const setting of ['mode = "off"', "network = true", 'env = ["OPENAI_API_KEY"]']) {
      const file = await directories.writeProjectConfig(`[sandbox]\n${setting}\n`);
      const key = setting.split(" ")[0] ?? "";
      const error = await directories.loadError();
      expect(error.message).toContain(
        `${file}: sandbox.${key} cannot be set in a project's config`,
      );
    }
  });
});

describe("resolveCommandSandbox", () => {
  it("has no sandbox when the user turned it off, whatever this machine has", async () => {
    const sandbox = await resolveCommandSandbox({ mode: "off", network: false, env: ["A"] });
    expect(sandbox).toEqual({
      kind: "none",
      reason: 'turned off by [sandbox] mode = "off" in the config',
      description:
        'none — turned off by [sandbox] mode = "off" in the config; commands outside the read-only list always ask',
      network: true,
      passEnvironment: ["A"],
    });
  });
});
