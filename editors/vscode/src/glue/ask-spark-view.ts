// The "Ask Spark" webview: a prompt box and a transcript, attached to one agent session through
// /v1/agent (the same sessions the terminal UI and browser show). A question carries the active
// file and selection; connecting and sending time out and say why; a wrong key is named as one;
// a session that is new after a restart or a dropped connection is marked as a break.
import * as vscode from "vscode";
import type { AgentProtocolClient } from "../../../../src/protocol/agent/index.ts";
import { WebSocket } from "ws";
import { connectAgent } from "../core/agent-connection.ts";
import { describeContext, questionWithContext, type EditorContext } from "../core/ask-context.ts";
import { parsePageMessage, type HostMessage, type PageMessage } from "../core/ask-messages.ts";
import { transcriptEntryFor } from "../core/ask-transcript.ts";
import { insertText } from "../core/insert-text.ts";
import { SparkClientError } from "../core/spark-client-error.ts";
import { askSparkHtml } from "./ask-spark-html.ts";
import type { FailureReporter } from "./failure-reporter.ts";
import type { SparkSettings } from "./settings.ts";

/** Documents a question may carry: files, not output panes or Spark's own proposals. */
const CONTEXT_SCHEMES = new Set(["file", "untitled", "vscode-remote"]);

/** session/start and turn/start answer at once on a live server. */
const REQUEST_TIMEOUT_MS = 10_000;

export class AskSparkView implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private client: AgentProtocolClient | undefined;
  private sessionId: string | undefined;
  /** The transcript shows a conversation with this session (undefined after New chat). */
  private shownSessionId: string | undefined;
  private editor: vscode.TextEditor | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly settings: SparkSettings,
    private readonly failures: FailureReporter,
  ) {
    const active = vscode.window.activeTextEditor;
    if (active !== undefined && CONTEXT_SCHEMES.has(active.document.uri.scheme))
      this.editor = active;
    this.subscriptions = [
      // Focusing the panel leaves no active editor: the last real one stays the context.
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor !== undefined && CONTEXT_SCHEMES.has(editor.document.uri.scheme))
          this.editor = editor;
        this.postContext();
      }),
      vscode.window.onDidChangeTextEditorSelection((event) => {
        if (event.textEditor === this.editor) this.postContext();
      }),
      // Another server or key: the next question connects again.
      settings.onDidChange(() => this.disconnect()),
    ];
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const dist = vscode.Uri.joinPath(this.extensionUri, "dist");
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    view.webview.html = askSparkHtml(
      view.webview.cspSource,
      view.webview.asWebviewUri(vscode.Uri.joinPath(dist, "ask-page.js")).toString(),
    );
    view.webview.onDidReceiveMessage((value: unknown) => {
      const message = parsePageMessage(value);
      if (message === undefined) return;
      void this.handle(message).catch((error: unknown) =>
        this.post({ kind: "error", text: messageOf(error) }),
      );
    });
  }

  /** Clears the transcript; the next question starts a new session. */
  newChat(): void {
    if (this.client !== undefined && this.sessionId !== undefined)
      void this.client.request("turn/interrupt", { sessionId: this.sessionId }).catch(() => {});
    this.sessionId = undefined;
    this.shownSessionId = undefined;
    this.post({ kind: "clear" });
  }

  private async handle(message: PageMessage): Promise<void> {
    switch (message.type) {
      case "ready":
        this.postContext();
        return;
      case "ask":
        return this.ask(message.askId, message.text);
      case "stop":
        if (this.client !== undefined && this.sessionId !== undefined)
          await this.client.request("turn/interrupt", { sessionId: this.sessionId });
        return;
      case "new-chat":
        this.newChat();
        return;
      case "approve":
      case "deny":
        if (this.client === undefined || this.sessionId === undefined) return;
        await this.client.request("approval/respond", {
          sessionId: this.sessionId,
          approvalId: message.approvalId,
          decision: message.type,
        });
        return;
      case "copy":
        await vscode.env.clipboard.writeText(message.text);
        return;
      case "insert":
        return this.insert(message.text);
      case "open-link":
        if (/^https?:\/\//i.test(message.href))
          await vscode.env.openExternal(vscode.Uri.parse(message.href));
        return;
      default:
        return message satisfies never;
    }
  }

  private async ask(askId: number, text: string): Promise<void> {
    this.post({ kind: "ask-state", askId, state: "connecting" });
    try {
      const { client, sessionId } = await this.session();
      await withTimeout("turn/start", (signal) =>
        client.request(
          "turn/start",
          { sessionId, text: questionWithContext(text, this.editorContext()) },
          { signal },
        ),
      );
      this.shownSessionId = sessionId;
      this.post({ kind: "ask-state", askId, state: "sent" });
    } catch (error) {
      this.post({ kind: "ask-state", askId, state: "failed", text: messageOf(error) });
      this.failures.explicit(error, "Ask Spark", { shownElsewhere: true });
    }
  }

  private async session(): Promise<{ client: AgentProtocolClient; sessionId: string }> {
    let client = this.client;
    if (client === undefined || client.isClosed) {
      // The `ws` package, not a global WebSocket: VS Code's Node 20 extension hosts have none.
      client = await connectAgent(this.settings.server(), WebSocket);
      this.attach(client);
      this.sessionId = undefined;
    }
    if (this.sessionId !== undefined) return { client, sessionId: this.sessionId };
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const model = this.settings.agentModel;
    const started = client;
    const { session } = await withTimeout("session/start", (signal) =>
      started.request(
        "session/start",
        { ...(cwd === undefined ? {} : { cwd }), ...(model === undefined ? {} : { model }) },
        { signal },
      ),
    );
    this.sessionId = session.sessionId;
    const label = `session ${session.sessionId}${session.model ? ` · ${session.model}` : ""}`;
    if (this.shownSessionId !== undefined && this.shownSessionId !== session.sessionId)
      this.post({
        kind: "session-break",
        text: `New ${label}: spark serve restarted or the connection dropped, so Spark does not know the conversation above.`,
      });
    else this.post({ kind: "status", text: label });
    return { client, sessionId: session.sessionId };
  }

  private attach(client: AgentProtocolClient): void {
    this.client = client;
    client.onSessionEvent((notification) => {
      if (notification.sessionId !== this.sessionId) return;
      const entry = transcriptEntryFor(notification.event);
      if (entry !== undefined) this.post(entry);
    });
    client.onClose(() => {
      if (this.client !== client) return;
      this.client = undefined;
      this.post({ kind: "busy", busy: false });
      this.post({ kind: "status", text: "disconnected from spark serve" });
    });
  }

  private disconnect(): void {
    const client = this.client;
    this.client = undefined;
    client?.close();
  }

  private async insert(text: string): Promise<void> {
    const editor = this.editor;
    if (editor === undefined || editor.document.isClosed) {
      void vscode.window.showInformationMessage("Open a file to insert Spark's code into.");
      return;
    }
    const shown = await vscode.window.showTextDocument(editor.document, editor.viewColumn);
    const atLineStart = shown.selection.start.character === 0;
    await shown.edit((builder) => builder.replace(shown.selection, insertText(text, atLineStart)));
  }

  private editorContext(): EditorContext | undefined {
    const editor = this.editor;
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

  private postContext(): void {
    const description = describeContext(this.editorContext());
    this.post({ kind: "context", text: description === "" ? "" : `Context: ${description}` });
  }

  private post(message: HostMessage): void {
    void this.view?.webview.postMessage(message);
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.client?.close();
  }
}

async function withTimeout<Result>(
  method: string,
  run: (signal: AbortSignal) => Promise<Result>,
): Promise<Result> {
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  try {
    return await run(signal);
  } catch (error) {
    if (signal.aborted)
      throw new SparkClientError(
        "timeout",
        `spark serve did not answer ${method} within ${REQUEST_TIMEOUT_MS / 1000} s.`,
        { cause: error },
      );
    throw error;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
