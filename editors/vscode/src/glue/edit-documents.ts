// Read-only documents under the spark-edit: scheme: the original file and the proposed one that a
// quick edit streams into, shown side by side in VS Code's diff editor.
import * as vscode from "vscode";

export const EDIT_SCHEME = "spark-edit";

export class EditDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changes = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changes.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? "";
  }

  set(uri: vscode.Uri, content: string): void {
    this.contents.set(uri.toString(), content);
    this.changes.fire(uri);
  }

  delete(uri: vscode.Uri): void {
    this.contents.delete(uri.toString());
  }

  dispose(): void {
    this.changes.dispose();
    this.contents.clear();
  }
}
