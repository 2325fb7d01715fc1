// `spark serve`: the Responses-compatible gateway (WebSocket + HTTP) over the configured models.
import type { Command } from "commander";
import { createGateway } from "../../gateway/index.ts";
import { gatewayModelsFromRegistry } from "../../router/registry-gateway-models.ts";
import { createCliContext } from "../cli-context.ts";
import { openBrowser } from "../open-browser.ts";

interface ServeFlags {
  model?: string;
  host?: string;
  port?: string;
  threads?: string;
  open?: boolean;
}

export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("Serve the OpenAI Responses API (WebSocket and HTTP) and Chat Completions")
    .option("-m, --model <model>", "default model: a configured name or a path to a .gguf file")
    .option("--host <host>", "address to bind (non-loopback requires api_keys)")
    .option("--port <port>", "port to listen on")
    .option("--threads <n>", "CPU threads for the embedded engine")
    .option("--open", "open the browser app in the default browser")
    .action(async (flags: ServeFlags) => {
      const { config, registry } = await createCliContext({
        ...(flags.model === undefined ? {} : { model: flags.model }),
        ...(flags.host === undefined ? {} : { host: flags.host }),
        ...(flags.port === undefined ? {} : { port: flags.port }),
        ...(flags.threads === undefined ? {} : { threads: flags.threads }),
      });
      const defaultModel = registry.defaultModelName;
      const gateway = createGateway({
        models: gatewayModelsFromRegistry(registry),
        config: { ...config.serve, ...(defaultModel === undefined ? {} : { defaultModel }) },
      });
      const { url } = await gateway.listen();
      // Load the default model now so the first request does not pay for it.
      if (defaultModel !== undefined) await registry.engineFor(defaultModel);
      process.stderr.write(`spark serve listening on ${url} (model ${defaultModel ?? "none"})\n`);
      process.stderr.write(
        `  WebSocket ${url.replace(/^http/, "ws")}/v1/responses, HTTP ${url}/v1\n`,
      );
      process.stderr.write(`  Browser app ${url}/\n`);
      if (flags.open === true) openBrowser(`${url}/`, (line) => process.stderr.write(`${line}\n`));
      await new Promise<void>((resolve) => {
        const stop = (): void => resolve();
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
      await gateway.close();
      await registry.dispose();
    });
}
