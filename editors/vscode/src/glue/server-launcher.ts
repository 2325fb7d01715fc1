// When no `spark serve` answers, offer (once per window) to start one in a terminal on the
// configured port; the user sees its output and stops it like any terminal command.
import * as vscode from "vscode";
import type { SparkSettings } from "./settings.ts";

export class ServerLauncher {
  private offered = false;
  private terminal: vscode.Terminal | undefined;

  constructor(private readonly settings: SparkSettings) {}

  /** True when the server's /healthz answers. */
  async isUp(): Promise<boolean> {
    try {
      const response = await fetch(`${this.settings.serverUrl}/healthz`, {
        signal: AbortSignal.timeout(2_000),
      });
      return response.ok;
    } catch {
      return false;
    }
  }

  async offerOnce(reason: string): Promise<void> {
    if (this.offered) return;
    this.offered = true;
    const choice = await vscode.window.showWarningMessage(
      `${reason} Start \`${this.settings.serveCommand}\` in a terminal?`,
      "Start spark serve",
    );
    if (choice === "Start spark serve") this.start();
  }

  start(): void {
    const url = new URL(this.settings.serverUrl);
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    if (this.terminal === undefined || this.terminal.exitStatus !== undefined) {
      this.terminal = vscode.window.createTerminal({ name: "spark serve" });
    }
    this.terminal.show(true);
    this.terminal.sendText(`${this.settings.serveCommand} --port ${port}`);
    this.offered = false;
  }
}
