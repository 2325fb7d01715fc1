// Spark for VS Code: wires the core (completions, quick edit, agent connection) into VS Code's
// APIs. Everything that can be tested without VS Code lives in ./core.
import * as vscode from "vscode";
import { InlineCompletionEngine } from "./core/inline-completion-engine.ts";
import { SparkClientError } from "./core/spark-client-error.ts";
import { AskSparkView } from "./glue/ask-spark-view.ts";
import { EDIT_SCHEME, EditDocuments } from "./glue/edit-documents.ts";
import { SparkInlineCompletionProvider } from "./glue/inline-completion-provider.ts";
import { QuickEdit } from "./glue/quick-edit.ts";
import { ServerLauncher } from "./glue/server-launcher.ts";
import { SparkSettings } from "./glue/settings.ts";
import { SparkStatusBar } from "./glue/status-bar.ts";

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const settings = new SparkSettings(context.secrets);
  await settings.load();
  const statusBar = new SparkStatusBar();
  const launcher = new ServerLauncher(settings);
  const engine = new InlineCompletionEngine({
    server: () => settings.server(),
    model: () => settings.completionModel,
    onOutcome: (outcome) => {
      if (outcome.source === "network" && outcome.latencyMs !== undefined)
        statusBar.showLatency(settings.completionModel, outcome.latencyMs);
    },
    onError: (error) => {
      statusBar.showProblem(error instanceof Error ? error.message : String(error));
      if (error instanceof SparkClientError && error.code === "server_unreachable")
        void launcher.offerOnce(error.message);
    },
  });
  const documents = new EditDocuments();
  const quickEdit = new QuickEdit(settings, documents, launcher);
  const askView = new AskSparkView(settings, launcher);

  context.subscriptions.push(
    statusBar,
    documents,
    askView,
    { dispose: () => engine.cancel() },
    vscode.languages.registerInlineCompletionItemProvider(
      { pattern: "**" },
      new SparkInlineCompletionProvider(engine, settings),
    ),
    vscode.workspace.registerTextDocumentContentProvider(EDIT_SCHEME, documents),
    vscode.window.registerWebviewViewProvider("spark.ask", askView, {
      webviewOptions: { retainContextWhenHidden: true },
    }),
    vscode.commands.registerCommand("spark.quickEdit", () => quickEdit.run()),
    vscode.commands.registerCommand("spark.acceptEdit", () => quickEdit.accept()),
    vscode.commands.registerCommand("spark.rejectEdit", () => quickEdit.reject()),
    vscode.commands.registerCommand("spark.cancelEdit", () => quickEdit.cancel()),
    vscode.commands.registerCommand("spark.startServer", () => launcher.start()),
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
      await configuration.update("enableCompletions", enabled, vscode.ConfigurationTarget.Global);
      if (enabled) statusBar.showLatency(settings.completionModel, engine.debounceDelayMs);
      else statusBar.showDisabled();
    }),
  );
  if (!(await launcher.isUp()))
    void launcher.offerOnce(`No Spark server answers at ${settings.serverUrl}.`);
}

export function deactivate(): void {}
