// The status-bar item: the completion model, the last completion's latency, whether completions
// are on, and what went wrong; re-rendered whenever one of them or a setting changes.
import * as vscode from "vscode";
import { StatusState } from "../core/status-state.ts";
import { statusText } from "../core/status-text.ts";
import type { SparkSettings } from "./settings.ts";

export class SparkStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  private readonly state = new StatusState();
  private readonly subscription: vscode.Disposable;

  constructor(private readonly settings: SparkSettings) {
    this.item.name = "Spark";
    this.item.command = "spark.toggleCompletions";
    let answering = this.answeringIdentity();
    this.subscription = settings.onDidChange(() => {
      // A new server, model or key: what was measured or failed before no longer applies. Other
      // settings (completions toggled off and on) keep it.
      const now = this.answeringIdentity();
      if (now !== answering) this.state.settingsChanged();
      answering = now;
      this.render();
    });
    this.render();
    this.item.show();
  }

  /** What decides who answers completions: the server, the key and the configured model. */
  private answeringIdentity(): string {
    const { serverUrl, key, completionModel } = this.settings;
    return JSON.stringify([serverUrl, key ?? null, completionModel ?? null]);
  }

  showCompletion(model: string | undefined, latencyMs: number): void {
    this.state.completionAnswered(model, latencyMs);
    this.render();
  }

  /** The server answered and named its models: with exactly one, that one answers completions. */
  showServerModels(models: readonly string[]): void {
    this.state.serverAnswered(models);
    this.render();
  }

  showProblem(message: string): void {
    this.state.failed(message);
    this.render();
  }

  private render(): void {
    const { text, tooltip } = statusText({
      ...this.state.current,
      enabled: this.settings.completionsEnabled,
      configuredModel: this.settings.completionModel,
      serverUrl: this.settings.serverUrl,
    });
    this.item.text = text;
    this.item.tooltip = tooltip;
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
