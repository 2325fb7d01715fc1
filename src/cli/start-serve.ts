// What `spark serve` runs: the gateway over the registry's models and, on the same port, the app
// server at /v1/agent behind its own handshake checks. Tests start it the same way.
import { createAgentUpgrade } from "../app-server/agent-upgrade.ts";
import type { AppServer } from "../app-server/app-server.ts";
import { createLocalAppServer } from "../app-server/create-local-app-server.ts";
import type { DrainOutcome } from "../gateway/gateway-drain.ts";
import { createGateway, type Gateway } from "../gateway/index.ts";
import type { LogWriter } from "../gateway/request-log.ts";
import { resolveServeConfig, type ServeConfig } from "../gateway/serve-config.ts";
import { openGatewayStore } from "../gateway/store/open-gateway-store.ts";
import type { WorkerChannel } from "../gateway/store/workers-store.ts";
import { AGENT_PROTOCOL_PATH } from "../protocol/agent/agent-methods.ts";
import { gatewayModelsFromRouter } from "../router/router-gateway-models.ts";
import type { HostContext } from "../host/host-context.ts";

/** Bind addresses that name no host a browser would use. */
const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]"]);

export interface ServeOptions {
  context: HostContext;
  workspaceRoots: string[];
  /** The --model flag as given (a name, a .gguf path or script:<file.jsonl>). */
  defaultModel?: string;
  /** Overrides of the configured [serve] settings (tests: port 0). */
  serve?: Partial<ServeConfig>;
  /** For tests: the system message of new agent sessions. */
  instructions?: string;
  /** The operator log (spark serve: stderr); none when absent. */
  log?: LogWriter;
  /** In a `--workers` worker: the line to the primary, which holds the store when there is no Redis. */
  workerChannel?: WorkerChannel;
}

export interface RunningServe {
  url: string;
  gateway: Gateway;
  appServer: AppServer;
  /** Graceful: unready, new work refused, responses in flight finish or are handed over. */
  drain(graceMs: number): Promise<DrainOutcome>;
  /** The keys of the gateway and of the agent protocol (a reload); see Gateway.setApiKeys. */
  setApiKeys(keys: readonly string[]): void;
  close(): Promise<void>;
}

export async function startServe(options: ServeOptions): Promise<RunningServe> {
  const { config, registry } = options.context;
  const serve = { ...config.serve, ...options.serve };
  const defaultModel = registry.defaultModelName;
  // First: a store that cannot be reached stops the start before anything else is opened.
  const store = await openGatewayStore({
    config: resolveServeConfig(serve),
    ...(options.log === undefined ? {} : { onStatus: options.log }),
    ...(options.workerChannel === undefined ? {} : { workerChannel: options.workerChannel }),
  });
  const appServer = await createLocalAppServer({
    context: options.context,
    workspaceRoots: options.workspaceRoots,
    ...(options.defaultModel === undefined ? {} : { defaultModel: options.defaultModel }),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  });
  // Read at each handshake, so a reload's keys apply to the agent protocol too.
  let agentKeys: readonly string[] = serve.apiKeys;
  const agentUpgrade = createAgentUpgrade({
    appServer,
    get apiKeys() {
      return agentKeys;
    },
    allowedOrigins: serve.allowedOrigins,
    allowedHosts: [...serve.allowedHosts, ...(WILDCARD_HOSTS.has(serve.host) ? [] : [serve.host])],
    bindHost: serve.host,
  });
  const gateway = createGateway({
    models: gatewayModelsFromRouter(options.context.router, registry),
    config: { ...serve, ...(defaultModel === undefined ? {} : { defaultModel }) },
    webSocketRoutes: { [AGENT_PROTOCOL_PATH]: agentUpgrade.handleUpgrade },
    store,
    ...(options.log === undefined ? {} : { log: options.log }),
  });
  let url: string;
  try {
    ({ url } = await gateway.listen());
  } catch (error) {
    await appServer.close();
    await gateway.close();
    throw error;
  }
  return {
    url,
    gateway,
    appServer,
    drain: (graceMs) => gateway.drain(graceMs),
    setApiKeys(keys) {
      gateway.setApiKeys(keys);
      agentKeys = [...keys];
    },
    async close() {
      // Sessions first (their turns end, their logs close), then the sockets and the port.
      await appServer.close();
      agentUpgrade.close();
      await gateway.close();
    },
  };
}
