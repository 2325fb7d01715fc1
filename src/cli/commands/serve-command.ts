// `spark serve`: the Responses-compatible gateway (WebSocket + HTTP) over the configured models,
// and on the same port the agent protocol at /v1/agent for the terminal, browser and editor.
import path from "node:path";
import { resolveCommandSandbox } from "../../agent/sandbox/resolve-command-sandbox.ts";
import type { Command } from "commander";
import { projectConfigAnnouncements } from "../../config/project-config-announcement.ts";
import { describeStore } from "../../gateway/store/open-gateway-store.ts";
import { AGENT_PROTOCOL_PATH } from "../../protocol/agent/agent-methods.ts";
import { createHostContext } from "../../host/host-context.ts";
import { openBrowser } from "../open-browser.ts";
import { startServe } from "../start-serve.ts";

interface ServeFlags {
  model?: string;
  host?: string;
  port?: string;
  threads?: string;
  store?: string;
  workspaceRoot: string[];
  open?: boolean;
}

export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description(
      "Serve the OpenAI Responses API (WebSocket and HTTP), Chat Completions, and the agent protocol",
    )
    .option("-m, --model <model>", "default model: a configured name or a path to a .gguf file")
    .option("--host <host>", "address to bind (non-loopback requires api_keys)")
    .option("--port <port>", "port to listen on")
    .option("--threads <n>", "CPU threads for the embedded engine")
    .option(
      "--store <url>",
      "share stored responses, limits and responses in flight with other replicas: redis://host:port[/db]",
    )
    .option(
      "--workspace-root <dir>",
      "a directory agent sessions may work in (repeatable; default: [agent] workspace_roots, else the current directory)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--open", "open the browser app in the default browser")
    .action(async (flags: ServeFlags) => {
      const context = await createHostContext({
        ...(flags.model === undefined ? {} : { model: flags.model }),
        ...(flags.host === undefined ? {} : { host: flags.host }),
        ...(flags.port === undefined ? {} : { port: flags.port }),
        ...(flags.threads === undefined ? {} : { threads: flags.threads }),
        ...(flags.store === undefined ? {} : { store: flags.store }),
      });
      const { config, registry } = context;
      // Logged first: every session this server runs uses what a repository's own config chose.
      for (const line of projectConfigAnnouncements(config, process.cwd()))
        process.stderr.write(`spark: ${line}\n`);
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
      });
      const { url } = server;
      // Load the default route's first model now so the first request does not pay for it.
      if (defaultModel !== undefined) await context.router.load(defaultModel);
      const webSocketUrl = url.replace(/^http/, "ws");
      process.stderr.write(`spark serve listening on ${url} (model ${defaultModel ?? "none"})\n`);
      process.stderr.write(`  WebSocket ${webSocketUrl}/v1/responses, HTTP ${url}/v1\n`);
      process.stderr.write(
        `  Agent protocol ${webSocketUrl}${AGENT_PROTOCOL_PATH} (workspace roots: ${workspaceRoots.join(", ")})\n`,
      );
      process.stderr.write(`  Browser app ${url}/\n`);
      process.stderr.write(
        `  Store: ${describeStore(server.gateway.store, server.gateway.config)}\n`,
      );
      // Detection is cached per process: this is the sandbox the agent sessions got.
      const commandSandbox = await resolveCommandSandbox(config.sandbox);
      process.stderr.write(`  Command sandbox: ${commandSandbox.description}\n`);
      if (flags.open === true) openBrowser(`${url}/`, (line) => process.stderr.write(`${line}\n`));
      await new Promise<void>((resolve) => {
        const stop = (): void => resolve();
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
      await server.close();
      await registry.dispose();
    });
}
