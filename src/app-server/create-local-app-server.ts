// The app server over this process's models: what `spark serve` hosts at /v1/agent and what the
// terminal UI runs in-process. Sessions reach their engines directly (InProcessModelClient).
import { McpServerManager } from "../agent/mcp/mcp-server-manager.ts";
import { resolveCommandSandbox } from "../agent/sandbox/resolve-command-sandbox.ts";
import { sessionsDirectory } from "../agent/session-store/session-directory.ts";
import type { HostContext } from "../host/host-context.ts";
import {
  isScriptModel,
  openClosableAgentModel,
  resolveScriptModel,
} from "../host/open-agent-model.ts";
import { SparkError } from "../protocol/spark-error.ts";
import { createAppServer, type AppServer, type AppServerModels } from "./app-server.ts";

export interface LocalAppServerOptions {
  context: HostContext;
  /** Default: the directory this process started in. */
  workspaceRoots?: string[];
  /** A configured name, a .gguf path or script:<file.jsonl>. */
  defaultModel?: string;
  /** Approve every run_command (like spark exec --allow-commands). */
  allowCommands?: boolean;
  /** For tests: the system message of new sessions. */
  instructions?: string;
  /** See AppServerOptions.unattendedSessionMs. */
  unattendedSessionMs?: number;
}

export async function createLocalAppServer(options: LocalAppServerOptions): Promise<AppServer> {
  const invokedIn = process.cwd();
  const { context } = options;
  // A .gguf path was turned into the registry's default model by the config layer.
  const defaultModel =
    options.defaultModel === undefined || options.defaultModel.toLowerCase().endsWith(".gguf")
      ? context.registry.defaultModelName
      : options.defaultModel;
  const defaultReference = resolveScriptModel(defaultModel, invokedIn);
  const isOffered = (name: string): boolean =>
    name === defaultModel ||
    name === defaultReference ||
    context.registry.entries().some((entry) => entry.name === name);
  const models: AppServerModels = {
    ...(defaultReference === undefined ? {} : { defaultModel: defaultReference }),
    async list() {
      const listed = context.registry
        .entries()
        .map(({ name, model }) => ({ id: name, engine: model.engine }));
      if (isScriptModel(defaultReference))
        listed.unshift({ id: defaultReference, engine: "script" });
      return listed;
    },
    async open(name) {
      // Clients name models from model/list only: a free-form script:<path> or .gguf path would
      // let any client make the server read files of its choosing.
      if (name !== undefined && !isOffered(name)) {
        throw new SparkError(
          "model_not_found",
          `This server does not offer the model "${name}"; model/list shows the ones it does.`,
        );
      }
      const requested = name ?? defaultReference;
      const opened = await openClosableAgentModel(context, requested, invokedIn);
      // A script keeps its whole reference, so a resumed session and model/list find it again.
      return isScriptModel(requested) ? { ...opened, name: requested } : opened;
    },
  };
  // Detected once here; each session's session-started event says what it is.
  const commandSandbox = await resolveCommandSandbox(context.config.sandbox);
  // Started in the background: sessions open at once and each server's tools join when ready.
  const mcp = new McpServerManager(Object.values(context.config.mcpServers ?? {}));
  mcp.start();
  const appServer = createAppServer({
    workspaceRoots: options.workspaceRoots ?? [invokedIn],
    sessionsDirectory: sessionsDirectory(context.config.sparkHome),
    models,
    ...(options.allowCommands === undefined ? {} : { allowCommands: options.allowCommands }),
    commandSandbox,
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    ...(options.unattendedSessionMs === undefined
      ? {}
      : { unattendedSessionMs: options.unattendedSessionMs }),
    mcp,
  });
  return {
    connect: (transport, tenant) => appServer.connect(transport, tenant),
    close: async () => {
      await appServer.close();
      await mcp.close();
    },
  };
}
