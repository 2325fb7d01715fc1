// The hooks every code-server test file shares: the worker's code-server and chromium (started
// together in its first file's beforeAll and kept for its next: see kept-editor.ts), a new window
// per test (its own `spark serve`, workspace folder, user settings and browser context),
// screenshotted and closed after it; with `shareWindows`, a test takes the window the test before
// left where it can (see shared-window.ts). Keeping code-server instead of starting one per test
// saves its install and start (~5 s a test on this machine); starting each test's `spark serve`
// while the test before runs saves its start (~9 s a test, see spark-serve-pool.ts).
// SPARK_EDITOR_TIMINGS=1 prints where the file's time went.
import type { Browser, Page } from "playwright-core";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { packageExtension, type CodeServer } from "./code-server.ts";
import type { BuiltInExtensionChoice } from "./disabled-extensions.ts";
import { keptBrowser, keptCodeServerWith } from "./kept-editor.ts";
import { ServerSwitch } from "./server-switch.ts";
import { SharedWindow, sharingKey } from "./shared-window.ts";
import { useSparkServePool } from "./spark-serve-pool.ts";
import { useSuiteTimings } from "./suite-timings.ts";
import {
  openWorkbench,
  screenshotPages,
  type Workbench,
  type WorkbenchOptions,
} from "./workbench.ts";

export interface EditorSuite {
  /** Opens this test's window; it is closed after the test. */
  open(options: WorkbenchOptions): Promise<Workbench>;
  /** The window the running test opened, if any. */
  readonly workbench: Workbench | undefined;
  /** Runs after this test's window and server have closed (e.g. to stop a proxy in front of it). */
  defer(cleanup: () => Promise<void>): void;
}

export interface EditorSuiteOptions extends BuiltInExtensionChoice {
  /**
   * A test takes the window the test before left when it asks for the same user settings (see
   * shared-window.ts).
   */
  shareWindows?: boolean;
  /**
   * With `shareWindows`: clears what a test left in a view before the next test takes the window,
   * called once the window's connections to the test's server are ended (see shared-window.ts).
   */
  resetView?: (page: Page) => Promise<void>;
}

/**
 * Registers the file's hooks; call it at the top of the file's describe block. `typescript` turns
 * on the built-in extensions for it (see disabled-extensions.ts).
 */
export function useEditorSuite({
  shareWindows = false,
  resetView,
  ...extensions
}: EditorSuiteOptions = {}): EditorSuite {
  let browser: Browser | undefined;
  let codeServer: CodeServer | undefined;
  let workbench: Workbench | undefined;
  let shared: SharedWindow | undefined;
  let serverSwitch: ServerSwitch | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  let file = "";
  let stepsStartedAt: number | undefined;
  // Registered first, so it prints after the other afterAll hooks have run.
  const timings = useSuiteTimings(() => file);
  const servers = useSparkServePool({ windowFolders: shareWindows });

  beforeAll(async () => {
    file = path.basename(expect.getState().testPath ?? "");
    await timings.time("setup: package the extension", packageExtension);
    [browser, codeServer] = await Promise.all([
      timings.time("setup: chromium", keptBrowser),
      timings.time("setup: code-server", () => keptCodeServerWith(extensions)),
    ]);
  }, 180_000);
  afterAll(async () => {
    await timings.time("teardown: shared window", async () => shared?.close());
    shared = undefined;
    await serverSwitch?.close();
  });
  beforeEach((context) => {
    timings.enterTest(context.task.name);
  });
  afterEach(async (context) => {
    if (stepsStartedAt !== undefined) timings.record("test: its own steps", stepsStartedAt);
    stepsStartedAt = undefined;
    if (workbench !== undefined) {
      const { context: browserContext } = workbench;
      await timings.time("close: screenshot", () =>
        screenshotPages(browserContext, context.task.name),
      );
      // A window kept only for a test that follows, and only after this one passed.
      const keep = context.task.result?.state !== "fail" && servers.laterTestRuns();
      const window = workbench.page === shared?.first.page ? shared : undefined;
      if (window === undefined) await workbench.close();
      else if (
        !keep ||
        !(await timings.time("close: reset the window", () => window.reset(resetView)))
      ) {
        await window.close();
        shared = undefined;
      }
      workbench = undefined;
    }
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  return {
    async open(options) {
      if (browser === undefined || codeServer === undefined)
        throw new Error("the editor suite's beforeAll did not finish");
      const setup = { timings, servers };
      const key = shareWindows ? sharingKey(options) : undefined;
      if (key !== undefined && shared?.accepts(key, options) === true)
        workbench = await shared.take(options, setup);
      else {
        await shared?.close();
        shared = undefined;
        if (key === undefined) workbench = await openWorkbench(browser, codeServer, options, setup);
        else {
          serverSwitch ??= await ServerSwitch.start();
          shared = await SharedWindow.open(key, browser, codeServer, serverSwitch, options, {
            ...setup,
            folder: servers.windowFolder(),
          });
          workbench = shared.first;
        }
      }
      servers.prepareNext();
      stepsStartedAt = performance.now();
      return workbench;
    },
    get workbench() {
      return workbench;
    },
    defer(cleanup) {
      cleanups.push(cleanup);
    },
  };
}
