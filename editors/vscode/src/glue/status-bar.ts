// The status-bar item: the completion model and the last measured latency, or what went wrong.
import * as vscode from "vscode";

export class SparkStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);

  constructor() {
    this.item.name = "Spark";
    this.item.command = "spark.toggleCompletions";
    this.show("Spark", "Spark inline completions (click to toggle)");
    this.item.show();
  }

  showLatency(model: string | undefined, latencyMs: number): void {
    this.show(
      `$(sparkle) ${model ?? "Spark"} ${Math.round(latencyMs)} ms`,
      "Spark: last completion, request to first token",
    );
  }

  showProblem(message: string): void {
    this.show("$(warning) Spark", message);
  }

  showDisabled(): void {
    this.show("$(circle-slash) Spark", "Spark inline completions are off (click to turn on)");
  }

  private show(text: string, tooltip: string): void {
    this.item.text = text;
    this.item.tooltip = tooltip;
  }

  dispose(): void {
    this.item.dispose();
  }
}
