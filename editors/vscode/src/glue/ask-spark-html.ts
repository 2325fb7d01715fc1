// The Ask Spark page: a strict CSP with one nonce'd script; entries are built with createElement
// and textContent only, so model or tool text can never become markup.
import { randomBytes } from "node:crypto";

export function askSparkHtml(cspSource: string): string {
  const nonce = randomBytes(16).toString("base64");
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'unsafe-inline'; script-src 'nonce-${nonce}';">
<style>
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 8px; }
#transcript { white-space: pre-wrap; word-break: break-word; }
.user { margin-top: 10px; font-weight: 600; }
.tool, .status { opacity: 0.7; font-size: 0.9em; }
.error { color: var(--vscode-errorForeground); }
form { display: flex; gap: 4px; margin: 8px 0; }
textarea { flex: 1; min-height: 3em; color: var(--vscode-input-foreground); background: var(--vscode-input-background); border: 1px solid var(--vscode-input-border, transparent); }
</style></head>
<body>
<div id="transcript" aria-live="polite"></div>
<form id="ask"><textarea id="prompt" placeholder="Ask Spark about this workspace"></textarea><button type="submit">Ask</button></form>
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
const transcript = document.getElementById("transcript");
const prompt = document.getElementById("prompt");
let assistant = null;
function add(kind, text) {
  const element = document.createElement("div");
  element.className = kind;
  element.textContent = text;
  transcript.appendChild(element);
  return element;
}
document.getElementById("ask").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = prompt.value.trim();
  if (text === "") return;
  prompt.value = "";
  vscode.postMessage({ type: "ask", text });
});
prompt.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); document.getElementById("ask").requestSubmit(); }
});
window.addEventListener("message", (event) => {
  const entry = event.data;
  if (entry.kind === "assistant-delta") {
    if (assistant === null) assistant = add("assistant", "");
    assistant.textContent += entry.text;
    return;
  }
  assistant = null;
  if (entry.kind === "approval") {
    const element = add("approval", entry.text + " ");
    for (const decision of ["approve", "deny"]) {
      const button = document.createElement("button");
      button.textContent = decision;
      button.addEventListener("click", () => { vscode.postMessage({ type: decision, approvalId: entry.approvalId }); element.remove(); });
      element.appendChild(button);
    }
    return;
  }
  if (entry.text !== "") add(entry.kind, entry.text);
});
</script></body></html>`;
}
