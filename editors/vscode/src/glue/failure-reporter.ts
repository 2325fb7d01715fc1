// Says what failed and offers what fixes it: no server → "Start spark serve", a refused key →
// "Set API Key". Background failures (ghost text) speak once per cause and server URL until a
// request there works again; a failure of something the user asked for always speaks.
import * as vscode from "vscode";
import { FailureNotices, type FailureCause } from "../core/failure-notices.ts";
import { SparkClientError } from "../core/spark-client-error.ts";
import type { ServerLauncher } from "./server-launcher.ts";
import type { SparkSettings } from "./settings.ts";

const START_SERVER = "Start spark serve";
const SET_KEY = "Set API Key";

export class FailureReporter {
  private readonly notices = new FailureNotices();

  constructor(
    private readonly settings: SparkSettings,
    private readonly launcher: ServerLauncher,
  ) {}

  /** A request nobody asked for failed (ghost text, the startup check). */
  background(error: unknown): void {
    const cause = causeOf(error);
    if (cause === undefined || !this.notices.shouldNotify(cause, this.settings.serverUrl)) return;
    this.notify(cause, messageOf(error));
  }

  /**
   * A request the user made failed (quick edit, Ask): always say so. `shownElsewhere`: the
   * failure is already on screen (the Ask panel), so only a failure with an action speaks.
   */
  explicit(error: unknown, what: string, options: { shownElsewhere?: boolean } = {}): void {
    const cause = causeOf(error);
    if (cause !== undefined) {
      this.notices.shouldNotify(cause, this.settings.serverUrl);
      this.notify(cause, `${what}: ${messageOf(error)}`);
      return;
    }
    if (options.shownElsewhere !== true)
      void vscode.window.showErrorMessage(`${what}: ${messageOf(error)}`);
  }

  /** A request to the configured server worked. */
  recovered(): void {
    this.notices.recovered(this.settings.serverUrl);
  }

  /** Reports a cause found without a request (the startup probe). */
  backgroundCause(cause: FailureCause): void {
    if (!this.notices.shouldNotify(cause, this.settings.serverUrl)) return;
    this.notify(cause, defaultMessage(cause, this.settings.serverUrl));
  }

  private notify(cause: FailureCause, message: string): void {
    const action = cause === "unauthorized" ? SET_KEY : START_SERVER;
    void vscode.window.showWarningMessage(message, action).then(async (choice) => {
      if (choice === SET_KEY) await vscode.commands.executeCommand("spark.setApiKey");
      if (choice === START_SERVER) await this.launcher.start();
    });
  }
}

function causeOf(error: unknown): FailureCause | undefined {
  if (!(error instanceof SparkClientError)) return undefined;
  return error.code === "server_unreachable" || error.code === "unauthorized"
    ? error.code
    : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function defaultMessage(cause: FailureCause, url: string): string {
  return cause === "unauthorized"
    ? `${url} refused the API key (401). Set it with "Spark: Set API Key".`
    : `No Spark server answers at ${url}.`;
}
