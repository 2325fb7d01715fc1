import { describe, expect, it } from "vitest";
import { findServeCommand, shellQuote, type ServeCommandContext } from "./serve-command.ts";

function machine(files: Record<string, string>, overrides: Partial<ServeCommandContext> = {}) {
  return {
    configured: "",
    workspaceFolders: ["/home/me/project"],
    buildRepository: undefined,
    pathDirectories: ["/usr/local/bin", "/usr/bin"],
    nodeCommand: "node",
    isFile: (file: string) => file in files,
    readText: (file: string) => files[file],
    ...overrides,
  } satisfies ServeCommandContext;
}

const clone = (root: string): Record<string, string> => ({
  [`${root}/bin/spark.js`]: "",
  [`${root}/package.json`]: '{ "name": "spark", "bin": { "spark": "bin/spark.js" } }',
  [`${root}/node_modules/tsx/package.json`]: "{}",
});

describe("findServeCommand", () => {
  it("runs the clone the extension was built from with node when spark is not on PATH", () => {
    expect(
      findServeCommand(machine(clone("/home/me/spark"), { buildRepository: "/home/me/spark" })),
    ).toEqual({ command: "node /home/me/spark/bin/spark.js serve", source: "build clone" });
  });

  it("prefers the setting, then a clone or an install in the workspace, then PATH", () => {
    const everywhere = {
      ...clone("/home/me/spark"),
      "/usr/bin/spark": "",
      "/home/me/project/node_modules/.bin/spark": "",
    };
    const context = machine(everywhere, { buildRepository: "/home/me/spark" });
    expect(findServeCommand({ ...context, configured: "my-spark serve" })?.command).toBe(
      "my-spark serve",
    );
    expect(findServeCommand(context)).toEqual({
      command: "npx --no-install spark serve",
      source: "workspace install",
    });
    expect(findServeCommand({ ...context, workspaceFolders: ["/home/me/spark"] })?.source).toBe(
      "workspace clone",
    );
    expect(findServeCommand({ ...context, workspaceFolders: [] })).toEqual({
      command: "spark serve",
      source: "PATH",
    });
  });

  it("finds nothing rather than guess: no install, or a clone without node or npm install", () => {
    expect(findServeCommand(machine({}))).toBeUndefined();
    const noDependencies = clone("/home/me/spark");
    delete noDependencies["/home/me/spark/node_modules/tsx/package.json"];
    expect(
      findServeCommand(machine(noDependencies, { buildRepository: "/home/me/spark" })),
    ).toBeUndefined();
    expect(
      findServeCommand(
        machine(clone("/home/me/spark"), {
          buildRepository: "/home/me/spark",
          nodeCommand: undefined,
        }),
      ),
    ).toBeUndefined();
    // Another project's bin/spark.js is not Spark.
    const other = { ...clone("/home/me/other"), "/home/me/other/package.json": '{"name":"x"}' };
    expect(findServeCommand(machine(other, { buildRepository: "/home/me/other" }))).toBeUndefined();
  });
});

describe("shellQuote", () => {
  it("leaves plain paths bare and quotes the rest for a POSIX shell", () => {
    expect(shellQuote("/usr/bin/node")).toBe("/usr/bin/node");
    expect(shellQuote("/home/me/my spark/bin/spark.js")).toBe("'/home/me/my spark/bin/spark.js'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
