// bin/spark.js's two ways to run the CLI, in a copy of the project so its files can be edited: the
// bundle scripts/build-cli.ts writes (while it is current) and the TypeScript through tsx. Both
// print the same, load the same packages (lazy chunks stay lazy; the bundle's packages compiled
// into its chunks), find the files read by path (prompts/, the browser app), and an edited source
// or a missing bundle makes the launcher run tsx.
import { execFile, spawn } from "node:child_process";
import { cp, mkdir, readFile, readdir, rename, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { createAgentWorkspace } from "../agent/support/agent-workspace.ts";
import { suiteDirectory } from "../support/suite-directory.ts";
import { loadedPackages } from "./support/loaded-packages.ts";
import { RECORDER_OPTION } from "./support/loaded-modules-recorder.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Copied (the copy is what changes); the rest is linked. */
const COPIED = ["bin", "src", "scripts/build-cli.ts", "tsconfig.json", "package.json"];
const LINKED = ["web", "prompts", "evals"];
/** npm's record of node_modules: copied (the launcher reads its time), each package linked. */
const INSTALLED_PACKAGES = ".package-lock.json";

interface Launch {
  code: number;
  stdout: string;
  /** Without the launcher's own line. */
  stderr: string;
  /** What the launcher ran, from its SPARK_DEBUG_LAUNCHER line, and why tsx when it was. */
  ran: "bundle" | "tsx" | undefined;
  reason: string | undefined;
  /**
   * Spark's own dependencies the process loaded, from node_modules or as their code in a loaded
   * chunk. Only those: through tsx, the packages a CommonJS package requires pass no ESM loader
   * hook (Node 20), while the bundle's metafile names them all; each follows its importer anyway.
   */
  packages: Set<string>;
  /** Those it imported from node_modules (the bundle's external ones). */
  packagesByUrl: Set<string>;
}

const LAUNCHER_LINE = /^spark launcher: (bundle|tsx)(?: \((.*); checked in [\d.]+ ms\)| \(.*\))\n/m;

describe("the CLI bundle", () => {
  const directory = suiteDirectory("spark-cli-bundle-");
  const project = (...names: string[]): string => directory("project", ...names);
  let launches = 0;

  beforeAll(async () => {
    for (const name of COPIED) await cp(path.join(ROOT, name), project(name), { recursive: true });
    for (const name of LINKED) await symlink(path.join(ROOT, name), project(name));
    await mkdir(project("node_modules"));
    for (const name of await readdir(path.join(ROOT, "node_modules"))) {
      const installed = path.join(ROOT, "node_modules", name);
      if (name === INSTALLED_PACKAGES) await cp(installed, project("node_modules", name));
      else await symlink(installed, project("node_modules", name));
    }
    await build();
  });

  async function build(): Promise<void> {
    await promisify(execFile)(process.execPath, [
      "--import",
      "tsx",
      project("scripts", "build-cli.ts"),
    ]);
  }

  /**
   * `spark <args>` from the copy. A server: once its stderr matches `running.until`,
   * `running.then` is given that stderr, and the server is interrupted when it is done.
   */
  async function launch(
    args: string[],
    options: {
      environment?: Record<string, string>;
      cwd?: string;
      running?: { until: RegExp; then: (stderr: string) => Promise<void> };
    } = {},
  ): Promise<Launch> {
    launches += 1;
    const record = directory(`loaded-${launches}.txt`);
    await writeFile(record, "");
    const environment: Record<string, string | undefined> = { ...process.env };
    // Each launch says which way it runs (a developer may run the suite with it set).
    delete environment.SPARK_NO_BUNDLE;
    const child = spawn(process.execPath, [project("bin", "spark.js"), ...args], {
      cwd: options.cwd ?? directory(),
      env: {
        ...environment,
        SPARK_HOME: directory("home"),
        SPARK_DEBUG_LAUNCHER: "1",
        SPARK_TEST_LOADED_MODULES: record,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} ${RECORDER_OPTION}`.trim(),
        ...options.environment,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let running: Promise<void> | undefined;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      if (running !== undefined || options.running?.until.test(stderr) !== true) return;
      running = options.running.then(stderr).finally(() => child.kill("SIGINT"));
    });
    const code = await new Promise<number>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (exitCode) => resolve(exitCode ?? 1));
    });
    await running;
    const line = LAUNCHER_LINE.exec(stderr);
    const loaded = (await readFile(record, "utf8")).split("\n");
    const metafile = project("dist", "cli-meta.json");
    const packages = loadedPackages(loaded, { root: project(), metafile });
    const { dependencies } = JSON.parse(await readFile(project("package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    return {
      code,
      stdout,
      stderr: stderr.replace(LAUNCHER_LINE, ""),
      ran: line?.[1] as Launch["ran"],
      reason: line?.[2],
      packages: new Set([...packages.all].filter((name) => name in dependencies)),
      packagesByUrl: packages.byUrl,
    };
  }

  const throughTsx = { SPARK_NO_BUNDLE: "1" };
  /** The packages the TypeScript loads, less the loader that compiles it. */
  const withoutLoader = (packages: Set<string>): string[] =>
    [...packages].filter((name) => name !== "tsx" && name !== "esbuild").sort();

  // eval --list reads the bundled tasks from evals/ by their path.
  it.each([
    ["--version", "commander only"],
    ["--help", "commander only"],
    ["serve --help", "commander only"],
    ["eval --list", "config and agent packages"],
  ])(
    "spark %s prints the same and loads the same packages (%s) from the bundle as through tsx",
    async (command) => {
      const args = command.split(" ");
      const bundled = await launch(args);
      const compiled = await launch(args, { environment: throughTsx });
      expect([bundled.ran, compiled.ran]).toEqual(["bundle", "tsx"]);
      expect(bundled.code, bundled.stderr).toBe(0);
      expect(bundled.stdout).not.toBe("");
      expect(bundled).toMatchObject({ code: compiled.code, stdout: compiled.stdout });
      expect([...bundled.packages].sort()).toEqual(withoutLoader(compiled.packages));
      if (!command.startsWith("eval")) expect([...bundled.packages]).toEqual(["commander"]);
      // Compiled into the chunks: none is imported from node_modules.
      expect([...bundled.packagesByUrl]).toEqual([]);
    },
  );

  it("spark exec runs a scripted turn with tools the same way, finding prompts/system.md", async () => {
    const workspace = createAgentWorkspace(directory());
    workspace.write("notes.txt", "from the workspace\n");
    const script = directory("exec.jsonl");
    const turns = [
      { text: "Reading.", toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
      { text: "Listing.", toolCalls: [{ name: "run_command", arguments: { command: "ls" } }] },
      { text: "Done.", expect: { anyMessageIncludes: "from the workspace" } },
    ];
    await writeFile(script, turns.map((turn) => JSON.stringify(turn)).join("\n") + "\n");
    const args = ["exec", "--json", "--model", `script:${script}`, "Read the notes"];
    const cwd = workspace.root;
    const bundled = await launch(args, { cwd });
    const compiled = await launch(args, { cwd, environment: throughTsx });
    expect([bundled.ran, compiled.ran]).toEqual(["bundle", "tsx"]);
    expect(bundled.code, bundled.stderr).toBe(0);
    // Ids and timings differ from run to run; everything else, the budget's token count (the
    // system prompt read from prompts/) included, is the same.
    const events = (stdout: string): unknown[] =>
      stdout
        .trim()
        .split("\n")
        .map((line): unknown =>
          JSON.parse(line, (key, value: unknown) => (varies(key) ? 0 : value)),
        );
    expect(events(bundled.stdout)).toEqual(events(compiled.stdout));
    expect(bundled.stdout).toContain('"type":"tool-result"');
    expect(bundled.stdout).toContain('"reason":"completed"');
    // The agent's lazy parts stay lazy: no llama.cpp, Ink or MCP SDK for a scripted model.
    expect([...bundled.packages].sort()).toEqual(withoutLoader(compiled.packages));
    for (const name of ["node-llama-cpp", "ink", "react", "@modelcontextprotocol/sdk"])
      expect(bundled.packages.has(name), name).toBe(false);
    expect(bundled.packages.has("zod")).toBe(true);
    expect([...bundled.packagesByUrl]).toEqual([]);
  });

  it("spark serve serves the browser app and a chat completion the same way", async () => {
    const script = directory("serve.jsonl");
    await writeFile(script, `${JSON.stringify({ text: "Served." })}\n`);
    const serve = async (environment: Record<string, string> = {}) => {
      const answers: string[] = [];
      const launched = await launch(["serve", "--port", "0", "--model", `script:${script}`], {
        environment,
        running: {
          until: /Command sandbox:/,
          then: async (stderr) => {
            const address = /listening on (http:\/\/\S+)/.exec(stderr)?.[1] ?? "no address";
            answers.push(await (await fetch(`${address}/`)).text());
            const completion = await fetch(`${address}/v1/chat/completions`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                model: "script",
                messages: [{ role: "user", content: "hi" }],
              }),
            });
            const body = (await completion.json()) as { choices?: Array<{ message: unknown }> };
            answers.push(JSON.stringify(body.choices?.[0]?.message));
          },
        },
      });
      return { launched, answers };
    };
    const bundled = await serve();
    const compiled = await serve(throughTsx);
    expect([bundled.launched.ran, compiled.launched.ran]).toEqual(["bundle", "tsx"]);
    const index = await readFile(path.join(ROOT, "web", "dist", "index.html"), "utf8");
    expect(bundled.answers[0]).toBe(index);
    expect(bundled.answers[1]).toContain("Served.");
    expect(bundled.answers).toEqual(compiled.answers);
    // Its own memory and a scripted model: no Redis client, llama.cpp or MCP SDK loaded.
    expect([...bundled.launched.packages].sort()).toEqual(
      withoutLoader(compiled.launched.packages),
    );
    for (const name of ["ioredis", "node-llama-cpp", "@modelcontextprotocol/sdk"])
      expect(bundled.launched.packages.has(name), name).toBe(false);
    expect(bundled.launched.packages.has("ws")).toBe(true);
  });

  it("names the src/ line in a stack trace under --enable-source-maps", async () => {
    // main.ts reads package.json as it loads: made to throw there, the error is uncaught.
    const failingRead = `import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const read = fs.readFileSync;
fs.readFileSync = (file, ...rest) => {
  if (String(file).endsWith("package.json")) throw new Error("read refused");
  return read(file, ...rest);
};
syncBuiltinESMExports();`;
    const launched = await launch(["--version"], {
      environment: {
        NODE_OPTIONS: [
          "--enable-source-maps",
          `--import=data:text/javascript,${encodeURIComponent(failingRead)}`,
        ].join(" "),
      },
    });
    expect(launched.ran).toBe("bundle");
    expect(launched.stderr).toContain("read refused");
    expect(launched.stderr).toContain(`(${project("src", "cli", "main.ts")}:`);
  });

  it("runs tsx, with the edit, once a source file changed after the build, until it is rebuilt", async () => {
    const command = project("src", "cli", "commands", "serve-command.ts");
    const source = await readFile(command, "utf8");
    const edited = source.replace('"port to listen on"', '"port to listen on (edited)"');
    expect(edited).not.toBe(source);
    // A test beside the code is never bundled: touching one keeps the bundle.
    const test = project("src", "cli", "open-browser.test.ts");
    await utimes(test, new Date(), new Date());
    expect((await launch(["--version"])).ran).toBe("bundle");
    await writeFile(command, edited);
    const afterEdit = await launch(["serve", "--help"]);
    expect(afterEdit.ran).toBe("tsx");
    expect(afterEdit.reason).toBe("src/cli/commands/serve-command.ts is newer than the bundle");
    expect(afterEdit.stdout).toContain("port to listen on (edited)");
    await build();
    const rebuilt = await launch(["serve", "--help"]);
    expect(rebuilt.ran).toBe("bundle");
    expect(rebuilt.stdout).toBe(afterEdit.stdout);
  });

  it("runs tsx once npm changed node_modules after the build (the bundle holds the packages' code), until it is rebuilt", async () => {
    expect((await launch(["--version"])).ran).toBe("bundle");
    // What `npm update` or `npm install <package>` does to it.
    await utimes(project("node_modules", INSTALLED_PACKAGES), new Date(), new Date());
    const afterUpdate = await launch(["--version"]);
    expect(afterUpdate).toMatchObject({ ran: "tsx", code: 0 });
    expect(afterUpdate.reason).toBe("node_modules/.package-lock.json is newer than the bundle");
    await build();
    expect((await launch(["--version"])).ran).toBe("bundle");
  });

  it("runs tsx when there is no bundle", async () => {
    const entry = project("dist", "cli", "spark.mjs");
    await rename(entry, `${entry}.away`);
    try {
      const launched = await launch(["--version"]);
      const { version } = JSON.parse(await readFile(project("package.json"), "utf8")) as {
        version: string;
      };
      expect(launched).toMatchObject({ ran: "tsx", code: 0, stdout: `${version}\n` });
      expect(launched.reason).toMatch(/^no bundle/);
    } finally {
      await rename(`${entry}.away`, entry);
    }
  });

  it("runs an installed package's bundle whatever its files' times (npm unpacks src/ after dist/)", async () => {
    // What npm leaves: no build script (not in package.json's files), sources unpacked last.
    const script = project("scripts", "build-cli.ts");
    await rename(script, `${script}.away`);
    const source = project("src", "cli", "main.ts");
    await utimes(source, new Date(), new Date());
    try {
      expect((await launch(["--version"])).ran).toBe("bundle");
    } finally {
      await rename(`${script}.away`, script);
    }
    // The same times in a checkout: the source counts as edited.
    expect((await launch(["--version"])).reason).toBe("src/cli/main.ts is newer than the bundle");
  });
});

/** Ids, paths named by them, and durations. */
function varies(key: string): boolean {
  return /(^id|Id|Path|Ms)$/.test(key) || key === "timings";
}
