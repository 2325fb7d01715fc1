// The extension's settings (spark.*) and the API key, which lives in VS Code's secret storage.
// onDidChange fires for both, so the status bar, the backoff and the Ask view follow them.
import * as vscode from "vscode";
import type { SparkServer } from "../core/spark-http.ts";

const API_KEY_SECRET = "spark.apiKey";

export class SparkSettings implements vscode.Disposable {
  private apiKey: string | undefined;
  private readonly changes = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changes.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subscription = vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("spark")) this.changes.fire();
    });
  }

  async load(): Promise<void> {
    this.apiKey = await this.secrets.get(API_KEY_SECRET);
  }

  async setApiKey(key: string): Promise<void> {
    if (key === "") await this.secrets.delete(API_KEY_SECRET);
    else await this.secrets.store(API_KEY_SECRET, key);
    this.apiKey = key === "" ? undefined : key;
    this.changes.fire();
  }

  get serverUrl(): string {
    return configuration().get<string>("serverUrl", "http://127.0.0.1:7777").replace(/\/+$/, "");
  }

  server(): SparkServer {
    return { baseUrl: this.serverUrl, apiKey: this.apiKey };
  }

  get key(): string | undefined {
    return this.apiKey;
  }

  get completionModel(): string | undefined {
    return configuration().get<string>("completionModel") || undefined;
  }

  get editModel(): string | undefined {
    return configuration().get<string>("editModel") || undefined;
  }

  /** How a finished quick edit is reviewed: in the file's editor, or in a diff tab. */
  get editReview(): "inline" | "diff" {
    return configuration().get<string>("editReview", "inline") === "diff" ? "diff" : "inline";
  }

  get agentModel(): string | undefined {
    return configuration().get<string>("agentModel") || undefined;
  }

  /** The command that starts spark serve; "" means the launcher finds one. */
  get serveCommand(): string {
    return configuration().get<string>("serveCommand", "");
  }

  get completionsEnabled(): boolean {
    return configuration().get<boolean>("enableCompletions", true);
  }

  completionsEnabledFor(languageId: string): boolean {
    if (!this.completionsEnabled) return false;
    const languages = configuration().get<Record<string, boolean>>("enabledLanguages", {});
    return languages[languageId] ?? languages["*"] ?? true;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changes.dispose();
  }
}

function configuration(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration("spark");
}
