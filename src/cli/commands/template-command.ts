// `spark template render|parse --model <gguf>`: what the embedded engine makes of a model's chat
// format, without loading weights: the exact prompt text a Chat Completions request becomes, and
// the Responses output items a raw model output becomes. What a user runs when a model misbehaves.
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { openModelChatFormat } from "../../engines/llama-cpp/inspect.ts";
import { parsedOutputItems } from "../../engines/llama-cpp/inspect.ts";
import type { ChatFormat, RenderedChat } from "../../engines/llama-cpp/inspect.ts";
import { toEngineChatRequest } from "../../gateway/http/chat-request.ts";
import { chatCompletionRequestSchema } from "../../protocol/chat-completions.ts";
import { SparkError } from "../../protocol/spark-error.ts";

interface TemplateFlags {
  model: string;
  chatTemplate?: string;
}

async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function openFormat(flags: TemplateFlags): Promise<ChatFormat> {
  const opened = await openModelChatFormat(flags.model, {
    ...(flags.chatTemplate === undefined ? {} : { templateFile: flags.chatTemplate }),
  });
  if (opened.format === undefined) throw new SparkError("model_file_invalid", opened.reason);
  if (opened.toolsUnsupportedReason !== undefined)
    process.stderr.write(`spark: tools are off for this model: ${opened.toolsUnsupportedReason}\n`);
  return opened.format;
}

/** A Chat Completions body through the gateway's own conversion, then the engine's renderer. */
function renderRequest(format: ChatFormat, text: string, origin: string): RenderedChat {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SparkError("invalid_request", `${origin} is not JSON: ${String(error)}`);
  }
  const parsed = chatCompletionRequestSchema.safeParse(json);
  if (!parsed.success)
    throw new SparkError(
      "invalid_request",
      `${origin} is not a Chat Completions request: ${parsed.error.message}`,
    );
  const request = toEngineChatRequest(parsed.data, "template");
  return format.render({
    messages: request.messages,
    ...(request.tools === undefined ? {} : { tools: request.tools }),
    ...(request.toolChoice === undefined ? {} : { toolChoice: request.toolChoice }),
  });
}

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
      const format = await openFormat(flags);
      const rendered = renderRequest(format, await readStandardInput(), "standard input");
      process.stdout.write(
        flags.json === true
          ? JSON.stringify({ ...rendered, parser: undefined }, null, 2) + "\n"
          : rendered.prompt,
      );
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
      const format = await openFormat(flags);
      const requestText =
        flags.request === undefined
          ? JSON.stringify({ messages: [{ role: "user", content: "" }] })
          : await readFile(flags.request, "utf8");
      const rendered = renderRequest(format, requestText, flags.request ?? "the empty request");
      const parsed = format.parser(rendered).parse(await readStandardInput(), false);
      process.stdout.write(
        JSON.stringify({ format: rendered.format, output: parsedOutputItems(parsed) }, null, 2) +
          "\n",
      );
    });
}
