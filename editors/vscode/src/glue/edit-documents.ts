// Read-only documents under the spark-edit: scheme: the original file and the proposed one that a
// quick edit streams into, shown side by side in VS Code's diff editor.
import * as vscode from "vscode";

export const EDIT_SCHEME = "spark-edit";

/**
 * A document's URI: the kind and edit number in the authority, the file's path kept (its name
 * picks the language and the tab's label). Not in the query: TypeScript maps a URI to its server's
 * path without the query, so every proposal of a file and its original shared one path, and their
 * problems went to whichever of them it found, stayed after both closed and opened an empty tab.
 */
export function editDocumentUri(
  kind: "original" | "proposed",
  id: number,
  path: string,
): vscode.Uri {
  return vscode.Uri.from({ scheme: EDIT_SCHEME, authority: `${kind}-${id}`, path });
}

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
   * Gives the document a language: plaintext while a proposal streams (language servers check
   * plaintext for nothing, and half-written code flickered errors into Problems), the file's own
   * once the proposal is offered.
   */
  async setLanguage(uri: vscode.Uri, languageId: string): Promise<void> {
    const document = await vscode.workspace.openTextDocument(uri);
    if (document.languageId !== languageId)
      await vscode.languages.setTextDocumentLanguage(document, languageId).then(
        () => undefined,
        () => undefined,
      );
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
