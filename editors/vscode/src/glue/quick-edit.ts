// Quick edit as a transaction: select code, type an instruction, and the rewrite streams into a
// diff view opened at the selection (the original's tail stays in place until the rewrite reaches
// it). Apply is offered only for a real change after a successful stream (or after Esc, with the
// lines rewritten so far). Accept writes into the document at the range the edit started on, moved
// by the changes made around it meanwhile, or refuses when the selection's own lines changed;
// saving is left to the user. Reject, or closing the diff, drops the proposal and, with it, the
// problems language servers reported for it. With `spark.editReview` "inline" (the default) the
// finished proposal is reviewed in the file's own editor instead (inline-review.ts).
import * as vscode from "vscode";
import { EditAnchor, type TextSpan } from "../core/edit-anchor.ts";
import { streamQuickEdit } from "../core/quick-edit-client.ts";
import { decideQuickEditOutcome, type QuickEditEnd } from "../core/quick-edit-outcome.ts";
import { proposalWhileStreaming } from "../core/streaming-proposal.ts";
import { editDocumentUri, type EditDocuments } from "./edit-documents.ts";
import type { FailureReporter } from "./failure-reporter.ts";
import { placeOf, SELECTION_CHANGED, trackChanges } from "./edit-place.ts";
import type { InlineReview } from "./inline-review.ts";
import type { SparkSettings } from "./settings.ts";

interface PendingEdit {
  uri: vscode.Uri;
  languageId: string;
  /** The whole document when the edit started, and the selection in it as offsets. */
  documentText: string;
  /** The selection in the document as it is now, moved by every change made meanwhile. */
  anchor: EditAnchor;
  tracking: vscode.Disposable;
  start: number;
  end: number;
  original: string;
  originalUri: vscode.Uri;
  proposedUri: vscode.Uri;
  /** The rewrite as streamed so far. */
  streamed: string;
  /** What Accept writes; set once the edit is offered. */
  proposal: string | undefined;
  /** Reviewed in the file's editor once offered: no diff tab. */
  inline: boolean;
  /** Esc was pressed (as opposed to Reject, which also aborts). */
  stopped: boolean;
  /** Takes the "edit is ready" notice away once the edit is accepted or dropped. */
  settled: () => void;
  controller: AbortController;
}

/** Tries at applying an accepted edit while the document keeps changing under it. */
const ACCEPT_ATTEMPTS = 3;
/** How often the diff view is refreshed while the edit streams (ms): a frame or so. */
const REFRESH_INTERVAL_MS = 30;

export class QuickEdit implements vscode.Disposable {
  private pending: PendingEdit | undefined;
  private sequence = 0;
  private readonly tabSubscription: vscode.Disposable;

  constructor(
    private readonly settings: SparkSettings,
    private readonly documents: EditDocuments,
    private readonly failures: FailureReporter,
    private readonly review: InlineReview,
  ) {
    // Closing the proposal's diff is the user dismissing it: a pending edit nobody sees must not
    // wait for a key pressed later for something else.
    this.tabSubscription = vscode.window.tabGroups.onDidChangeTabs((event) => {
      const pending = this.pending;
      if (pending === undefined || !event.closed.some((tab) => showsProposal(tab, pending))) return;
      const stillOpen = vscode.window.tabGroups.all.some((group) =>
        group.tabs.some((tab) => showsProposal(tab, pending)),
      );
      if (!stillOpen) void this.reject();
    });
  }

  dispose(): void {
    this.tabSubscription.dispose();
    this.pending?.controller.abort();
    this.pending?.tracking.dispose();
  }

  async run(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined || this.reviewPending()) return;
    const document = editor.document;
    const selected = editor.selection.isEmpty
      ? document.lineAt(editor.selection.active.line).range
      : new vscode.Range(editor.selection.start, editor.selection.end);
    // Tracked from now: the document may change while the instruction is typed, too.
    const anchor = new EditAnchor(
      document.getText(),
      document.offsetAt(selected.start),
      document.offsetAt(selected.end),
    );
    const tracking = trackChanges(document.uri, anchor);
    const instruction = await vscode.window.showInputBox({
      title: "Spark: Quick Edit",
      prompt: "How should the selected code change?",
      placeHolder: "e.g. add error handling",
    });
    const span = anchor.span;
    if (!instruction || span === undefined) {
      tracking.dispose();
      if (instruction && span === undefined)
        void vscode.window.showWarningMessage(SELECTION_CHANGED);
      return;
    }
    await this.reject();
    const pending = await this.open(document, span, anchor, tracking, true);
    try {
      const end = pending.inline
        ? await this.review.whileEditing(
            document.uri,
            () => this.cancel(),
            () => this.stream(pending, instruction),
          )
        : await this.stream(pending, instruction);
      if (this.pending !== pending) return;
      const outcome = decideQuickEditOutcome(pending.original, pending.streamed, end);
      if (outcome.kind !== "offer") {
        pending.tracking.dispose();
        await this.discard(pending);
        if (outcome.kind === "failed")
          this.failures.explicit(outcome.error, "Spark quick edit failed");
        else void vscode.window.showInformationMessage(outcome.message);
        return;
      }
      // The line where the selection is now: lines may have been added above it meanwhile.
      const line = document.positionAt(anchor.span?.start ?? span.start).line;
      await this.offer(pending, outcome.text, line);
    } finally {
      // ✓ and Ctrl+Enter show only now that Accept has a proposal (cleared at the stream's end, a
      // ✓ clicked under load accepted nothing). An edit started meanwhile streams on.
      if (this.pending === undefined || this.pending === pending)
        await setContext("spark.editStreaming", false);
    }
  }

  /**
   * Ask's Apply: `text` proposed for `range` of the document at `uri` (an empty range inserts),
   * without a stream, answered as a quick edit's proposal is: the diff tab with ✓/✗, Ctrl+Enter,
   * Ctrl+Backspace, the notice; Accept refuses when the range's own lines changed meanwhile.
   */
  async propose(uri: vscode.Uri, range: vscode.Range, text: string): Promise<void> {
    if (this.reviewPending()) return;
    const document = await vscode.workspace.openTextDocument(uri);
    if (document.getText(range) === text) {
      void vscode.window.showInformationMessage("The file already has this code.");
      return;
    }
    const span = { start: document.offsetAt(range.start), end: document.offsetAt(range.end) };
    const anchor = new EditAnchor(document.getText(), span.start, span.end);
    const tracking = trackChanges(document.uri, anchor);
    await this.reject();
    const pending = await this.open(document, span, anchor, tracking, false);
    await this.offer(pending, text, range.start.line);
  }

  /**
   * Whether changes of an earlier edit still wait in a file: a new edit waits until they are
   * answered (answering them by itself would rewrite lines the new selection was made on).
   */
  private reviewPending(): boolean {
    if (!this.review.active) return false;
    void vscode.window.showWarningMessage(
      "Spark's earlier edit still waits: accept or reject its changes first.",
    );
    return true;
  }

  /**
   * A pending edit of `span`, its diff opened there (the proposal, for now, the document as is).
   * `streaming`: a stream is about to fill it, so ✓ and Ctrl+Enter stay off from the start.
   */
  private async open(
    document: vscode.TextDocument,
    span: TextSpan,
    anchor: EditAnchor,
    tracking: vscode.Disposable,
    streaming: boolean,
  ): Promise<PendingEdit> {
    const id = ++this.sequence;
    const path = document.uri.path;
    const documentText = document.getText();
    const range = new vscode.Range(document.positionAt(span.start), document.positionAt(span.end));
    const pending: PendingEdit = {
      uri: document.uri,
      languageId: document.languageId,
      documentText,
      anchor,
      tracking,
      start: span.start,
      end: span.end,
      original: document.getText(range),
      originalUri: editDocumentUri("original", id, path),
      proposedUri: editDocumentUri("proposed", id, path),
      streamed: "",
      proposal: undefined,
      stopped: false,
      inline: this.settings.editReview === "inline",
      settled: () => undefined,
      controller: new AbortController(),
    };
    this.pending = pending;
    this.documents.set(pending.originalUri, documentText);
    this.documents.set(pending.proposedUri, documentText);
    // Plaintext before the diff shows it: no language server sees the proposal until it is whole.
    await this.documents.setLanguage(pending.proposedUri, "plaintext");
    // Streaming before pending: with pending alone the diff showed ✓ until the stream began, and
    // ✓ there accepted nothing (seen under load as a ✓ that left the proposal unanswered).
    await setContext("spark.editStreaming", streaming);
    if (pending.inline) return pending;
    await setContext("spark.editPending", true);
    // Opened at the selection: the change is on screen while Accept is asked, not at line 1.
    await vscode.commands.executeCommand(
      "vscode.diff",
      pending.originalUri,
      pending.proposedUri,
      `Spark edit: ${path.split("/").pop() ?? path}`,
      { preview: false, selection: range } satisfies vscode.TextDocumentShowOptions,
    );
    return pending;
  }

  /** The proposal is whole: Accept may write it; `line` (0-based) is where it goes now. */
  private async offer(pending: PendingEdit, text: string, line: number): Promise<void> {
    pending.proposal = text;
    if (pending.inline) return this.reviewInline(pending, text);
    this.showProposal(pending, text);
    // Whole now: highlighted as the file is, and its problems reported (they go when answered).
    await this.documents.setLanguage(pending.proposedUri, pending.languageId);
    if (this.pending !== pending) return;
    this.announce(pending, line + 1);
  }

  /** The proposal written into the file's editor as hunks to answer, where the edit started. */
  private async reviewInline(pending: PendingEdit, text: string): Promise<void> {
    pending.tracking.dispose();
    await this.discard(pending);
    const document = await vscode.workspace.openTextDocument(pending.uri);
    const range = placeOf(pending.anchor, pending.original, document);
    if (range === undefined) {
      void vscode.window.showWarningMessage(`${SELECTION_CHANGED} Run the quick edit again.`);
      return;
    }
    const editor = await vscode.window.showTextDocument(document, { preview: false });
    if (!(await this.review.start(editor, range, text)))
      void vscode.window.showErrorMessage("VS Code refused Spark's edit; the file is unchanged.");
  }

  /**
   * A notice that stays while the proposal waits (a progress notification: VS Code hides a plain
   * one after seconds, and no extension can take a plain one away once answered), naming the file
   * and how to answer; its Cancel rejects. It goes when the edit is accepted or dropped.
   */
  private announce(pending: PendingEdit, line: number): void {
    const name = pending.uri.path.split("/").pop() ?? pending.uri.path;
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
              "Accept: ✓ in the diff or Ctrl+Enter there. Reject: ✗, Ctrl+Backspace or Cancel.",
          });
          pending.settled = resolve;
          if (this.pending !== pending) resolve();
          token.onCancellationRequested(() => {
            resolve();
            if (this.pending === pending) void this.reject();
          });
        }),
    );
  }

  private async stream(pending: PendingEdit, instruction: string): Promise<QuickEditEnd> {
    await setContext("spark.editStreaming", true);
    let lastRefresh = 0;
    const refresh = (): void =>
      this.showProposal(pending, proposalWhileStreaming(pending.original, pending.streamed));
    try {
      for await (const text of streamQuickEdit(
        this.settings.server(),
        {
          selection: pending.original,
          instruction,
          languageId: pending.languageId,
          before: pending.documentText.slice(Math.max(0, pending.start - 2_000), pending.start),
          after: pending.documentText.slice(pending.end, pending.end + 1_000),
        },
        { model: this.settings.editModel, signal: pending.controller.signal },
      )) {
        pending.streamed = text;
        if (Date.now() - lastRefresh >= REFRESH_INTERVAL_MS) {
          refresh();
          lastRefresh = Date.now();
        }
      }
      this.failures.recovered();
      return { kind: "finished" };
    } catch (error) {
      if (pending.controller.signal.aborted)
        return pending.stopped ? { kind: "stopped" } : { kind: "failed", error };
      return { kind: "failed", error };
    } finally {
      refresh();
    }
  }

  private showProposal(pending: PendingEdit, selectionText: string): void {
    const before = pending.documentText.slice(0, pending.start);
    const after = pending.documentText.slice(pending.end);
    this.documents.set(pending.proposedUri, before + selectionText + after);
  }

  /** Esc while streaming: stop generating; the whole lines so far (and the original's rest) stay. */
  cancel(): void {
    const pending = this.pending;
    if (pending === undefined || pending.proposal !== undefined) return;
    pending.stopped = true;
    pending.controller.abort();
  }

  async accept(): Promise<void> {
    const pending = this.pending;
    if (pending?.proposal === undefined) return;
    const proposal = pending.proposal;
    const document = await vscode.workspace.openTextDocument(pending.uri);
    // The document may have changed while the edit streamed: apply at the range the edit started
    // on, moved by those changes; never at another copy of the same text.
    if (placeOf(pending.anchor, pending.original, document) === undefined) {
      void vscode.window.showWarningMessage(
        `${SELECTION_CHANGED} Reject closes the proposal; run the quick edit again on the new code.`,
      );
      return;
    }
    await this.discard(pending);
    try {
      // An edit through the file's editor, as typing is: saving stays with the user (Copilot and
      // Continue leave it unsaved), where a workspace edit counts as a refactoring VS Code saves.
      const editor = await vscode.window.showTextDocument(document, { preview: false });
      // VS Code refuses an edit when the document changed after the edit's range was read (the
      // user's last keystrokes still arriving): read the anchor again and retry.
      for (let attempt = 1; attempt <= ACCEPT_ATTEMPTS; attempt += 1) {
        const range = placeOf(pending.anchor, pending.original, editor.document);
        if (range === undefined) {
          void vscode.window.showWarningMessage(
            `${SELECTION_CHANGED} Run the quick edit again on the new code.`,
          );
          return;
        }
        const start = editor.document.offsetAt(range.start);
        if (await editor.edit((builder) => builder.replace(range, proposal))) {
          // The cursor after the edit, not a selection of it: the next keystroke must not replace it.
          const end = editor.document.positionAt(start + proposal.length);
          editor.selection = new vscode.Selection(end, end);
          editor.revealRange(new vscode.Range(range.start, end));
          return;
        }
      }
      void vscode.window.showErrorMessage("VS Code refused Spark's edit; the file is unchanged.");
    } finally {
      pending.tracking.dispose();
    }
  }

  async reject(): Promise<void> {
    const pending = this.pending;
    if (pending === undefined) return;
    pending.controller.abort();
    pending.tracking.dispose();
    await this.discard(pending);
  }

  private async discard(pending: PendingEdit): Promise<void> {
    if (this.pending === pending) this.pending = undefined;
    pending.settled();
    await setContext("spark.editPending", false);
    await Promise.all([
      this.documents.retire(pending.originalUri),
      this.documents.retire(pending.proposedUri),
    ]);
    for (const group of vscode.window.tabGroups.all)
      for (const tab of group.tabs)
        if (showsProposal(tab, pending)) await vscode.window.tabGroups.close(tab);
  }
}

function showsProposal(tab: vscode.Tab, pending: PendingEdit): boolean {
  return (
    tab.input instanceof vscode.TabInputTextDiff &&
    tab.input.modified.toString() === pending.proposedUri.toString()
  );
}

function setContext(key: string, value: boolean): Thenable<unknown> {
  return vscode.commands.executeCommand("setContext", key, value);
}
