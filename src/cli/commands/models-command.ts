// `spark models` lists configured models and their engines; `spark pull` downloads a GGUF.
// Only the command line is here; both actions are actions/models-action.ts, loaded when they run.
import type { Command } from "commander";
import type { PullFlags } from "../actions/models-action.ts";

export function registerModelCommands(program: Command): void {
  program
    .command("models")
    .description("List configured models, their engines, and downloaded GGUF files")
    .option("--json", "print JSON")
    .action(async (flags: { json?: boolean }) => {
      const { listModels } = await import("../actions/models-action.ts");
      await listModels(flags);
    });

  program
    .command("pull")
    .description("Download a GGUF model into ~/.spark/models (resumable)")
    .argument("<reference>", "hf:user/repo:quant, hf:user/repo/file.gguf, or an https URL")
    .option("--sha256 <hex>", "expected sha256 of the file")
    .option("--force", "download again even if present")
    .action(async (reference: string, flags: PullFlags) => {
      const { pullModelCommand } = await import("../actions/models-action.ts");
      await pullModelCommand(reference, flags);
    });
}
