// Ghost text: converts VS Code's request into the core engine's context and its answer into an
// inline completion item. A cancelled token aborts the wait for that keystroke. It notes when each
// document last changed, so the engine's pause runs from the keystroke (VS Code already waited
// 50 ms before asking, and waiting the whole pause again made ghost text ~25 ms later), and how
// long before that the previous change came (inside a burst of typing the pause is longer).
// The cursor an edit leaves starts the engine at once (VS Code asks ~50 ms later, when it has
// waited its own debounce): its question then joins a request already under way.
import * as vscode from "vscode";
import type { CompletionContext } from "../core/completion-request.ts";
import type { InlineCompletionEngine } from "../core/inline-completion-engine.ts";
import { EDIT_SCHEME } from "./edit-documents.ts";
import type { SparkSettings } from "./settings.ts";

export class SparkInlineCompletionProvider
  implements vscode.InlineCompletionItemProvider, vscode.Disposable
{
  private readonly changes = new Map<string, { at: number; gapMs: number | undefined }>();
  /** The document version each document was last started for: a cursor move alone asks nothing. */
  private readonly started = new Map<string, number>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly engine: InlineCompletionEngine,
    private readonly settings: SparkSettings,
  ) {
    this.subscriptions = [
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length === 0) return;
        const key = event.document.uri.toString();
        const now = performance.now();
        const previous = this.changes.get(key);
        this.changes.set(key, { at: now, gapMs: previous && now - previous.at });
      }),
      // After the document change: the selection is where the edit left the cursor.
      vscode.window.onDidChangeTextEditorSelection((event) => this.prefetch(event)),
      vscode.workspace.onDidCloseTextDocument((document) => {
        this.changes.delete(document.uri.toString());
        this.started.delete(document.uri.toString());
      }),
    ];
  }

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
      const ghost = await this.engine.suggest(
        this.contextAt(document, position),
        controller.signal,
      );
      if (ghost === undefined || token.isCancellationRequested) return [];
      // A range over the closers auto-close put after the cursor: accepting replaces them.
      const end = position.translate(0, ghost.replaceLength);
      return [new vscode.InlineCompletionItem(ghost.text, new vscode.Range(position, end))];
    } finally {
      subscription.dispose();
    }
  }

  private prefetch(event: vscode.TextEditorSelectionChangeEvent): void {
    const document = event.textEditor.document;
    const documentId = document.uri.toString();
    const selection = event.selections[0];
    if (event.selections.length !== 1 || selection === undefined || !selection.isEmpty) return;
    if (event.textEditor !== vscode.window.activeTextEditor) return;
    // A proposal streaming into Spark's own documents is not typing.
    if (document.uri.scheme === EDIT_SCHEME) return;
    if (this.started.get(documentId) === document.version || !this.changes.has(documentId)) return;
    if (!this.settings.completionsEnabledFor(document.languageId)) return;
    // Where VS Code shows no inline suggestions it never asks: nothing to start.
    const editorSettings = vscode.workspace.getConfiguration("editor", document);
    if (!editorSettings.get<boolean>("inlineSuggest.enabled", true)) return;
    this.started.set(documentId, document.version);
    this.engine.prefetch(this.contextAt(document, selection.active));
  }

  private contextAt(document: vscode.TextDocument, position: vscode.Position): CompletionContext {
    const documentId = document.uri.toString();
    const change = this.changes.get(documentId);
    return {
      text: document.getText(),
      offset: document.offsetAt(position),
      documentId,
      languageId: document.languageId,
      ...(change === undefined ? {} : { changedAt: change.at }),
      ...(change?.gapMs === undefined ? {} : { typingGapMs: change.gapMs }),
    };
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}
