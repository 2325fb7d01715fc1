// What an answer's code does to the editor the Ask view follows (Insert at the cursor, Apply as a
// proposed diff) and what that editor contributes to a question (its file and selection).
import * as vscode from "vscode";
import type { EditorContext } from "../core/ask-context.ts";
import { findBlockTarget } from "../core/block-target.ts";
import { insertText } from "../core/insert-text.ts";

/** Offers code as a pending edit (the quick edit's diff, ✓/✗ and keys). */
export type ProposeEdit = (uri: vscode.Uri, range: vscode.Range, text: string) => Promise<void>;

/** Insert: the block at the cursor (or over the selection), written at once. */
export async function insertCode(
  editor: vscode.TextEditor | undefined,
  text: string,
): Promise<void> {
  if (editor === undefined || editor.document.isClosed) {
    void vscode.window.showInformationMessage("Open a file to insert Spark's code into.");
    return;
  }
  const shown = await vscode.window.showTextDocument(editor.document, editor.viewColumn);
  const atLineStart = shown.selection.start.character === 0;
  await shown.edit((builder) => builder.replace(shown.selection, insertText(text, atLineStart)));
}

/**
 * Apply: the block proposed as a diff, never written at once. Over the selection when there is
 * one; else over the lines it rewrites (the copy nearest the cursor); else inserted at the cursor.
 */
export async function applyCode(
  editor: vscode.TextEditor | undefined,
  text: string,
  propose: ProposeEdit,
): Promise<void> {
  if (editor === undefined || editor.document.isClosed) {
    void vscode.window.showInformationMessage("Open a file to apply Spark's code to.");
    return;
  }
  const document = editor.document;
  const selection = editor.selection;
  if (!selection.isEmpty) {
    // A selection of whole lines ends at the next line's start: the block ends its last line.
    const wholeLines = selection.end.character === 0;
    return propose(document.uri, selection, insertText(text, wholeLines));
  }
  const target = findBlockTarget(document.getText(), text, selection.active.line);
  if (target === undefined)
    return propose(
      document.uri,
      new vscode.Range(selection.active, selection.active),
      insertText(text, selection.active.character === 0),
    );
  // The lines without their last newline: the one after them stays the document's.
  const lastLine = document.lineAt(target.endLine - 1);
  const range = new vscode.Range(target.startLine, 0, lastLine.lineNumber, lastLine.text.length);
  return propose(document.uri, range, text.replace(/\r?\n$/, ""));
}

/** The editor's file and selection (lines 1-based), as a question carries them. */
export function editorContextOf(editor: vscode.TextEditor | undefined): EditorContext | undefined {
  if (editor === undefined || editor.document.isClosed) return undefined;
  const document = editor.document;
  const context: EditorContext = {
    path: vscode.workspace.asRelativePath(document.uri),
    languageId: document.languageId,
  };
  const selection = editor.selection;
  if (selection.isEmpty) return context;
  return {
    ...context,
    selection: {
      startLine: selection.start.line + 1,
      // A selection that ends at a line's start does not include that line.
      endLine:
        selection.end.character === 0 && selection.end.line > selection.start.line
          ? selection.end.line
          : selection.end.line + 1,
      text: document.getText(selection),
    },
  };
}
