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

  /**
   * Empties the document and takes it away from language servers, then forgets it. VS Code keeps
   * a closed diff's documents alive for minutes, and TypeScript kept reporting a rejected
   * proposal's errors in the Problems panel all that time. An empty plaintext document has none.
   */
  async retire(uri: vscode.Uri): Promise<void> {
    const document = vscode.workspace.textDocuments.find(
      (candidate) => candidate.uri.toString() === uri.toString(),
    );
    if (document !== undefined) {
      const emptied = waitForChange(uri);
      this.set(uri, "");
      await emptied;
      if (document.languageId !== "plaintext")
        await vscode.languages.setTextDocumentLanguage(document, "plaintext").then(
          () => undefined,
          () => undefined,
        );
    }
    this.contents.delete(uri.toString());
  }

  dispose(): void {
    this.changes.dispose();
    this.contents.clear();
  }
}

/** Resolves when the document's text changed, or after a second (it may be gone already). */
function waitForChange(uri: vscode.Uri): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(finish, 1_000);
    const subscription = vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.document.uri.toString() === uri.toString()) finish();
    });
    function finish(): void {
      clearTimeout(timer);
      subscription.dispose();
      resolve();
    }
  });
}
