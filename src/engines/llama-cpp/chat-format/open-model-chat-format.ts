// Opens a model's chat format for the embedded engine and `spark template`: the addon, the
// template (the GGUF's or the configured file) and a probe that it renders a tool conversation,
// or the reason it cannot be used, which the caller reports at load instead of inventing a syntax.
import { SparkError } from "../../../protocol/spark-error.ts";
import { loadChatFormatAddon } from "./chat-format-addon.ts";
import { ChatFormat } from "./chat-format.ts";
import { readModelChatTemplate } from "./model-chat-template.ts";

export type ModelChatFormat =
  | {
      format: ChatFormat;
      /** Why tool calls are off for this model (its template has no tool format), if they are. */
      toolsUnsupportedReason: string | undefined;
    }
  | { format?: undefined; reason: string };

export async function openModelChatFormat(
  modelPath: string,
  options: { templateFile?: string; addonPath?: string } = {},
): Promise<ModelChatFormat> {
  const loaded = loadChatFormatAddon(options.addonPath);
  if (loaded.addon === undefined) return { reason: loaded.reason };
  try {
    const template = await readModelChatTemplate(modelPath, options.templateFile);
    const format = ChatFormat.open(loaded.addon, template);
    return { format, toolsUnsupportedReason: toolsUnsupportedReason(format) };
  } catch (error) {
    // A file that cannot be read is the caller's to report as it is; a template that does not
    // parse is a reason to serve without it.
    const sparkError = SparkError.from(error);
    if (sparkError.code !== "model_file_invalid") throw sparkError;
    return { reason: sparkError.message };
  }
}

/**
 * Tools are on when llama.cpp derives a call parser for a request with a tool (a per-family handler
 * or the auto-parser); a template's own capability probe misses templates such as DeepSeek V3.1's,
 * whose tools section llama.cpp's handler writes.
 */
function toolsUnsupportedReason(format: ChatFormat): string | undefined {
  const probe = {
    messages: [{ role: "user" as const, content: "probe" }],
    tools: [
      {
        name: "probe",
        parameters: { type: "object", properties: { value: { type: "string" } } },
      },
    ],
  };
  try {
    const rendered = format.render(probe);
    if (rendered.parser === "")
      return `llama.cpp derives no tool-call format from the chat template from ${format.template.origin} (format ${rendered.format})`;
    return undefined;
  } catch (error) {
    return SparkError.from(error).message;
  }
}
