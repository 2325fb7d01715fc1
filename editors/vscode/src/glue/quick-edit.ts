// Quick edit as a transaction: select code, type an instruction, and the rewrite streams into a
// diff view opened at the selection (the original's tail stays in place until the rewrite reaches
// it). Apply is offered only for a real change after a successful stream (or after Esc, with the
// lines rewritten so far). Accept writes into the document where the selected text now is, or
// refuses when that text changed meanwhile; saving is left to the user. Reject drops the proposal
// and, with it, the problems language servers reported for it.
import * as vscode from "vscode";
import { reanchorSelection } from "../core/edit-anchor.ts";
import { streamQuickEdit } from "../core/quick-edit-client.ts";
import { decideQuickEditOutcome, type QuickEditEnd } from "../core/quick-edit-outcome.ts";
import { proposalWhileStreaming } from "../core/streaming-proposal.ts";
import { EDIT_SCHEME, type EditDocuments } from "./edit-documents.ts";
import type { FailureReporter } from "./failure-reporter.ts";
import type { SparkSettings } from "./settings.ts";

interface PendingEdit {
  uri: vscode.Uri;
  languageId: string;
  /** The whole document when the edit started, and the selection in it as offsets. */
  documentText: string;
  start: number;
  end: number;
  original: string;
  originalUri: vscode.Uri;
  proposedUri: vscode.Uri;
  /** The rewrite as streamed so far. */
  streamed: string;
  /** What Accept writes; set once the edit is offered. */
  proposal: string | undefined;
  /** Esc was pressed (as opposed to Reject, which also aborts). */
  stopped: boolean;
  controller: AbortController;
}

/** How often the diff view is refreshed while the edit streams (ms): a frame or so. */
/** Tries at applying an accepted edit while the document keeps changing under it. */
const ACCEPT_ATTEMPTS = 3;
const REFRESH_INTERVAL_MS = 30;

export class QuickEdit {
  private pending: PendingEdit | undefined;
  private sequence = 0;

  constructor(
    private readonly settings: SparkSettings,
    private readonly documents: EditDocuments,
    private readonly failures: FailureReporter,
  ) {}

  async run(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) return;
    const document = editor.document;
    const range = editor.selection.isEmpty
      ? document.lineAt(editor.selection.active.line).range
      : new vscode.Range(editor.selection.start, editor.selection.end);
    const instruction = await vscode.window.showInputBox({
      title: "Spark: Quick Edit",
      prompt: "How should the selected code change?",
      placeHolder: "e.g. add error handling",
    });
    if (!instruction) return;
    await this.reject();

    const id = ++this.sequence;
    const path = document.uri.path;
    const documentText = document.getText();
    const pending: PendingEdit = {
      uri: document.uri,
      languageId: document.languageId,
      documentText,
      start: document.offsetAt(range.start),
      end: document.offsetAt(range.end),
      original: document.getText(range),
      originalUri: vscode.Uri.from({ scheme: EDIT_SCHEME, path, query: `original-${id}` }),
      proposedUri: vscode.Uri.from({ scheme: EDIT_SCHEME, path, query: `proposed-${id}` }),
      streamed: "",
      proposal: undefined,
      stopped: false,
      controller: new AbortController(),
    };
    this.pending = pending;
    this.documents.set(pending.originalUri, documentText);
    this.documents.set(pending.proposedUri, documentText);
    await setContext("spark.editPending", true);
    // Opened at the selection: the change is on screen while Accept is asked, not at line 1.
    await vscode.commands.executeCommand(
      "vscode.diff",
      pending.originalUri,
      pending.proposedUri,
      `Spark edit: ${path.split("/").pop() ?? path}`,
      { preview: false, selection: range } satisfies vscode.TextDocumentShowOptions,
    );
    const end = await this.stream(pending, instruction);
    if (this.pending !== pending) return;
    const outcome = decideQuickEditOutcome(pending.original, pending.streamed, end);
    if (outcome.kind !== "offer") {
      await this.discard(pending);
      if (outcome.kind === "failed")
        this.failures.explicit(outcome.error, "Spark quick edit failed");
      else void vscode.window.showInformationMessage(outcome.message);
      return;
    }
    pending.proposal = outcome.text;
    this.showProposal(pending, outcome.text);
    const choice = await vscode.window.showInformationMessage(
      "Apply Spark's edit?",
      "Accept",
      "Reject",
    );
    if (this.pending !== pending) return;
    if (choice === "Accept") await this.accept();
    else if (choice === "Reject") await this.reject();
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
      await setContext("spark.editStreaming", false);
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
    // The document may have changed while the edit streamed: apply where the selected text is now.
    if (reanchorSelection(pending, document.getText()) === undefined) {
      void vscode.window.showWarningMessage(
        "Spark's edit was not applied: the selected code changed in the file while Spark was " +
          "editing it. Reject closes the proposal; run the quick edit again on the new code.",
      );
      return;
    }
    await this.discard(pending);
    // An edit through the file's editor, as typing is: saving stays with the user (Copilot and
    // Continue leave it unsaved), where a workspace edit counts as a refactoring VS Code saves.
    const editor = await vscode.window.showTextDocument(document, { preview: false });
    // VS Code refuses an edit when the document changed after the edit's range was read (the
    // user's last keystrokes still arriving): read it again and retry, wherever the selection is.
    for (let attempt = 1; attempt <= ACCEPT_ATTEMPTS; attempt += 1) {
      const span = reanchorSelection(pending, editor.document.getText());
      if (span === undefined) {
        void vscode.window.showWarningMessage(
          "Spark's edit was not applied: the selected code changed in the file while Spark was " +
            "editing it. Run the quick edit again on the new code.",
        );
        return;
      }
      const range = new vscode.Range(
        editor.document.positionAt(span.start),
        editor.document.positionAt(span.end),
      );
      if (await editor.edit((builder) => builder.replace(range, proposal))) {
        // The cursor after the edit, not a selection of it: the next keystroke must not replace it.
        const end = editor.document.positionAt(span.start + proposal.length);
        editor.selection = new vscode.Selection(end, end);
        editor.revealRange(new vscode.Range(range.start, end));
        return;
      }
    }
    void vscode.window.showErrorMessage("VS Code refused Spark's edit; the file is unchanged.");
  }

  async reject(): Promise<void> {
    const pending = this.pending;
    if (pending === undefined) return;
    pending.controller.abort();
    await this.discard(pending);
  }

  private async discard(pending: PendingEdit): Promise<void> {
    if (this.pending === pending) this.pending = undefined;
    await setContext("spark.editPending", false);
    await Promise.all([
      this.documents.retire(pending.originalUri),
      this.documents.retire(pending.proposedUri),
    ]);
    for (const group of vscode.window.tabGroups.all)
      for (const tab of group.tabs)
        if (
          tab.input instanceof vscode.TabInputTextDiff &&
          tab.input.modified.toString() === pending.proposedUri.toString()
        )
          await vscode.window.tabGroups.close(tab);
  }
}

function setContext(key: string, value: boolean): Thenable<unknown> {
  return vscode.commands.executeCommand("setContext", key, value);
}
