// The Ask Spark page (bundled into dist/ask-page.js, run inside the webview): echoes a question the
// moment it is sent, shows "connecting…" until the extension says it went, puts the text back in
// the box when it failed, streams the reply as Markdown (re-rendered at most once per frame), and
// offers Stop while a turn runs and New chat. Everything shown is built with textContent.
import type { HostMessage, PageMessage } from "../core/ask-messages.ts";
import { parseMarkdown } from "../../../../src/protocol/transcript/index.ts";
import { FileMentions } from "./file-mentions.ts";
import { renderBlocks, type CodeActions } from "./markdown-dom.ts";

declare function acquireVsCodeApi(): { postMessage(message: PageMessage): void };

const vscode = acquireVsCodeApi();
const transcript = element("transcript");
const prompt = element("prompt") as HTMLTextAreaElement;
const form = element("ask") as HTMLFormElement;
const contextLine = element("context");
const stopButton = element("stop") as HTMLButtonElement;
const newChatButton = element("new-chat") as HTMLButtonElement;
const mentions = new FileMentions(
  prompt,
  element("files"),
  element("file-suggestions"),
  (message) => vscode.postMessage(message),
);

interface Ask {
  text: string;
  echo: HTMLElement;
  state: HTMLElement;
}
const asks = new Map<number, Ask>();
let nextAskId = 1;
let live: { element: HTMLElement; text: string; frame: number | undefined } | undefined;

const codeActions: CodeActions = {
  copy: (text) => vscode.postMessage({ type: "copy", text }),
  insert: (text) => vscode.postMessage({ type: "insert", text }),
  apply: (text) => vscode.postMessage({ type: "apply", text }),
  openLink: (href) => vscode.postMessage({ type: "open-link", href }),
};

function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`The Ask Spark page has no #${id}.`);
  return found;
}

function add(kind: string, text: string): HTMLElement {
  const entry = document.createElement("div");
  entry.className = kind;
  entry.textContent = text;
  transcript.appendChild(entry);
  entry.scrollIntoView({ block: "end" });
  return entry;
}

function send(): void {
  const text = prompt.value.trim();
  if (text === "") return;
  const askId = nextAskId++;
  const files = mentions.take();
  const echo = add("user pending", text);
  const contexts = [
    ...(files.length > 0 ? [files.map((file) => `@${file}`).join(" ")] : []),
    ...(contextLine.textContent ? [contextLine.textContent] : []),
  ];
  for (const line of contexts) {
    const context = document.createElement("div");
    context.className = "user-context";
    context.textContent = line;
    echo.appendChild(context);
  }
  const state = document.createElement("div");
  state.className = "ask-state";
  echo.appendChild(state);
  asks.set(askId, { text, echo, state });
  prompt.value = "";
  vscode.postMessage({ type: "ask", askId, text, files });
}

function renderLive(): void {
  if (live === undefined) return;
  live.frame = undefined;
  live.element.replaceChildren(renderBlocks(parseMarkdown(live.text), codeActions));
  live.element.scrollIntoView({ block: "end" });
}

function endLive(): void {
  if (live === undefined) return;
  if (live.frame !== undefined) cancelAnimationFrame(live.frame);
  renderLive();
  live = undefined;
}

function receive(message: HostMessage): void {
  if (message.kind === "assistant-delta") {
    live ??= { element: add("assistant", ""), text: "", frame: undefined };
    live.text += message.text;
    live.frame ??= requestAnimationFrame(renderLive);
    return;
  }
  switch (message.kind) {
    case "ask-state": {
      const ask = asks.get(message.askId);
      if (ask === undefined) return;
      if (message.state === "connecting") ask.state.textContent = "connecting…";
      else if (message.state === "sent") {
        ask.echo.classList.remove("pending");
        ask.state.remove();
        asks.delete(message.askId);
      } else {
        ask.echo.classList.replace("pending", "failed");
        ask.state.textContent = `not sent: ${message.text ?? "failed"}`;
        // The question is not lost: it goes back in the box to send again.
        if (prompt.value.trim() === "") prompt.value = ask.text;
        asks.delete(message.askId);
      }
      return;
    }
    case "busy":
      stopButton.hidden = !message.busy;
      if (!message.busy) {
        endLive();
        retireApprovals();
      }
      return;
    case "context":
      contextLine.textContent = message.text;
      contextLine.hidden = message.text === "";
      return;
    case "files":
      mentions.receive(message.requestId, message.files);
      return;
    case "focus-prompt":
      prompt.focus();
      return;
    case "clear":
      endLive();
      transcript.replaceChildren();
      asks.clear();
      stopButton.hidden = true;
      return;
    case "session-break": {
      endLive();
      // Above the question that is waiting for the new session: it belongs to that session.
      const divider = add("session-break", message.text);
      const waiting = [...asks.values()][0]?.echo;
      if (waiting !== undefined) transcript.insertBefore(divider, waiting);
      return;
    }
    case "approval": {
      endLive();
      const entry = add("approval", `${message.text} `);
      for (const decision of ["approve", "deny"] as const) {
        const button = document.createElement("button");
        button.textContent = decision;
        button.addEventListener("click", () => {
          vscode.postMessage({ type: decision, approvalId: message.approvalId });
          entry.remove();
        });
        entry.appendChild(button);
      }
      return;
    }
    default:
      endLive();
      if (message.text !== "") add(message.kind, message.text);
  }
}

/**
 * The turn ended (Stop, or it finished): a question it asked is no longer waiting, and approve or
 * deny would answer nobody. The question stays, saying so.
 */
function retireApprovals(): void {
  for (const entry of Array.from(transcript.querySelectorAll(".approval"))) {
    if (entry.querySelector("button") === null) continue;
    for (const button of Array.from(entry.querySelectorAll("button"))) button.remove();
    entry.append("(not answered: the turn ended)");
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  send();
});
prompt.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    send();
  }
});
stopButton.addEventListener("click", () => vscode.postMessage({ type: "stop" }));
newChatButton.addEventListener("click", () => vscode.postMessage({ type: "new-chat" }));
window.addEventListener("message", (event: MessageEvent<HostMessage>) => receive(event.data));
vscode.postMessage({ type: "ready" });
