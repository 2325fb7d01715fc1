// A model's chat template as llama-server takes it: the GGUF's tokenizer.chat_template (or its
// "tool_use" variant), or a file the user configured (`chat_template = "path.jinja"`, llama-server's
// --chat-template-file), with the BOS and EOS tokens' text the template may print.
import { readFile } from "node:fs/promises";
import { readGgufFileInfo } from "node-llama-cpp";
import { SparkError } from "../../../protocol/spark-error.ts";

export interface ModelChatTemplate {
  source: string;
  /** Where the template came from: the GGUF or the configured file. */
  origin: string;
  bosToken: string;
  eosToken: string;
}

interface TokenizerMetadata {
  chat_template?: unknown;
  "chat_template.tool_use"?: unknown;
  ggml?: { tokens?: unknown; bos_token_id?: unknown; eos_token_id?: unknown };
}

/** Reads only the metadata (no tensor info, no weights). */
export async function readModelChatTemplate(
  modelPath: string,
  templateFile?: string,
): Promise<ModelChatTemplate> {
  let info;
  try {
    info = await readGgufFileInfo(modelPath, {
      readTensorInfo: false,
      logWarnings: false,
      sourceType: "filesystem",
    });
  } catch (error) {
    throw new SparkError("model_load_failed", `Could not read ${modelPath}: ${String(error)}`, {
      cause: error,
    });
  }
  const tokenizer = (info.metadata as { tokenizer?: TokenizerMetadata }).tokenizer ?? {};
  const tokens = Array.isArray(tokenizer.ggml?.tokens) ? (tokenizer.ggml.tokens as unknown[]) : [];
  const tokenText = (id: unknown): string =>
    typeof id === "number" && typeof tokens[id] === "string" ? tokens[id] : "";
  const tokenTexts = {
    bosToken: tokenText(tokenizer.ggml?.bos_token_id),
    eosToken: tokenText(tokenizer.ggml?.eos_token_id),
  };
  if (templateFile !== undefined) {
    try {
      return { source: await readFile(templateFile, "utf8"), origin: templateFile, ...tokenTexts };
    } catch (error) {
      throw new SparkError(
        "invalid_config",
        `Could not read the chat template ${templateFile}: ${String(error)}`,
        { cause: error },
      );
    }
  }
  const embedded = typeof tokenizer.chat_template === "string" ? tokenizer.chat_template : "";
  const toolUse =
    typeof tokenizer["chat_template.tool_use"] === "string"
      ? tokenizer["chat_template.tool_use"]
      : "";
  // As llama.cpp's common_chat_templates_init: no template (or "chatml") takes the tool_use one,
  // and without either ChatML (the addon's default for an empty source).
  const source = (embedded === "" || embedded === "chatml") && toolUse !== "" ? toolUse : embedded;
  return { source, origin: `${modelPath} (tokenizer.chat_template)`, ...tokenTexts };
}
