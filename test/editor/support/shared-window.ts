// A code-server window kept from one test to the next, for files whose tests only make requests
// that open their own connections (quick edit, inline review) and leave no state in the extension
// that a later test could trip on: a window costs ~8.5 s of CPU to open here, a test's reuse of
// one under 1 s. Each test still gets its own `spark serve` (its own scripted turns), reached
// through a ServerSwitch the window's settings name; its files are written into the window's
// folder. A test takes the window only when it would open one with the same user settings and
// none of its files' names were used in it before; after a test that failed, or one that left a
// file unsaved, the next test opens a new window.
import type { Browser } from "playwright-core";
import type { SparkServeProcess } from "../../web/support/spark-serve-process.ts";
import type { CodeServer } from "./code-server.ts";
import { ServerSwitch } from "./server-switch.ts";
import {
  openWorkbench,
  runCommand,
  type Workbench,
  type WorkbenchOptions,
  type WorkbenchSetup,
} from "./workbench.ts";

/**
 * What a window has to match for a test to take it: its user settings. Undefined for a test that
 * cannot share one (its own config.toml or server address: keys, proxies, a server that is down).
 */
export function sharingKey(options: WorkbenchOptions): string | undefined {
  if (options.configToml !== undefined || options.serverUrl !== undefined) return undefined;
  return JSON.stringify({ settings: options.settings ?? {}, completions: options.completions });
}

export class SharedWindow {
  /** The servers the window's tests took after the first, which owns the window's folder. */
  private readonly laterServers: SparkServeProcess[] = [];
  /** The files the window's tests wrote into its folder. */
  private readonly written = new Set<string>();

  private constructor(
    readonly key: string,
    /** The first test's workbench: its server's workspace is the window's folder. */
    readonly first: Workbench,
    private readonly serverSwitch: ServerSwitch,
    files: readonly string[],
  ) {
    for (const name of files) this.written.add(name);
  }

  /**
   * Whether a test opening a window with `key` and these files can take this one: the same user
   * settings, and none of its files written before (an editor could still show an earlier
   * test's content for a file rewritten on disk under the same name).
   */
  accepts(key: string, options: WorkbenchOptions): boolean {
    return (
      key === this.key && Object.keys(options.files ?? {}).every((name) => !this.written.has(name))
    );
  }

  /** Opens a window whose `spark.serverUrl` is `serverSwitch`, switched to the first test's server. */
  static async open(
    key: string,
    browser: Browser,
    editor: CodeServer,
    serverSwitch: ServerSwitch,
    options: WorkbenchOptions,
    setup: Required<WorkbenchSetup>,
  ): Promise<SharedWindow> {
    const first = await openWorkbench(
      browser,
      editor,
      {
        ...options,
        serverUrl: (server) => {
          serverSwitch.switchTo(server.url);
          return serverSwitch.url;
        },
      },
      setup,
    );
    return new SharedWindow(key, first, serverSwitch, Object.keys(options.files ?? {}));
  }

  /** The next test's workbench in this window: its own server, its files in the window's folder. */
  async take(options: WorkbenchOptions, setup: Required<WorkbenchSetup>): Promise<Workbench> {
    const server = await setup.timings.time("open: spark serve", () =>
      setup.servers.take(options.turns),
    );
    // The window's folder is the first server's workspace.
    for (const [name, content] of Object.entries(options.files ?? {})) {
      this.first.server.workspace.write(name, content);
      this.written.add(name);
    }
    this.serverSwitch.switchTo(server.url);
    // The test before's server is done with (the first one's folder is the window's).
    await Promise.all(this.laterServers.splice(0).map((earlier) => earlier.close()));
    this.laterServers.push(server);
    return { ...this.first, server, close: () => this.close() };
  }

  /**
   * Readies the window for the next test: every editor and notification closed. False when it
   * cannot be (a file left unsaved would ask whether to save it): the window must be closed.
   */
  async reset(): Promise<boolean> {
    const { page } = this.first;
    try {
      if ((await page.locator(".tab.dirty").count()) > 0) return false;
      await runCommand(page, "View: Close All Editors");
      await page.locator(".tab").first().waitFor({ state: "detached", timeout: 10_000 });
      await runCommand(page, "Notifications: Clear All Notifications");
      await page
        .locator(".notification-toast")
        .first()
        .waitFor({ state: "detached", timeout: 10_000 });
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.first.close();
    await Promise.all(this.laterServers.splice(0).map((server) => server.close()));
  }
}
