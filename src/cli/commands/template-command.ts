// `spark template render|parse --model <gguf>`: what the embedded engine makes of a model's chat
// format, without loading weights: the exact prompt text a Chat Completions request becomes, and
// the Responses output items a raw model output becomes. What a user runs when a model misbehaves.
// Only the command line is here; both actions are actions/template-action.ts, loaded when they run.
import type { Command } from "commander";
import type { TemplateFlags } from "../actions/template-action.ts";

export function registerTemplateCommand(program: Command): void {
  const template = program
    .command("template")
    .description(
      "Show how the embedded engine renders and parses a model's chat format (no weights loaded)",
    );
  template
    .command("render")
    .description(
      "Read a Chat Completions request on stdin, print the prompt text the engine tokenizes",
    )
    .requiredOption(
      "--model <gguf>",
      "the model file (a vocab-only GGUF with a template is enough)",
    )
    .option(
      "--chat-template <file>",
      "a Jinja template file instead of the GGUF's (as chat_template in config)",
    )
    .option("--json", "print the whole rendering: prompt, format, grammar, triggers, stops")
    .action(async (flags: TemplateFlags & { json?: boolean }) => {
      const { renderTemplate } = await import("../actions/template-action.ts");
      await renderTemplate(flags);
    });
  template
    .command("parse")
    .description("Read a model's raw output on stdin, print the Responses output items (JSON)")
    .requiredOption(
      "--model <gguf>",
      "the model file (a vocab-only GGUF with a template is enough)",
    )
    .option(
      "--chat-template <file>",
      "a Jinja template file instead of the GGUF's (as chat_template in config)",
    )
    .option(
      "--request <file>",
      "the Chat Completions request the output answers (its tools decide what a call is)",
    )
    .action(async (flags: TemplateFlags & { request?: string }) => {
      const { parseTemplateOutput } = await import("../actions/template-action.ts");
      await parseTemplateOutput(flags);
    });
}
