// What `spark serve` runs: the gateway over the registry's models and, on the same port, the app
// server at /v1/agent behind its own handshake checks. Tests start it the same way.
import { createAgentUpgrade } from "../app-server/agent-upgrade.ts";
import type { AppServer } from "../app-server/app-server.ts";
import { createLocalAppServer } from "../app-server/create-local-app-server.ts";
import { createGateway, type Gateway } from "../gateway/index.ts";
import type { ServeConfig } from "../gateway/serve-config.ts";
import { AGENT_PROTOCOL_PATH } from "../protocol/agent/agent-methods.ts";
import { gatewayModelsFromRegistry } from "../router/registry-gateway-models.ts";
import type { CliContext } from "./cli-context.ts";

/** Bind addresses that name no host a browser would use. */
const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]"]);

export interface ServeOptions {
  context: CliContext;
  workspaceRoots: string[];
  /** The --model flag as given (a name, a .gguf path or script:<file.jsonl>). */
  defaultModel?: string;
  /** Overrides of the configured [serve] settings (tests: port 0). */
  serve?: Partial<ServeConfig>;
  /** For tests: the system message of new agent sessions. */
  instructions?: string;
}

export interface RunningServe {
  url: string;
  gateway: Gateway;
  appServer: AppServer;
  close(): Promise<void>;
}

export async function startServe(options: ServeOptions): Promise<RunningServe> {
  const { config, registry } = options.context;
  const serve = { ...config.serve, ...options.serve };
  const defaultModel = registry.defaultModelName;
  const appServer = await createLocalAppServer({
    context: options.context,
    workspaceRoots: options.workspaceRoots,
    ...(options.defaultModel === undefined ? {} : { defaultModel: options.defaultModel }),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  });
  const agentUpgrade = createAgentUpgrade({
    appServer,
    apiKeys: serve.apiKeys,
    allowedOrigins: serve.allowedOrigins,
    allowedHosts: WILDCARD_HOSTS.has(serve.host) ? [] : [serve.host],
  });
  const gateway = createGateway({
    models: gatewayModelsFromRegistry(registry),
    config: { ...serve, ...(defaultModel === undefined ? {} : { defaultModel }) },
    webSocketRoutes: { [AGENT_PROTOCOL_PATH]: agentUpgrade.handleUpgrade },
  });
  let url: string;
  try {
    ({ url } = await gateway.listen());
  } catch (error) {
    await appServer.close();
    throw error;
  }
  return {
    url,
    gateway,
    appServer,
    async close() {
      // Sessions first (their turns end, their logs close), then the sockets and the port.
      await appServer.close();
      agentUpgrade.close();
      await gateway.close();
    },
  };
}
