// The code-server and chromium an editor test file runs on, kept for the next file of the same
// vitest worker: each worker runs its files one after another, so no two files use them at once. A
// file's windows each still get their own browser context, workspace folder, user settings and
// `spark serve`. Starting both for every file cost ~4 s of CPU a file (five files on two workers:
// 180 → 168 core-seconds, 104 → 94 s, two runs each). A file asking for other built-in extensions
// gets a new code-server. The kept code-server's process group is killed when the worker ends (see
// code-server.ts), and chromium ends with the pipe playwright drives it through.
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../web/support/chromium.ts";
import { startCodeServer, type CodeServer } from "./code-server.ts";
import {
  disabledExtensionsEnvironment,
  type BuiltInExtensionChoice,
} from "./disabled-extensions.ts";

interface KeptCodeServer {
  /** What tells code-servers apart: the environment that leaves its built-in extensions out. */
  environment: string;
  server: CodeServer;
}

// Module state lasts as long as the worker: the editor project runs without isolation. A worker
// runs one file at a time, so no two calls below overlap.
let keptCodeServer: KeptCodeServer | undefined;
let launchedBrowser: Promise<Browser> | undefined;

/** This worker's code-server with the built-in extensions `extensions` chooses. */
export async function keptCodeServerWith(extensions: BuiltInExtensionChoice): Promise<CodeServer> {
  const environment = JSON.stringify(disabledExtensionsEnvironment(extensions));
  const previous = keptCodeServer;
  if (previous?.environment === environment && previous.server.running()) return previous.server;
  keptCodeServer = undefined;
  await previous?.server.close();
  const server = await startCodeServer(extensions);
  keptCodeServer = { environment, server };
  return server;
}

/** This worker's chromium: Debian's, without a profile of its own (each window gets a new context). */
export async function keptBrowser(): Promise<Browser> {
  const launched = (launchedBrowser ??= launchBrowser());
  const browser = await launched.catch(() => undefined);
  if (browser?.isConnected() === true) return browser;
  launchedBrowser = launchBrowser();
  return launchedBrowser;
}

function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
}
