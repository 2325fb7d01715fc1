// A code-server window kept from one test to the next: a window costs ~8.5 s of CPU to open here, a
// test's reuse of one under 1 s. Each test still gets its own `spark serve` (its own scripted
// turns), reached through a ServerSwitch the window's settings name; its files are written into the
// window's folder, which the pool's servers all run agent sessions in (spark-serve-pool.ts). A test
// takes the window only when it would open one with the same user settings, no test before changed
// them, and none of its files' names were used in it before; after a test that failed, or one that
// left a file unsaved, the next test opens a new window. Between tests every editor and
// notification is closed; a file whose tests leave state in a view (the Ask view's conversation and
// WebSocket) passes a `resetView` that clears it once the window's connections are ended.
import type { Browser, Page } from "playwright-core";
import type { SparkServeProcess } from "../../web/support/spark-serve-process.ts";
import type { CodeServer } from "./code-server.ts";
import { ServerSwitch } from "./server-switch.ts";
import type { WindowFolder } from "./spark-serve-pool.ts";
import {
  openWorkbench,
  runCommand,
  type Workbench,
  type WorkbenchOptions,
  type WorkbenchSetup,
} from "./workbench.ts";

/**
 * What a window has to match for a test to take it: its user settings. Undefined for a test that
 * cannot share one: its own server address (`serverUrl`), which its messages quote. A test's own
 * config.toml (API keys) is its server's, and a proxy or a hanging server it names as `forwardTo`
 * is reached through the switch: their windows can be shared.
 */
export function sharingKey(options: WorkbenchOptions): string | undefined {
  if (options.serverUrl !== undefined) return undefined;
  return JSON.stringify({ settings: options.settings ?? {}, completions: options.completions });
}

/** Where a window's phases are timed and its servers come from. */
type ServerSetup = Required<Pick<WorkbenchSetup, "timings" | "servers">>;

export class SharedWindow {
  /** The servers the window's tests took after the first. */
  private readonly laterServers: SparkServeProcess[] = [];
  /** The files the window's tests wrote into its folder. */
  private readonly written = new Set<string>();
  /** The user settings the window opened with: a test that changed them keeps it to itself. */
  private readonly openedSettings: string;

  private constructor(
    readonly key: string,
    /** The first test's workbench. */
    readonly first: Workbench,
    private readonly folder: WindowFolder,
    private readonly serverSwitch: ServerSwitch,
    files: readonly string[],
  ) {
    for (const name of files) this.written.add(name);
    this.openedSettings = JSON.stringify(first.editor.userSettings());
  }

  /**
   * Whether a test opening a window with `key` and these files can take this one: the same user
   * settings, and none of its files written before (an editor could still show an earlier
   * test's content for a file rewritten on disk under the same name).
   */
  accepts(key: string, options: WorkbenchOptions): boolean {
    return (
      key === this.key &&
      JSON.stringify(this.first.editor.userSettings()) === this.openedSettings &&
      Object.keys(options.files ?? {}).every((name) => !this.written.has(name))
    );
  }

  /**
   * Opens a window on `folder` whose `spark.serverUrl` is `serverSwitch`, switched to the first
   * test's server.
   */
  static async open(
    key: string,
    browser: Browser,
    editor: CodeServer,
    serverSwitch: ServerSwitch,
    options: WorkbenchOptions,
    setup: ServerSetup & { folder: WindowFolder },
  ): Promise<SharedWindow> {
    const first = await openWorkbench(
      browser,
      editor,
      {
        ...options,
        serverUrl: async (server) => {
          serverSwitch.switchTo(await forwardTarget(options, server));
          return serverSwitch.url;
        },
      },
      setup,
    );
    return new SharedWindow(
      key,
      first,
      setup.folder,
      serverSwitch,
      Object.keys(options.files ?? {}),
    );
  }

  /** The next test's workbench in this window: its own server, its files in the window's folder. */
  async take(options: WorkbenchOptions, setup: ServerSetup): Promise<Workbench> {
    const server = await setup.timings.time("open: spark serve", () =>
      setup.servers.take(options.turns, { configToml: options.configToml }),
    );
    for (const [name, content] of Object.entries(options.files ?? {})) {
      this.folder.write(name, content);
      this.written.add(name);
    }
    this.serverSwitch.switchTo(await forwardTarget(options, server));
    // The test before's server is done with (the first one closes with the window).
    await Promise.all(this.laterServers.splice(0).map((earlier) => earlier.close()));
    this.laterServers.push(server);
    return { ...this.first, server, close: () => this.close() };
  }

  /**
   * Readies the window for the next test: every editor and notification closed, and with
   * `resetView`, the window's connections ended (until the next test's `take`) and then its view
   * reset. False when it cannot be (a file left unsaved would ask whether to save it): the window
   * must be closed.
   */
  async reset(resetView?: (page: Page) => Promise<void>): Promise<boolean> {
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
      if (resetView !== undefined) {
        this.serverSwitch.disconnect();
        await resetView(page);
      }
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

/** Where a shared window's switch sends a test's requests: its server, or its `forwardTo`. */
async function forwardTarget(
  options: WorkbenchOptions,
  server: SparkServeProcess,
): Promise<string> {
  return options.forwardTo === undefined ? server.url : await options.forwardTo(server);
}
