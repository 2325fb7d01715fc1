// `spark serve`'s server: the host, the gateway with the agent protocol on one port (or the
// --workers primary), the default model loaded, then serving until a signal drains it.
// commands/serve-command.ts loads it lazily.
import path from "node:path";
import { loadLines } from "../load-lines.ts";
import { resolveCommandSandbox } from "../../agent/sandbox/resolve-command-sandbox.ts";
import { projectConfigAnnouncements } from "../../config/project-config-announcement.ts";
import cluster from "node:cluster";
import { resolveServeConfig } from "../../gateway/serve-config.ts";
import { describeStore } from "../../gateway/store/open-gateway-store.ts";
import type { WorkerChannel } from "../../gateway/store/workers-store.ts";
import { AGENT_PROTOCOL_PATH } from "../../protocol/agent/agent-methods.ts";
import { createHostContext } from "../../host/host-context.ts";
import { openBrowser } from "../open-browser.ts";
import { isServeWorker, parseWorkers, runServePrimary } from "../serve-workers.ts";
import { reloadServe } from "../serve-reload.ts";
import { serveUntilSignalled } from "../serve-signals.ts";
import { startServe } from "../start-serve.ts";

export interface ServeFlags {
  model?: string;
  host?: string;
  port?: string;
  threads?: string;
  store?: string;
  workers?: string;
  workspaceRoot: string[];
  open?: boolean;
}

export async function runServe(flags: ServeFlags): Promise<void> {
  const configFlags = {
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.host === undefined ? {} : { host: flags.host }),
    ...(flags.port === undefined ? {} : { port: flags.port }),
    ...(flags.threads === undefined ? {} : { threads: flags.threads }),
    ...(flags.store === undefined ? {} : { store: flags.store }),
  };
  const context = await createHostContext(configFlags);
  const { config, registry } = context;
  const workers = parseWorkers(flags.workers);
  if (workers > 1 && !isServeWorker()) {
    // The primary only forks and holds the store; each worker runs everything below.
    process.exit(
      await runServePrimary(workers, resolveServeConfig(config.serve), (line) =>
        process.stderr.write(`${line}\n`),
      ),
    );
  }
  // A worker's banner would repeat N times: the first one's stands for all.
  const quiet = isServeWorker() && cluster.worker?.id !== 1;
  const write = (line: string): void => {
    if (!quiet) process.stderr.write(line);
  };
  // Logged first: every session this server runs uses what a repository's own config chose.
  for (const line of projectConfigAnnouncements(config, process.cwd())) write(`spark: ${line}\n`);
  const defaultModel = registry.defaultModelName;
  const workspaceRoots =
    flags.workspaceRoot.length > 0
      ? flags.workspaceRoot.map((root) => path.resolve(root))
      : config.agent.workspaceRoots.length > 0
        ? config.agent.workspaceRoots
        : [process.cwd()];
  const server = await startServe({
    context,
    workspaceRoots,
    ...(flags.model === undefined ? {} : { defaultModel: flags.model }),
    log: (line) => process.stderr.write(`${line}\n`),
    ...(isServeWorker() ? { workerChannel: processWorkerChannel() } : {}),
  });
  const { url } = server;
  // Load the default route's first model now so the first request does not pay for it;
  // /readyz says unready until it is.
  server.gateway.setModelLoaded(false);
  if (defaultModel !== undefined) {
    const loadedName = await context.router.load(defaultModel);
    for (const line of await loadLines(context.registry, loadedName)) write(`spark: ${line}\n`);
  }
  server.gateway.setModelLoaded(true);
  const webSocketUrl = url.replace(/^http/, "ws");
  write(`spark serve listening on ${url} (model ${defaultModel ?? "none"})\n`);
  write(`  WebSocket ${webSocketUrl}/v1/responses, HTTP ${url}/v1\n`);
  write(
    `  Agent protocol ${webSocketUrl}${AGENT_PROTOCOL_PATH} (workspace roots: ${workspaceRoots.join(", ")})\n`,
  );
  write(`  Browser app ${url}/\n`);
  write(`  Store: ${describeStore(server.gateway.store, server.gateway.config)}\n`);
  // Detection is cached per process: this is the sandbox the agent sessions got.
  const commandSandbox = await resolveCommandSandbox(config.sandbox);
  write(`  Command sandbox: ${commandSandbox.description}\n`);
  if (flags.open === true && !isServeWorker())
    openBrowser(`${url}/`, (line) => process.stderr.write(`${line}\n`));
  const graceMs = resolveServeConfig(config.serve).drainGraceSeconds * 1000;
  const exitCode = await serveUntilSignalled(server, {
    graceMs,
    log: (line) => process.stderr.write(`${line}\n`),
    reload: () => reloadServe({ server, context, flags: configFlags, retireAfterMs: graceMs }),
  });
  await registry.dispose();
  // Explicitly: a --workers worker's IPC channel would otherwise keep it alive.
  process.exit(exitCode);
}

/** A worker's IPC line to the primary (node:cluster's channel). */
function processWorkerChannel(): WorkerChannel {
  return {
    send: (message) => process.send?.(message),
    onMessage: (handler) => process.on("message", handler),
  };
}
