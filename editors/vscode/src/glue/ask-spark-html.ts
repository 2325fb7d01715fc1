// The Ask Spark page's shell: a strict CSP that runs only the bundled page script (dist/ask-page.js,
// by nonce), which builds every entry with createElement and textContent.
import { randomBytes } from "node:crypto";

export function askSparkHtml(cspSource: string, scriptUri: string): string {
  const nonce = randomBytes(16).toString("base64");
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'unsafe-inline'; script-src 'nonce-${nonce}';">
<style>
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 8px; }
#toolbar { display: flex; justify-content: flex-end; gap: 4px; margin: 4px 0; }
#transcript { word-break: break-word; }
.user { margin-top: 12px; font-weight: 600; white-space: pre-wrap; }
.user-context, .ask-state { font-weight: normal; opacity: 0.7; font-size: 0.9em; }
.user.pending { opacity: 0.8; }
.user.failed { text-decoration: line-through; opacity: 0.7; }
.user.failed .ask-state { text-decoration: none; color: var(--vscode-errorForeground); opacity: 1; }
.assistant p { margin: 6px 0; }
.tool, .status { opacity: 0.7; font-size: 0.9em; white-space: pre-wrap; }
.error { color: var(--vscode-errorForeground); white-space: pre-wrap; }
.session-break { margin: 12px 0; padding: 4px 0; border-top: 1px solid var(--vscode-editorWidget-border, #888); border-bottom: 1px solid var(--vscode-editorWidget-border, #888); opacity: 0.85; font-size: 0.9em; }
.code-block { margin: 6px 0; border: 1px solid var(--vscode-editorWidget-border, transparent); }
.code-actions { display: flex; gap: 4px; align-items: center; padding: 2px 4px; background: var(--vscode-editorWidget-background); }
.code-language { flex: 1; opacity: 0.7; font-size: 0.85em; }
pre { margin: 0; padding: 6px; overflow-x: auto; background: var(--vscode-textCodeBlock-background); }
code { font-family: var(--vscode-editor-font-family); }
.token-keyword { color: var(--vscode-symbolIcon-keywordForeground, #c586c0); }
.token-string { color: var(--vscode-symbolIcon-stringForeground, #ce9178); }
.token-number { color: var(--vscode-symbolIcon-numberForeground, #b5cea8); }
.token-comment { opacity: 0.7; font-style: italic; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid var(--vscode-editorWidget-border, #888); padding: 2px 6px; text-align: left; }
#context { opacity: 0.7; font-size: 0.9em; margin-top: 8px; }
form { display: flex; gap: 4px; margin: 4px 0 8px; }
textarea { flex: 1; min-height: 3em; color: var(--vscode-input-foreground); background: var(--vscode-input-background); border: 1px solid var(--vscode-input-border, transparent); }
#files { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 6px; }
.file-chip { font-size: 0.9em; padding: 0 0 0 4px; border: 1px solid var(--vscode-editorWidget-border, #888); }
.file-chip button { padding: 0 4px; }
#file-suggestions { border: 1px solid var(--vscode-editorWidget-border, #888); background: var(--vscode-editorSuggestWidget-background, var(--vscode-editorWidget-background)); max-height: 12em; overflow-y: auto; }
.file-option { padding: 1px 4px; cursor: pointer; font-family: var(--vscode-editor-font-family); }
.file-option.highlighted { background: var(--vscode-list-activeSelectionBackground); color: var(--vscode-list-activeSelectionForeground); }
button { color: var(--vscode-button-foreground); background: var(--vscode-button-background); border: none; padding: 2px 8px; cursor: pointer; }
button:hover { background: var(--vscode-button-hoverBackground); }
</style></head>
<body>
<div id="toolbar"><button id="new-chat" type="button" title="Start a new session">New chat</button></div>
<div id="transcript" aria-live="polite"></div>
<div id="context" hidden></div>
<div id="files" hidden></div>
<div id="file-suggestions" role="listbox" hidden></div>
<form id="ask"><textarea id="prompt" placeholder="Ask Spark about this workspace (Enter sends, Shift+Enter: new line, @ adds a file)"></textarea><div><button type="submit">Ask</button><button id="stop" type="button" hidden>Stop</button></div></form>
<script nonce="${nonce}" src="${scriptUri}"></script>
</body></html>`;
}
