// `spark prompt "<text>"`: one streamed completion, tokens written as they arrive; --stats adds
// time to first token, decode speed, cached prompt tokens and the model's context on stderr.
// Only the command line is here; the completion is actions/prompt-action.ts, loaded when it runs.
import type { Command } from "commander";
import type { PromptFlags } from "../actions/prompt-action.ts";

export function registerPromptCommand(program: Command): void {
  program
    .command("prompt")
    .description("Stream one completion for a prompt")
    .argument("<text>", "the prompt")
    .option("-m, --model <model>", "configured model name or path to a .gguf file")
    .option("-s, --system <text>", "system message")
    .option("--max-tokens <n>", "maximum output tokens")
    .option("--temperature <t>", "sampling temperature")
    .option("--threads <n>", "CPU threads for the embedded engine")
    .option("--stats", "print time to first token, tokens/s and cached tokens")
    .action(async (text: string, flags: PromptFlags) => {
      // Loaded only now: the host, the router and the engines are for this command alone.
      const { runPrompt } = await import("../actions/prompt-action.ts");
      await runPrompt(text, flags);
    });
}
