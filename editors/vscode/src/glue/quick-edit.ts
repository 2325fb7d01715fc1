// Quick edit: select code, type an instruction, and the edited code streams into a diff view
// against the file; Accept writes it into the document (and saves it), Reject drops it, and Esc
// (spark.cancelEdit) stops the stream, keeping what came so far for accept or reject.
import * as vscode from "vscode";
import { streamQuickEdit } from "../core/quick-edit-client.ts";
import { SparkClientError } from "../core/spark-client-error.ts";
import { EDIT_SCHEME, type EditDocuments } from "./edit-documents.ts";
import type { ServerLauncher } from "./server-launcher.ts";
import type { SparkSettings } from "./settings.ts";

interface PendingEdit {
  document: vscode.TextDocument;
  range: vscode.Range;
  originalUri: vscode.Uri;
  proposedUri: vscode.Uri;
  text: string;
  controller: AbortController;
}

/** How often the diff view is refreshed while the edit streams (ms): a frame or so. */
const REFRESH_INTERVAL_MS = 30;

export class QuickEdit {
  private pending: PendingEdit | undefined;
  private sequence = 0;

  constructor(
    private readonly settings: SparkSettings,
    private readonly documents: EditDocuments,
    private readonly launcher: ServerLauncher,
  ) {}

  async run(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) return;
    const document = editor.document;
    const range = editor.selection.isEmpty
      ? document.lineAt(editor.selection.active.line).range
      : editor.selection;
    const instruction = await vscode.window.showInputBox({
      title: "Spark: Quick Edit",
      prompt: "How should the selected code change?",
      placeHolder: "e.g. add error handling",
    });
    if (!instruction) return;
    this.reject();

    const id = ++this.sequence;
    const path = document.uri.path;
    const pending: PendingEdit = {
      document,
      range,
      originalUri: vscode.Uri.from({ scheme: EDIT_SCHEME, path, query: `original-${id}` }),
      proposedUri: vscode.Uri.from({ scheme: EDIT_SCHEME, path, query: `proposed-${id}` }),
      text: document.getText(range),
      controller: new AbortController(),
    };
    this.pending = pending;
    const before = document.getText(new vscode.Range(new vscode.Position(0, 0), range.start));
    const after = document.getText(
      new vscode.Range(range.end, document.lineAt(document.lineCount - 1).range.end),
    );
    this.documents.set(pending.originalUri, document.getText());
    this.documents.set(pending.proposedUri, document.getText());
    await vscode.commands.executeCommand(
      "vscode.diff",
      pending.originalUri,
      pending.proposedUri,
      `Spark edit: ${path.split("/").pop() ?? path}`,
      { preview: false },
    );
    await this.stream(pending, instruction, before, after);
    if (this.pending !== pending) return;
    const choice = await vscode.window.showInformationMessage(
      "Apply Spark's edit?",
      "Accept",
      "Reject",
    );
    if (this.pending !== pending) return;
    if (choice === "Accept") await this.accept();
    else this.reject();
  }

  private async stream(
    pending: PendingEdit,
    instruction: string,
    before: string,
    after: string,
  ): Promise<void> {
    await vscode.commands.executeCommand("setContext", "spark.editStreaming", true);
    let lastRefresh = 0;
    const show = (): void => this.documents.set(pending.proposedUri, before + pending.text + after);
    try {
      for await (const text of streamQuickEdit(
        this.settings.server(),
        {
          selection: pending.text,
          instruction,
          languageId: pending.document.languageId,
          before: before.slice(-2_000),
          after: after.slice(0, 1_000),
        },
        { model: this.settings.editModel, signal: pending.controller.signal },
      )) {
        pending.text = text;
        if (Date.now() - lastRefresh >= REFRESH_INTERVAL_MS) {
          show();
          lastRefresh = Date.now();
        }
      }
    } catch (error) {
      if (!pending.controller.signal.aborted) await this.report(error);
    } finally {
      show();
      await vscode.commands.executeCommand("setContext", "spark.editStreaming", false);
    }
  }

  /** Esc while streaming: stop generating; what streamed so far can still be accepted. */
  cancel(): void {
    this.pending?.controller.abort();
  }

  async accept(): Promise<void> {
    const pending = this.pending;
    if (pending === undefined) return;
    this.pending = undefined;
    pending.controller.abort();
    const edit = new vscode.WorkspaceEdit();
    edit.replace(pending.document.uri, pending.range, pending.text);
    await vscode.workspace.applyEdit(edit);
    // The diff may have replaced the file's (preview) editor, closing the TextDocument we held.
    const document = await vscode.workspace.openTextDocument(pending.document.uri);
    await document.save();
    await this.closeDiff(pending);
  }

  reject(): void {
    const pending = this.pending;
    if (pending === undefined) return;
    this.pending = undefined;
    pending.controller.abort();
    void this.closeDiff(pending);
  }

  private async closeDiff(pending: PendingEdit): Promise<void> {
    for (const group of vscode.window.tabGroups.all)
      for (const tab of group.tabs)
        if (
          tab.input instanceof vscode.TabInputTextDiff &&
          tab.input.modified.toString() === pending.proposedUri.toString()
        )
          await vscode.window.tabGroups.close(tab);
    this.documents.delete(pending.originalUri);
    this.documents.delete(pending.proposedUri);
  }

  private async report(error: unknown): Promise<void> {
    if (error instanceof SparkClientError && error.code === "server_unreachable") {
      await this.launcher.offerOnce(error.message);
      return;
    }
    await vscode.window.showErrorMessage(
      `Spark quick edit failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
