// The "Ask Spark" webview: a prompt box and a transcript, attached to one agent session through
// /v1/agent (the same sessions the terminal UI and browser show). The page builds every entry with
// textContent; the extension side owns the protocol client.
import * as vscode from "vscode";
import type { AgentProtocolClient } from "../../../../src/protocol/agent/index.ts";
import { WebSocket } from "ws";
import { connectAgent } from "../core/agent-connection.ts";
import { transcriptEntryFor, type TranscriptEntry } from "../core/ask-transcript.ts";
import type { ServerLauncher } from "./server-launcher.ts";
import type { SparkSettings } from "./settings.ts";
import { askSparkHtml } from "./ask-spark-html.ts";

type PageMessage = { type: "ask"; text: string } | { type: "approve" | "deny"; approvalId: string };

export class AskSparkView implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private client: AgentProtocolClient | undefined;
  private sessionId: string | undefined;

  constructor(
    private readonly settings: SparkSettings,
    private readonly launcher: ServerLauncher,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: true, localResourceRoots: [] };
    view.webview.html = askSparkHtml(view.webview.cspSource);
    view.webview.onDidReceiveMessage((message: PageMessage) => {
      void this.handle(message).catch((error: unknown) =>
        this.post({ kind: "error", text: error instanceof Error ? error.message : String(error) }),
      );
    });
  }

  private async handle(message: PageMessage): Promise<void> {
    const client = await this.connect();
    if (client === undefined || this.sessionId === undefined) return;
    if (message.type === "ask") {
      await client.request("turn/start", { sessionId: this.sessionId, text: message.text });
      return;
    }
    await client.request("approval/respond", {
      sessionId: this.sessionId,
      approvalId: message.approvalId,
      decision: message.type === "approve" ? "approve" : "deny",
    });
  }

  private async connect(): Promise<AgentProtocolClient | undefined> {
    if (this.client !== undefined && !this.client.isClosed && this.sessionId !== undefined)
      return this.client;
    let client: AgentProtocolClient;
    try {
      // The `ws` package, not a global WebSocket: VS Code's Node 20 extension hosts have none.
      client = await connectAgent(this.settings.server(), WebSocket);
    } catch (error) {
      this.post({ kind: "error", text: error instanceof Error ? error.message : String(error) });
      await this.launcher.offerOnce("No Spark server answers.");
      return undefined;
    }
    this.client = client;
    client.onSessionEvent((notification) => {
      if (notification.sessionId !== this.sessionId) return;
      const entry = transcriptEntryFor(notification.event);
      if (entry !== undefined) this.post(entry);
    });
    client.onClose(() => this.post({ kind: "status", text: "disconnected from spark serve" }));
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const model = this.settings.agentModel;
    const { session } = await client.request("session/start", {
      ...(cwd === undefined ? {} : { cwd }),
      ...(model === undefined ? {} : { model }),
    });
    this.sessionId = session.sessionId;
    this.post({
      kind: "status",
      text: `session ${session.sessionId}${session.model ? ` · ${session.model}` : ""}`,
    });
    return client;
  }

  private post(entry: TranscriptEntry): void {
    void this.view?.webview.postMessage(entry);
  }

  dispose(): void {
    this.client?.close();
  }
}
