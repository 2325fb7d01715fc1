// `spark serve`: the Responses-compatible gateway (WebSocket + HTTP) over the configured models,
// and on the same port the agent protocol at /v1/agent for the terminal, browser and editor.
// Only the command line is here; the server is actions/serve-action.ts, loaded when it runs.
import type { Command } from "commander";
import type { ServeFlags } from "../actions/serve-action.ts";

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
      "--workers <n>",
      'gateway processes on this one port (node cluster), or "auto" for one per core; they share the store',
    )
    .option(
      "--workspace-root <dir>",
      "a directory agent sessions may work in (repeatable; default: [agent] workspace_roots, else the current directory)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--open", "open the browser app in the default browser")
    .action(async (flags: ServeFlags) => {
      // Loaded only now: the gateway, the app server and the engines are for this command alone.
      const { runServe } = await import("../actions/serve-action.ts");
      await runServe(flags);
    });
}
