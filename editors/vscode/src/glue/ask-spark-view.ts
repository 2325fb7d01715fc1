// The "Ask Spark" webview: a prompt box and a transcript, attached to one agent session through
// /v1/agent (the same sessions the terminal UI and browser show). A question carries the active
// file and selection; connecting and sending time out and say why; a wrong key is named as one;
// a session that is new after a restart or a dropped connection is marked as a break. The session
// is remembered in the workspace's state: after a window reload the view attaches to it again and
// shows the conversation the server replays.
import * as vscode from "vscode";
import type { AgentProtocolClient } from "../../../../src/protocol/agent/index.ts";
import { WebSocket } from "ws";
import { connectAgent } from "../core/agent-connection.ts";
import {
  describeAttached,
  describeContext,
  questionWithContext,
  type EditorContext,
} from "../core/ask-context.ts";
import { questionWithFiles } from "../core/ask-files.ts";
import { parsePageMessage, type HostMessage, type PageMessage } from "../core/ask-messages.ts";
import { foldReplayedEvent, replayHistory } from "../core/ask-replay.ts";
import { emptyAskTranscript, foldAskEvent, type AskTranscript } from "../core/ask-transcript.ts";
import { SparkClientError } from "../core/spark-client-error.ts";
import { applyCode, editorContextOf, insertCode, type ProposeEdit } from "./ask-editor-actions.ts";
import { askSparkHtml } from "./ask-spark-html.ts";
import type { FailureReporter } from "./failure-reporter.ts";
import type { SparkSettings } from "./settings.ts";

/** Documents a question may carry: files, not output panes or Spark's own proposals. */
const CONTEXT_SCHEMES = new Set(["file", "untitled", "vscode-remote"]);

/** session/start and turn/start answer at once on a live server. */
const REQUEST_TIMEOUT_MS = 10_000;

/** The workspace state key of the session the view shows, to attach to it after a reload. */
const SESSION_KEY = "spark.askSessionId";

export class AskSparkView implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private client: AgentProtocolClient | undefined;
  private sessionId: string | undefined;
  /** The transcript shows a conversation with this session (undefined after New chat). */
  private shownSessionId: string | undefined;
  private editor: vscode.TextEditor | undefined;
  /** Selections "Add Selection to Ask" pinned: the next question carries them, then they go. */
  private attached: EditorContext[] = [];
  /** Events are those a session/attach replays: questions are shown from turn-started. */
  private replaying = false;
  /** The shown session's events, folded: what the page has been told. */
  private transcript: AskTranscript = emptyAskTranscript;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly settings: SparkSettings,
    private readonly failures: FailureReporter,
    private readonly workspaceState: vscode.Memento,
    /** Offers code as a pending edit (the quick edit's diff, ✓/✗ and keys). */
    private readonly propose: ProposeEdit,
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

  /** Shows the panel and puts the cursor in its box (Ctrl+Alt+L). */
  async focus(): Promise<void> {
    await vscode.commands.executeCommand("spark.ask.focus");
    this.post({ kind: "focus-prompt" });
  }

  /** Pins the editor's selection to the next question, whatever is selected when it is sent. */
  async addSelection(): Promise<void> {
    const context = editorContextOf(this.editor);
    if (context?.selection !== undefined) {
      this.attached.push(context);
      this.postContext();
    }
    await this.focus();
  }

  /** Clears the transcript; the next question starts a new session. */
  newChat(): void {
    if (this.client !== undefined && this.sessionId !== undefined)
      void this.client.request("turn/interrupt", { sessionId: this.sessionId }).catch(() => {});
    this.sessionId = undefined;
    this.shownSessionId = undefined;
    this.transcript = emptyAskTranscript;
    void this.workspaceState.update(SESSION_KEY, undefined);
    this.post({ kind: "clear" });
  }

  private async handle(message: PageMessage): Promise<void> {
    switch (message.type) {
      case "ready": {
        this.postContext();
        // A new page (the window was reloaded): the conversation it showed is the server's.
        const remembered = this.workspaceState.get<string>(SESSION_KEY);
        if (this.shownSessionId === undefined && remembered !== undefined)
          await this.restore(remembered);
        return;
      }
      case "ask":
        return this.ask(message.askId, message.text, message.files);
      case "find-files":
        return this.findFiles(message.requestId, message.query);
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
        return insertCode(this.editor, message.text);
      case "apply":
        return applyCode(this.editor, message.text, this.propose);
      case "open-link":
        if (/^https?:\/\//i.test(message.href))
          await vscode.env.openExternal(vscode.Uri.parse(message.href));
        return;
      default:
        return message satisfies never;
    }
  }

  /** Workspace files for an `@` mention, from the session's workspace (none when it fails). */
  private async findFiles(requestId: number, query: string): Promise<void> {
    let files: string[] = [];
    try {
      const { client, sessionId } = await this.session();
      const result = await withTimeout("workspace/files", (signal) =>
        client.request("workspace/files", { sessionId, query, limit: 20 }, { signal }),
      );
      files = [...result.files];
    } catch {
      // The list stays empty: the question can still be sent without a file.
    }
    this.post({ kind: "files", requestId, files });
  }

  private async ask(askId: number, text: string, files: readonly string[]): Promise<void> {
    this.post({ kind: "ask-state", askId, state: "connecting" });
    try {
      const { client, sessionId } = await this.session();
      await withTimeout("turn/start", (signal) =>
        client.request(
          "turn/start",
          {
            sessionId,
            text: questionWithFiles(
              questionWithContext(text, editorContextOf(this.editor), this.attached),
              files,
            ),
          },
          { signal },
        ),
      );
      this.shownSessionId = sessionId;
      this.attached = [];
      this.postContext();
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
    this.transcript = emptyAskTranscript;
    void this.workspaceState.update(SESSION_KEY, session.sessionId);
    const label = `session ${session.sessionId}${session.model ? ` · ${session.model}` : ""}`;
    if (this.shownSessionId !== undefined && this.shownSessionId !== session.sessionId)
      this.post({
        kind: "session-break",
        text: `New ${label}: spark serve restarted or the connection dropped, so Spark does not know the conversation above.`,
      });
    else this.post({ kind: "status", text: label });
    return { client, sessionId: session.sessionId };
  }

  /**
   * Attaches to the session the view showed before the window reloaded, from its first event: a
   * live session replays its events, one the server read back from its log (the server restarted)
   * answers with them. A session the server no longer has is forgotten; the next question starts
   * a new one.
   */
  private async restore(sessionId: string): Promise<void> {
    try {
      const client = await connectAgent(this.settings.server(), WebSocket);
      this.attach(client);
      this.sessionId = sessionId;
      this.transcript = emptyAskTranscript;
      this.replaying = true;
      const result = await withTimeout("session/attach", (signal) =>
        client.request("session/attach", { sessionId, lastSequence: 0 }, { signal }),
      );
      const replay = replayHistory(result.historyEvents ?? [], this.transcript);
      this.transcript = replay.transcript;
      for (const entry of replay.entries) this.post(entry);
      this.shownSessionId = sessionId;
      const model = result.session.model;
      this.post({ kind: "status", text: `session ${sessionId}${model ? ` · ${model}` : ""}` });
    } catch {
      if (this.sessionId === sessionId) this.sessionId = undefined;
      void this.workspaceState.update(SESSION_KEY, undefined);
    } finally {
      this.replaying = false;
    }
  }

  private attach(client: AgentProtocolClient): void {
    this.client = client;
    client.onSessionEvent((notification) => {
      if (notification.sessionId !== this.sessionId) return;
      const folded = this.replaying
        ? foldReplayedEvent(this.transcript, notification.event)
        : foldAskEvent(this.transcript, notification.event);
      this.transcript = folded.transcript;
      for (const entry of folded.entries) this.post(entry);
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

  private postContext(): void {
    const description = describeContext(editorContextOf(this.editor));
    const attached = describeAttached(this.attached);
    const parts = [
      ...(description === "" ? [] : [`Context: ${description}`]),
      ...(attached === "" ? [] : [`Attached: ${attached}`]),
    ];
    this.post({ kind: "context", text: parts.join(" · ") });
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
