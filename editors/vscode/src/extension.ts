// Spark for VS Code: wires the core (completions, quick edit, agent connection) into VS Code's
// APIs. Everything that can be tested without VS Code lives in ./core.
import * as vscode from "vscode";
import { InlineCompletionEngine } from "./core/inline-completion-engine.ts";
import { probeServer } from "./core/server-probe.ts";
import { AskSparkView } from "./glue/ask-spark-view.ts";
import { EDIT_SCHEME, EditDocuments } from "./glue/edit-documents.ts";
import { defaultMessage, FailureReporter } from "./glue/failure-reporter.ts";
import { SparkInlineCompletionProvider } from "./glue/inline-completion-provider.ts";
import { InlineReview } from "./glue/inline-review.ts";
import { QuickEdit } from "./glue/quick-edit.ts";
import { ServerLauncher } from "./glue/server-launcher.ts";
import { SparkSettings } from "./glue/settings.ts";
import { SparkStatusBar } from "./glue/status-bar.ts";

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const settings = new SparkSettings(context.secrets);
  await settings.load();
  const statusBar = new SparkStatusBar(settings);
  const launcher = new ServerLauncher(settings);
  const failures = new FailureReporter(settings, launcher);
  const engine = new InlineCompletionEngine({
    server: () => settings.server(),
    model: () => settings.completionModel,
    onOutcome: (outcome) => {
      if (outcome.source !== "network" || outcome.latencyMs === undefined) return;
      statusBar.showCompletion(outcome.model, outcome.latencyMs);
      failures.recovered();
    },
    onError: (error) => {
      statusBar.showProblem(error instanceof Error ? error.message : String(error));
      failures.background(error);
    },
  });
  const documents = new EditDocuments();
  const inlineReview = new InlineReview();
  const quickEdit = new QuickEdit(settings, documents, failures, inlineReview);
  const askView = new AskSparkView(
    context.extensionUri,
    settings,
    failures,
    context.workspaceState,
    (uri, range, text) => quickEdit.propose(uri, range, text),
  );
  const provider = new SparkInlineCompletionProvider(engine, settings);

  context.subscriptions.push(
    settings,
    statusBar,
    documents,
    askView,
    quickEdit,
    inlineReview,
    provider,
    { dispose: () => engine.cancel() },
    // New settings, a new key or a started server: the next keystroke asks without waiting out
    // the backoff of the failures before.
    settings.onDidChange(() => engine.resetBackoff()),
    launcher.onDidStart(() => engine.resetBackoff()),
    // A started server clears the "no server" warning now, not at the first completion.
    launcher.onDidStart(() => void checkServer(settings, statusBar, failures)),
    // Another server URL or key: say now whether it answers, not at the first keystroke.
    settings.onDidChange(() => void checkServer(settings, statusBar, failures)),
    vscode.languages.registerInlineCompletionItemProvider({ pattern: "**" }, provider),
    vscode.workspace.registerTextDocumentContentProvider(EDIT_SCHEME, documents),
    vscode.window.registerWebviewViewProvider("spark.ask", askView, {
      webviewOptions: { retainContextWhenHidden: true },
    }),
    vscode.commands.registerCommand("spark.quickEdit", () => quickEdit.run()),
    // A code lens names its hunk; a key (no argument) means the hunk under the cursor.
    // The keys (Ctrl+Y / Ctrl+N) are bound while spark.inlineReviewHunk says the cursor is on a
    // change, which the workbench learns a round trip after the cursor moved: pressed off a change,
    // they do what VS Code's own binding does (Redo; New File).
    vscode.commands.registerCommand("spark.acceptHunk", async (id?: number) => {
      if (typeof id === "number") return inlineReview.acceptHunk(id);
      if (!(await inlineReview.answerHunkAtCursor(true)) && process.platform !== "darwin")
        await vscode.commands.executeCommand("redo");
    }),
    vscode.commands.registerCommand("spark.rejectHunk", async (id?: number) => {
      if (typeof id === "number") return inlineReview.rejectHunk(id);
      if (!(await inlineReview.answerHunkAtCursor(false)))
        await vscode.commands.executeCommand("workbench.action.files.newUntitledFile");
    }),
    vscode.commands.registerCommand("spark.nextHunk", () => inlineReview.goToHunk(true)),
    vscode.commands.registerCommand("spark.previousHunk", () => inlineReview.goToHunk(false)),
    vscode.commands.registerCommand("spark.acceptInlineEdit", () => inlineReview.acceptAll()),
    vscode.commands.registerCommand("spark.rejectInlineEdit", () => inlineReview.rejectAll()),
    vscode.commands.registerCommand("spark.focusAsk", () => askView.focus()),
    vscode.commands.registerCommand("spark.addSelectionToAsk", () => askView.addSelection()),
    // Their keys are bound only while a proposal's editor has the focus (package.json reads the
    // workbench's own resourceScheme, current the moment the tab changes): no check here, where
    // the extension host's active editor lags the workbench (it changes again as the proposal's
    // language is set when it is offered, and a Ctrl+Enter then went unanswered).
    vscode.commands.registerCommand("spark.acceptEdit", () => quickEdit.accept()),
    vscode.commands.registerCommand("spark.rejectEdit", () => quickEdit.reject()),
    vscode.commands.registerCommand("spark.cancelEdit", () => quickEdit.cancel()),
    vscode.commands.registerCommand("spark.startServer", () => launcher.start()),
    vscode.commands.registerCommand("spark.newChat", () => askView.newChat()),
    vscode.commands.registerCommand("spark.setApiKey", async () => {
      const key = await vscode.window.showInputBox({
        title: "Spark API key",
        prompt: "The key spark serve expects (empty: none). Stored in VS Code's secret storage.",
        password: true,
      });
      if (key !== undefined) await settings.setApiKey(key);
    }),
    vscode.commands.registerCommand("spark.toggleCompletions", async () => {
      const configuration = vscode.workspace.getConfiguration("spark");
      const enabled = !configuration.get<boolean>("enableCompletions", true);
      // The status bar follows through the configuration change event.
      await configuration.update("enableCompletions", enabled, vscode.ConfigurationTarget.Global);
    }),
  );
  void checkServer(settings, statusBar, failures);
}

/** At startup: name the server's model in the status bar, or say why there is none. */
async function checkServer(
  settings: SparkSettings,
  statusBar: SparkStatusBar,
  failures: FailureReporter,
): Promise<void> {
  const probe = await probeServer(settings.server());
  if (probe.state === "up") statusBar.showServerModels(probe.models);
  else if (probe.state === "unauthorized" || probe.state === "unreachable") {
    const cause = probe.state === "unauthorized" ? "unauthorized" : "server_unreachable";
    statusBar.showProblem(defaultMessage(cause, settings.serverUrl));
    failures.backgroundCause(cause);
  }
}

export function deactivate(): void {}
