// The extension's settings (spark.*) and the API key, which lives in VS Code's secret storage.
import * as vscode from "vscode";
import type { SparkServer } from "../core/spark-http.ts";

const API_KEY_SECRET = "spark.apiKey";

export class SparkSettings {
  private apiKey: string | undefined;

  constructor(private readonly secrets: vscode.SecretStorage) {}

  async load(): Promise<void> {
    this.apiKey = await this.secrets.get(API_KEY_SECRET);
  }

  async setApiKey(key: string): Promise<void> {
    if (key === "") await this.secrets.delete(API_KEY_SECRET);
    else await this.secrets.store(API_KEY_SECRET, key);
    this.apiKey = key === "" ? undefined : key;
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

  get agentModel(): string | undefined {
    return configuration().get<string>("agentModel") || undefined;
  }

  get serveCommand(): string {
    return configuration().get<string>("serveCommand", "spark serve");
  }

  completionsEnabledFor(languageId: string): boolean {
    if (!configuration().get<boolean>("enableCompletions", true)) return false;
    const languages = configuration().get<Record<string, boolean>>("enabledLanguages", {});
    return languages[languageId] ?? languages["*"] ?? true;
  }
}

function configuration(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration("spark");
}
