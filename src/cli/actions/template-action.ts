// `spark template render` and `spark template parse`: a model's chat format opened without its
// weights, a request rendered or an output parsed. commands/template-command.ts loads it lazily.
import { readFile } from "node:fs/promises";
import { openModelChatFormat } from "../../engines/llama-cpp/inspect.ts";
import { parsedOutputItems } from "../../engines/llama-cpp/inspect.ts";
import type { ChatFormat, RenderedChat } from "../../engines/llama-cpp/inspect.ts";
import { toEngineChatRequest } from "../../gateway/http/chat-request.ts";
import { chatCompletionRequestSchema } from "../../protocol/chat-completions.ts";
import { SparkError } from "../../protocol/spark-error.ts";

export interface TemplateFlags {
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

export async function renderTemplate(flags: TemplateFlags & { json?: boolean }): Promise<void> {
  const format = await openFormat(flags);
  const rendered = renderRequest(format, await readStandardInput(), "standard input");
  process.stdout.write(
    flags.json === true
      ? JSON.stringify({ ...rendered, parser: undefined }, null, 2) + "\n"
      : rendered.prompt,
  );
}

export async function parseTemplateOutput(
  flags: TemplateFlags & { request?: string },
): Promise<void> {
  const format = await openFormat(flags);
  const requestText =
    flags.request === undefined
      ? JSON.stringify({ messages: [{ role: "user", content: "" }] })
      : await readFile(flags.request, "utf8");
  const rendered = renderRequest(format, requestText, flags.request ?? "the empty request");
  const parsed = format.parser(rendered).parse(await readStandardInput(), false);
  process.stdout.write(
    JSON.stringify({ format: rendered.format, output: parsedOutputItems(parsed) }, null, 2) + "\n",
  );
}
