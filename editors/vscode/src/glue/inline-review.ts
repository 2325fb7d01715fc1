// The proposal reviewed in the file's own editor: its changed lines are written next to the lines
// they replace, deleted ones struck through on red, added ones on green, each hunk with Accept and
// Reject code lenses; Ctrl+Y / Ctrl+N answer the hunk under the cursor and Alt+F5 / Shift+Alt+F5
// move between hunks (VS Code's own keys for a chat edit's changes), Ctrl+Enter / Ctrl+Backspace
// answer every hunk, all only while that editor has the focus. Dismissing the notice, closing the file or saving it by hand rejects what is pending: the
// file on disk never holds both versions. One review at a time.
import * as vscode from "vscode";
import {
  acceptDeletion,
  layoutReview,
  PendingHunks,
  rejectDeletion,
  type Deletion,
  type ReviewHunk,
} from "../core/inline-review.ts";

interface Review {
  uri: vscode.Uri;
  hunks: PendingHunks;
  /** Takes the notice away once every hunk is answered. */
  settled: () => void;
}

const REVIEW_CONTEXT = "spark.inlineReview";
/** The cursor is on a pending hunk's lines: the keys for that one hunk apply. */
const HUNK_CONTEXT = "spark.inlineReviewHunk";

export class InlineReview implements vscode.Disposable, vscode.CodeLensProvider {
  private review: Review | undefined;
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private readonly removedLines = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("diffEditor.removedLineBackground"),
    textDecoration: "line-through",
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.deletedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly addedLines = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("diffEditor.insertedLineBackground"),
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.addedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly subscriptions: vscode.Disposable[];
  private cursorInHunk = false;

  constructor() {
    this.subscriptions = [
      this.lensesChanged,
      this.removedLines,
      this.addedLines,
      vscode.languages.registerCodeLensProvider([{ scheme: "file" }, { scheme: "untitled" }], this),
      vscode.workspace.onDidChangeTextDocument((event) => {
        const review = this.review;
        if (review === undefined || !sameUri(event.document.uri, review.uri)) return;
        review.hunks.apply(event.contentChanges);
        this.refresh();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.refresh()),
      vscode.window.onDidChangeTextEditorSelection(() => this.updateHunkContext()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.refresh()),
      // A save by hand writes the file without the pending hunks' added lines.
      vscode.workspace.onWillSaveTextDocument((event) => {
        const review = this.review;
        if (review === undefined || !sameUri(event.document.uri, review.uri)) return;
        if (event.reason !== vscode.TextDocumentSaveReason.Manual) return;
        const document = event.document;
        const edits = review.hunks
          .takeAll()
          .map((hunk) => vscode.TextEdit.delete(rangeOf(document, rejectDeletion(hunk))));
        event.waitUntil(Promise.resolve(edits));
        this.refresh();
      }),
      // Closing the file's last tab dismisses the review.
      vscode.window.tabGroups.onDidChangeTabs((event) => {
        const review = this.review;
        if (review === undefined || !event.closed.some((tab) => showsFile(tab, review.uri))) return;
        const stillOpen = vscode.window.tabGroups.all.some((group) =>
          group.tabs.some((tab) => showsFile(tab, review.uri)),
        );
        if (!stillOpen) void this.rejectAll();
      }),
      vscode.workspace.onDidCloseTextDocument((document) => {
        if (this.review !== undefined && sameUri(document.uri, this.review.uri)) this.end();
      }),
    ];
  }

  dispose(): void {
    this.review?.settled();
    void vscode.commands.executeCommand("setContext", REVIEW_CONTEXT, false);
    void vscode.commands.executeCommand("setContext", HUNK_CONTEXT, false);
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  /** Whether a review is pending (another proposal waits until it is answered). */
  get active(): boolean {
    return this.review !== undefined;
  }

  /**
   * Runs `stream` (a quick edit writing its proposal) under a notice naming the file; its Cancel
   * calls `stop` (Esc's stop: the lines written so far are still offered).
   */
  whileEditing<T>(uri: vscode.Uri, stop: () => void, stream: () => Promise<T>): Promise<T> {
    const name = uri.path.split("/").pop() ?? uri.path;
    return Promise.resolve(
      vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `Spark is editing ${name}…`,
          cancellable: true,
        },
        (_progress, token) => {
          token.onCancellationRequested(stop);
          return stream();
        },
      ),
    );
  }

  /**
   * Writes `proposal` for `range` of the editor's document as a review. The range is widened to
   * whole lines (a line is struck or added as a whole). False when VS Code refused the edit.
   */
  async start(editor: vscode.TextEditor, range: vscode.Range, proposal: string): Promise<boolean> {
    await this.rejectAll();
    const document = editor.document;
    const lines = wholeLines(document, range);
    const prefix = document.getText(new vscode.Range(lines.start, range.start));
    const suffix = document.getText(new vscode.Range(range.end, lines.end));
    const original = document.getText(lines);
    const layout = layoutReview(original, prefix + proposal + suffix);
    if (layout.hunks.length === 0) return true;
    const offset = document.offsetAt(lines.start);
    const written = await editor.edit((builder) => builder.replace(lines, layout.text));
    if (!written) return false;
    const review: Review = {
      uri: document.uri,
      hunks: new PendingHunks(layout, offset),
      settled: () => undefined,
    };
    this.review = review;
    const first = review.hunks.hunks[0];
    if (first !== undefined) {
      const position = document.positionAt(first.start);
      editor.selection = new vscode.Selection(position, position);
      editor.revealRange(
        new vscode.Range(position, position),
        vscode.TextEditorRevealType.InCenterIfOutsideViewport,
      );
    }
    this.announce(review, document, lines.start.line + 1);
    this.refresh();
    return true;
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const review = this.review;
    if (review === undefined || !sameUri(document.uri, review.uri)) return [];
    return review.hunks.hunks.flatMap((hunk) => {
      const range = new vscode.Range(
        document.positionAt(hunk.start),
        document.positionAt(hunk.start),
      );
      return [
        new vscode.CodeLens(range, {
          title: "✓ Accept",
          tooltip: "Keep the green lines (Ctrl+Y on the change; Ctrl+Enter accepts every change)",
          command: "spark.acceptHunk",
          arguments: [hunk.id],
        }),
        new vscode.CodeLens(range, {
          title: "✗ Reject",
          tooltip:
            "Keep the struck lines (Ctrl+N on the change; Ctrl+Backspace rejects every change)",
          command: "spark.rejectHunk",
          arguments: [hunk.id],
        }),
      ];
    });
  }

  acceptHunk(id: number): Promise<void> {
    return this.settle([id], acceptDeletion);
  }

  rejectHunk(id: number): Promise<void> {
    return this.settle([id], rejectDeletion);
  }

  /** Accept or Reject from a key: the hunk under the cursor, then the cursor goes to the next. */
  /** Answers the change under the cursor; false when the cursor is on none. */
  async answerHunkAtCursor(accept: boolean): Promise<boolean> {
    const located = this.cursorHunk();
    if (located === undefined) return false;
    await this.settle([located.hunk.id], accept ? acceptDeletion : rejectDeletion);
    this.reveal(located.editor, (hunks, offset) => hunks.next(offset));
    return true;
  }

  /** Moves the cursor to the next (or previous) pending hunk, wrapping around. */
  goToHunk(forward: boolean): void {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) return;
    this.reveal(editor, (hunks, offset, length) =>
      forward ? hunks.next(offset) : hunks.previous(offset, length),
    );
  }

  acceptAll(): Promise<void> {
    return this.settle(undefined, acceptDeletion);
  }

  rejectAll(): Promise<void> {
    return this.settle(undefined, rejectDeletion);
  }

  /** Answers the hunks `ids` (all when undefined): taken out first, then written in one edit. */
  private async settle(
    ids: readonly number[] | undefined,
    deletionOf: (hunk: ReviewHunk) => Deletion,
  ): Promise<void> {
    const review = this.review;
    if (review === undefined) return;
    const hunks =
      ids === undefined ? review.hunks.takeAll() : ids.flatMap((id) => review.hunks.take(id) ?? []);
    if (hunks.length > 0) {
      const document = vscode.workspace.textDocuments.find((open) => sameUri(open.uri, review.uri));
      if (document !== undefined) {
        const editor = vscode.window.visibleTextEditors.find((visible) =>
          sameUri(visible.document.uri, review.uri),
        );
        const ranges = hunks.map((hunk) => rangeOf(document, deletionOf(hunk)));
        if (editor !== undefined) {
          // Through the editor, as typing is: one undo step, and saving stays with the user.
          await editor.edit((builder) => {
            for (const range of ranges) builder.delete(range);
          });
        } else {
          const edit = new vscode.WorkspaceEdit();
          for (const range of ranges) edit.delete(review.uri, range);
          await vscode.workspace.applyEdit(edit);
        }
      }
    }
    this.refresh();
  }

  /** The pending hunk under the active editor's cursor, with that editor. */
  private cursorHunk(): { editor: vscode.TextEditor; hunk: ReviewHunk } | undefined {
    const review = this.review;
    const editor = vscode.window.activeTextEditor;
    if (review === undefined || editor === undefined) return undefined;
    if (!sameUri(editor.document.uri, review.uri)) return undefined;
    const document = editor.document;
    const hunk = review.hunks.at(
      document.offsetAt(editor.selection.active),
      document.getText().length,
    );
    return hunk === undefined ? undefined : { editor, hunk };
  }

  private reveal(
    editor: vscode.TextEditor,
    choose: (hunks: PendingHunks, offset: number, length: number) => ReviewHunk | undefined,
  ): void {
    const review = this.review;
    if (review === undefined || !sameUri(editor.document.uri, review.uri)) return;
    const document = editor.document;
    const offset = document.offsetAt(editor.selection.active);
    const hunk = choose(review.hunks, offset, document.getText().length);
    if (hunk === undefined) return;
    const position = document.positionAt(hunk.start);
    editor.selection = new vscode.Selection(position, position);
    editor.revealRange(
      new vscode.Range(position, position),
      vscode.TextEditorRevealType.InCenterIfOutsideViewport,
    );
    this.updateHunkContext();
  }

  /** Sets the hunk context key when the cursor enters or leaves a pending hunk. */
  private updateHunkContext(): void {
    const inHunk = this.cursorHunk() !== undefined;
    if (inHunk === this.cursorInHunk) return;
    this.cursorInHunk = inHunk;
    void vscode.commands.executeCommand("setContext", HUNK_CONTEXT, inHunk);
  }

  private announce(review: Review, document: vscode.TextDocument, line: number): void {
    const name = document.uri.path.split("/").pop() ?? document.uri.path;
    void vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Spark's edit to ${name} (line ${line}) is ready`,
        cancellable: true,
      },
      (progress, token) =>
        new Promise<void>((resolve) => {
          progress.report({
            message:
              "Accept or Reject each change above it (on it: Ctrl+Y / Ctrl+N), or all: Ctrl+Enter / Ctrl+Backspace.",
          });
          review.settled = resolve;
          if (this.review !== review) resolve();
          token.onCancellationRequested(() => {
            resolve();
            if (this.review === review) void this.rejectAll();
          });
        }),
    );
  }

  /** Redraws the decorations and lenses; ends the review once no hunk is pending. */
  private refresh(): void {
    const review = this.review;
    if (review !== undefined && review.hunks.size === 0) {
      this.end();
      return;
    }
    for (const editor of vscode.window.visibleTextEditors) {
      const mine = review !== undefined && sameUri(editor.document.uri, review.uri);
      const hunks = mine ? review.hunks.hunks : [];
      const document = editor.document;
      editor.setDecorations(
        this.removedLines,
        hunks.flatMap((hunk) => lineRange(document, hunk.start, hunk.removedEnd)),
      );
      editor.setDecorations(
        this.addedLines,
        hunks.flatMap((hunk) => lineRange(document, hunk.removedEnd, hunk.end)),
      );
    }
    const focused = vscode.window.activeTextEditor?.document.uri;
    const active = review !== undefined && focused !== undefined && sameUri(focused, review.uri);
    void vscode.commands.executeCommand("setContext", REVIEW_CONTEXT, active);
    this.updateHunkContext();
    this.lensesChanged.fire();
  }

  private end(): void {
    const review = this.review;
    this.review = undefined;
    review?.settled();
    this.refresh();
  }
}

function sameUri(first: vscode.Uri, second: vscode.Uri): boolean {
  return first.toString() === second.toString();
}

function showsFile(tab: vscode.Tab, uri: vscode.Uri): boolean {
  return tab.input instanceof vscode.TabInputText && sameUri(tab.input.uri, uri);
}

function rangeOf(document: vscode.TextDocument, deletion: Deletion): vscode.Range {
  return new vscode.Range(document.positionAt(deletion.start), document.positionAt(deletion.end));
}

/** The whole lines of [start, end): a range ending after a newline stops at the line before. */
function lineRange(document: vscode.TextDocument, start: number, end: number): vscode.Range[] {
  if (end <= start) return [];
  const endsLine =
    document.getText(new vscode.Range(document.positionAt(end - 1), document.positionAt(end))) ===
    "\n";
  const last = document.positionAt(endsLine ? end - 1 : end);
  return [new vscode.Range(document.positionAt(start), last)];
}

/** `range` widened to whole lines, the last line's newline included when there is one. */
function wholeLines(document: vscode.TextDocument, range: vscode.Range): vscode.Range {
  const start = new vscode.Position(range.start.line, 0);
  if (range.end.character === 0 && range.end.line > range.start.line)
    return new vscode.Range(start, range.end);
  const end =
    range.end.line + 1 < document.lineCount
      ? new vscode.Position(range.end.line + 1, 0)
      : document.lineAt(range.end.line).range.end;
  return new vscode.Range(start, end);
}
