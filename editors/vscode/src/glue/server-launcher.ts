// Starts `spark serve` in a terminal on the configured port, with a command that works on this
// machine (see core/serve-command.ts), and never while a server already answers there.
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import * as vscode from "vscode";
import { findServeCommand } from "../core/serve-command.ts";
import { probeServer } from "../core/server-probe.ts";
import { buildRepository } from "./build-info.ts";
import type { SparkSettings } from "./settings.ts";

export class ServerLauncher {
  private terminal: vscode.Terminal | undefined;
  private readonly started = new vscode.EventEmitter<void>();
  /** A server was started: the next request may go out at once. */
  readonly onDidStart = this.started.event;

  constructor(private readonly settings: SparkSettings) {}

  async start(): Promise<void> {
    const url = this.settings.serverUrl;
    const probe = await probeServer(this.settings.server());
    if (probe.state !== "unreachable") {
      const note =
        probe.state === "unauthorized"
          ? ' It refused the API key: set it with "Spark: Set API Key".'
          : probe.state === "error"
            ? ` It answered HTTP ${probe.status}.`
            : "";
      void vscode.window.showInformationMessage(
        `A server already answers at ${url}; Spark did not start another.${note}`,
      );
      return;
    }
    const found = findServeCommand({
      configured: this.settings.serveCommand,
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map(
        (folder) => folder.uri.fsPath,
      ),
      buildRepository,
      pathDirectories: (process.env.PATH ?? "").split(path.delimiter).filter(Boolean),
      nodeCommand: nodeCommand(),
      isFile,
      readText,
    });
    if (found === undefined) {
      const choice = await vscode.window.showErrorMessage(
        "Spark cannot find spark serve on this machine: `spark` is not on PATH and no Spark clone " +
          "is known. Install it (`npm install -g <your clone>`), or set spark.serveCommand to the " +
          "command that starts it.",
        "Open Settings",
      );
      if (choice === "Open Settings")
        await vscode.commands.executeCommand("workbench.action.openSettings", "spark.serveCommand");
      return;
    }
    const parsed = new URL(url);
    const port = parsed.port || (parsed.protocol === "https:" ? "443" : "80");
    if (this.terminal === undefined || this.terminal.exitStatus !== undefined)
      this.terminal = vscode.window.createTerminal({ name: "spark serve" });
    this.terminal.show(true);
    this.terminal.sendText(`${found.command} --port ${port}`);
    this.started.fire();
  }
}

/** "node" when it is on PATH; else this extension host's own Node (not VS Code's Electron). */
function nodeCommand(): string | undefined {
  const directories = (process.env.PATH ?? "").split(path.delimiter).filter(Boolean);
  if (directories.some((directory) => isFile(path.join(directory, "node")))) return "node";
  return process.versions.electron === undefined ? process.execPath : undefined;
}

function isFile(file: string): boolean {
  try {
    return existsSync(file) && statSync(file).isFile();
  } catch {
    return false;
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
