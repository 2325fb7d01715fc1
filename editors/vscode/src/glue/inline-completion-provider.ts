// Ghost text: converts VS Code's request into the core engine's context and its answer into an
// inline completion item. A cancelled token aborts the wait for that keystroke.
import * as vscode from "vscode";
import type { InlineCompletionEngine } from "../core/inline-completion-engine.ts";
import type { SparkSettings } from "./settings.ts";

export class SparkInlineCompletionProvider implements vscode.InlineCompletionItemProvider {
  constructor(
    private readonly engine: InlineCompletionEngine,
    private readonly settings: SparkSettings,
  ) {}

  async provideInlineCompletionItems(
    document: vscode.TextDocument,
    position: vscode.Position,
    _context: vscode.InlineCompletionContext,
    token: vscode.CancellationToken,
  ): Promise<vscode.InlineCompletionItem[]> {
    if (!this.settings.completionsEnabledFor(document.languageId)) return [];
    const controller = new AbortController();
    const subscription = token.onCancellationRequested(() => controller.abort());
    try {
      const text = await this.engine.complete(
        {
          text: document.getText(),
          offset: document.offsetAt(position),
          documentId: document.uri.toString(),
          languageId: document.languageId,
        },
        controller.signal,
      );
      if (text === undefined || token.isCancellationRequested) return [];
      return [new vscode.InlineCompletionItem(text, new vscode.Range(position, position))];
    } finally {
      subscription.dispose();
    }
  }
}
