// The environment a command gets: the allow-list and the names the user passes, never a secret
// that merely lives in Spark's own environment.
import { describe, expect, it } from "vitest";
import { commandEnvironment } from "./command-environment.ts";

const spark = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/ada",
  USER: "ada",
  LANG: "en_GB.UTF-8",
  LC_ALL: "C.UTF-8",
  LC_TIME: "en_DK.UTF-8",
  TERM: "xterm-256color",
  TZ: "Europe/London",
  CI: "true",
  OPENAI_API_KEY: "sk-openai-secret",
  SPARK_API_KEY: "spark-secret",
  GITHUB_TOKEN: "ghp_secret",
  AWS_SECRET_ACCESS_KEY: "aws-secret",
  DATABASE_URL: "postgres://ada:password@db/app",
  SSH_AUTH_SOCK: "/run/user/1000/ssh-agent.socket",
  NODE_OPTIONS: "--require /tmp/evil.js",
  NPM_CONFIG_REGISTRY: "https://registry.example",
  UNSET: undefined,
};

describe("commandEnvironment", () => {
  it("passes the allow-list and LC_* and nothing else", () => {
    expect(commandEnvironment(spark)).toEqual({
      PATH: "/usr/bin:/bin",
      HOME: "/home/ada",
      USER: "ada",
      LANG: "en_GB.UTF-8",
      LC_ALL: "C.UTF-8",
      LC_TIME: "en_DK.UTF-8",
      TERM: "xterm-256color",
      TZ: "Europe/London",
      CI: "true",
    });
  });

  it("passes a secret only when the user names it, and exactly that one", () => {
    const environment = commandEnvironment(spark, ["NPM_CONFIG_REGISTRY", "GITHUB_TOKEN"]);
    expect(environment.NPM_CONFIG_REGISTRY).toBe("https://registry.example");
    expect(environment.GITHUB_TOKEN).toBe("ghp_secret");
    expect(environment).not.toHaveProperty("OPENAI_API_KEY");
    expect(environment).not.toHaveProperty("SPARK_API_KEY");
    expect(environment).not.toHaveProperty("AWS_SECRET_ACCESS_KEY");
  });

  it("lets overrides win (the sandbox's private TMPDIR)", () => {
    expect(commandEnvironment({ TMPDIR: "/run/user/1000" }, [], { TMPDIR: "/tmp" })).toEqual({
      TMPDIR: "/tmp",
    });
  });
});
