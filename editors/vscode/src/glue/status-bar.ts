// The status-bar item: the completion model, the last completion's latency, whether completions
// are on, and what went wrong; re-rendered whenever one of them or a setting changes.
import * as vscode from "vscode";
import { statusText, type StatusState } from "../core/status-text.ts";
import type { SparkSettings } from "./settings.ts";

export class SparkStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  private answeringModel: string | undefined;
  private latencyMs: number | undefined;
  private problem: string | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly settings: SparkSettings) {
    this.item.name = "Spark";
    this.item.command = "spark.toggleCompletions";
    this.subscription = settings.onDidChange(() => {
      // A new server, model or key: what was measured or failed before no longer applies.
      this.problem = undefined;
      this.render();
    });
    this.render();
    this.item.show();
  }

  showCompletion(model: string | undefined, latencyMs: number): void {
    this.answeringModel = model ?? this.answeringModel;
    this.latencyMs = latencyMs;
    this.problem = undefined;
    this.render();
  }

  /** The server named its models: with exactly one, that one answers completions. */
  showServerModels(models: readonly string[]): void {
    if (this.answeringModel === undefined && models.length === 1) this.answeringModel = models[0];
    this.render();
  }

  showProblem(message: string): void {
    this.problem = message;
    this.render();
  }

  private render(): void {
    const state: StatusState = {
      enabled: this.settings.completionsEnabled,
      configuredModel: this.settings.completionModel,
      answeringModel: this.answeringModel,
      latencyMs: this.latencyMs,
      problem: this.problem,
      serverUrl: this.settings.serverUrl,
    };
    const { text, tooltip } = statusText(state);
    this.item.text = text;
    this.item.tooltip = tooltip;
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
