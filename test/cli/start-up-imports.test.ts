// What each command loads at start-up, read from the ESM loader of the real `spark` process: help
// and --version load only the command line, and an agent turn with a scripted model loads neither
// node-llama-cpp (an embedded engine's) nor the MCP SDK (a configured server's). Every spawn of the
// CLI (users, and the test suite hundreds of times) paid ~1 s for them before.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSpark, type RunResult } from "./support/run-spark-cli.ts";
import { RECORDER_OPTION } from "./support/loaded-modules-recorder.ts";

const SOURCE = fileURLToPath(new URL("../../src/", import.meta.url));
const SPARK = fileURLToPath(new URL("../../bin/spark.js", import.meta.url));

/** Spark's own files (relative to src/) and the packages the command loaded, in load order. */
interface Loaded {
  code: number;
  stderr: string;
  sparkFiles: string[];
  packages: Set<string>;
}

describe("start-up imports", () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(path.join(tmpdir(), "spark-start-up-"));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  /** `spark <args>` run to its end, or by `run` (a server, stopped once it has started). */
  async function loadedBy(
    args: string[],
    run: (environment: Record<string, string>) => Promise<RunResult> = (environment) =>
      runSpark(args, environment, home),
  ): Promise<Loaded> {
    const record = path.join(home, `loaded-${args.join("-").replace(/\W+/g, "_")}.txt`);
    const result = await run({
      // The TypeScript's own module graph (test/cli/cli-bundle.test.ts holds the bundle to it).
      SPARK_NO_BUNDLE: "1",
      SPARK_HOME: home,
      SPARK_TEST_LOADED_MODULES: record,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} ${RECORDER_OPTION}`.trim(),
    });
    const urls = (await readFile(record, "utf8")).split("\n").filter((url) => url !== "");
    const files = urls.flatMap((url) => (url.startsWith("file:") ? [fileURLToPath(url)] : []));
    const packages = files.flatMap((file) => {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
      return match === null ? [] : [match[1] as string];
    });
    return {
      code: result.code,
      stderr: result.stderr,
      sparkFiles: files
        .filter((file) => file.startsWith(SOURCE))
        .map((file) => path.relative(SOURCE, file)),
      packages: new Set(packages),
    };
  }

  it.each(["--version", "--help", "exec --help", "serve --help"])(
    "spark %s loads the command line and nothing a command runs with",
    async (command) => {
      const loaded = await loadedBy(command.split(" "));
      expect(loaded.code, loaded.stderr).toBe(0);
      // The recorder saw the CLI load at all.
      expect(loaded.sparkFiles).toContain("cli/main.ts");
      const outsideTheCommandLine = loaded.sparkFiles.filter(
        (file) =>
          !file.startsWith("cli/commands/") &&
          ![
            "cli/main.ts",
            "cli/exit-codes.ts",
            "protocol/spark-error.ts",
            "tui/type-ahead.ts",
          ].includes(file),
      );
      expect(outsideTheCommandLine).toEqual([]);
      expect([...loaded.packages].sort()).toEqual(["commander", "esbuild", "tsx"]);
    },
  );

  it("spark exec with a scripted model loads the agent but no llama.cpp and no MCP SDK", async () => {
    const script = path.join(home, "done.jsonl");
    await writeFile(script, `${JSON.stringify({ text: "Done." })}\n`);
    const loaded = await loadedBy(["exec", "--json", "--model", `script:${script}`, "Say hi"]);
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(loaded.sparkFiles).toContain("agent/agent-session.ts");
    expect(loaded.packages.has("node-llama-cpp")).toBe(false);
    // undici: only a model download (or an OpenAI-compatible engine) needs it.
    expect(loaded.packages.has("undici")).toBe(false);
    expect(loaded.packages.has("@modelcontextprotocol/sdk")).toBe(false);
    expect(loaded.packages.has("ink")).toBe(false);
  });

  it("spark models with no embedded model configured loads no llama.cpp", async () => {
    const loaded = await loadedBy(["models"]);
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(loaded.sparkFiles).toContain("cli/actions/models-action.ts");
    expect(loaded.packages.has("node-llama-cpp")).toBe(false);
  });

  it("spark serve with a scripted model and its own memory loads no ioredis, llama.cpp or MCP SDK", async () => {
    const script = path.join(home, "serve.jsonl");
    await writeFile(script, `${JSON.stringify({ text: "Done." })}\n`);
    const args = ["serve", "--port", "0", "--model", `script:${script}`];
    const loaded = await loadedBy(args, (environment) => serveUntilListening(args, environment));
    expect(loaded.stderr).toContain("spark serve listening on");
    expect(loaded.sparkFiles).toContain("gateway/gateway-server.ts");
    expect(loaded.packages.has("ioredis")).toBe(false);
    expect(loaded.packages.has("undici")).toBe(false);
    expect(loaded.packages.has("node-llama-cpp")).toBe(false);
    expect(loaded.packages.has("@modelcontextprotocol/sdk")).toBe(false);
  });

  /** `spark serve` until its banner is out: every module it started with has loaded by then. */
  function serveUntilListening(
    args: string[],
    environment: Record<string, string>,
  ): Promise<RunResult> {
    const child = spawn(process.execPath, [SPARK, ...args], {
      cwd: home,
      env: { ...process.env, ...environment },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      // Killed, not interrupted: its signal handlers may not be in place yet.
      if (stderr.includes("Command sandbox:")) child.kill("SIGKILL");
    });
    return new Promise((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (code) => resolve({ code: code ?? 1, stdout: "", stderr }));
    });
  }
});
