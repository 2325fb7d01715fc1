// Where a quick edit's proposal goes in the document: the anchor fed by the document's changes,
// and the range it holds now, if that still holds the text the edit started from.
import * as vscode from "vscode";
import type { EditAnchor, TextSpan } from "../core/edit-anchor.ts";

export const SELECTION_CHANGED =
  "Spark's edit was not applied: the selected code changed in the file while Spark was editing it.";

/** Feeds the document's changes to the anchor until disposed. */
export function trackChanges(uri: vscode.Uri, anchor: EditAnchor): vscode.Disposable {
  return vscode.workspace.onDidChangeTextDocument((event) => {
    if (event.document.uri.toString() === uri.toString()) anchor.apply(event.contentChanges);
  });
}

/**
 * Where Accept writes: the anchor's range, if it still holds the selected text (a file reverted
 * from disk changes without change events the anchor could follow).
 */
export function placeOf(
  anchor: EditAnchor,
  original: string,
  document: vscode.TextDocument,
): vscode.Range | undefined {
  const span: TextSpan | undefined = anchor.span;
  if (span === undefined || span.end > document.getText().length) return undefined;
  const range = new vscode.Range(document.positionAt(span.start), document.positionAt(span.end));
  return document.getText(range) === original ? range : undefined;
}
