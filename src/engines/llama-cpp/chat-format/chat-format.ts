// A model's chat format as llama-server applies it (`--jinja`): its own template renders each
// request, and the PEG parser llama.cpp derives for that request (a per-family handler, or the
// auto-parser for templates it has none for) reads the output back into content, reasoning and
// tool calls. The same object serves the engine, `spark template` and the tests.
import type { ChatMessage, JsonSchema, ToolChoice, ToolDefinition } from "../../engine.ts";
import { SparkError } from "../../../protocol/spark-error.ts";
import type {
  AppliedTemplateJson,
  ChatFormatAddon,
  ParsedMessageJson,
  ParserHandle,
  TemplatesHandle,
} from "./chat-format-addon.ts";
import type { ModelChatTemplate } from "./model-chat-template.ts";
import { toTemplateMessages, toTemplateTools } from "./to-template-messages.ts";

export interface ChatFormatRequest {
  messages: readonly ChatMessage[];
  tools?: readonly ToolDefinition[];
  toolChoice?: ToolChoice;
  /** false: the call grammar allows one call (llama.cpp's parallel_tool_calls); default: the template's. */
  parallelToolCalls?: boolean;
  /** The last message is the assistant's answer so far: the prompt ends inside it. */
  continueFinalMessage?: boolean;
  /** Structured output: llama.cpp's json-schema-to-grammar constrains the answer. */
  jsonSchema?: JsonSchema;
  /**
   * The request's time, passed to llama.cpp (default now). This release's Jinja runtime reads the
   * clock itself for strftime_now (the machine's local date), so templates that print the date
   * (gpt-oss) show today whatever this says.
   */
  now?: Date;
  /** Templates with a thinking switch (Qwen3's enable_thinking); default on, as llama-server. */
  enableThinking?: boolean;
}

export type RenderedChat = AppliedTemplateJson;

export interface ParsedChatMessage {
  content: string;
  reasoning: string;
  /** `id` is the model's own (Kimi's functions.x:0, Mistral's 9 characters) or "". */
  toolCalls: { id: string; name: string; arguments: string }[];
}

export class ChatFormat {
  private constructor(
    private readonly addon: ChatFormatAddon,
    private readonly templates: TemplatesHandle,
    readonly template: ModelChatTemplate,
    /** The template's capabilities as llama.cpp probed them (supports_tool_calls, …). */
    readonly capabilities: Readonly<Record<string, boolean>>,
  ) {}

  /** llama.cpp's name for the format of a request with tools (peg-native, …), probed once. */
  get formatName(): string {
    this.probedFormat ??= probeFormatName(this);
    return this.probedFormat;
  }

  private probedFormat: string | undefined;

  /** Throws a SparkError (model_file_invalid) when the template does not parse. */
  static open(addon: ChatFormatAddon, template: ModelChatTemplate): ChatFormat {
    let templates: TemplatesHandle;
    try {
      templates = addon.openTemplates(template.source, template.bosToken, template.eosToken);
    } catch (error) {
      throw new SparkError(
        "model_file_invalid",
        `The chat template from ${template.origin} does not parse: ${errorMessage(error)}`,
        { cause: error },
      );
    }
    const capabilities = JSON.parse(addon.templateCapabilities(templates)) as Record<
      string,
      boolean
    >;
    return new ChatFormat(addon, templates, template, capabilities);
  }

  /**
   * Throws a SparkError (invalid_request) when the template refuses this request (a template's
   * raise_exception, e.g. roles that do not alternate), as llama-server answers it with a 400.
   */
  render(request: ChatFormatRequest): RenderedChat {
    const { tools, toolChoice } = toTemplateTools(request.tools ?? [], request.toolChoice);
    const body = {
      messages: toTemplateMessages(request.messages),
      ...(tools.length === 0 ? {} : { tools, tool_choice: toolChoice }),
      ...(tools.length === 0 || request.parallelToolCalls === undefined
        ? {}
        : { parallel_tool_calls: request.parallelToolCalls }),
      ...(request.continueFinalMessage === true
        ? { add_generation_prompt: false, continue_final_message: true }
        : {}),
      ...(request.jsonSchema === undefined ? {} : { json_schema: request.jsonSchema }),
      ...(request.enableThinking === undefined ? {} : { enable_thinking: request.enableThinking }),
      now: (request.now ?? new Date()).getTime(),
    };
    try {
      return JSON.parse(
        this.addon.applyTemplate(this.templates, JSON.stringify(body)),
      ) as RenderedChat;
    } catch (error) {
      throw new SparkError(
        "invalid_request",
        `The chat template from ${this.template.origin} failed to render: ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }

  /** A parser for the output of one rendered request (its tools decide what a call looks like). */
  parser(rendered: RenderedChat, options: { parseToolCalls?: boolean } = {}): ChatOutputParser {
    const handle = this.addon.openParser(
      JSON.stringify({
        formatId: rendered.formatId,
        parser: rendered.parser,
        generationPrompt: rendered.generationPrompt,
        reasoningFormat: "auto",
        parseToolCalls: options.parseToolCalls ?? true,
      }),
    );
    return new ChatOutputParser(this.addon, handle);
  }
}

export class ChatOutputParser {
  constructor(
    private readonly addon: ChatFormatAddon,
    private readonly handle: ParserHandle,
  ) {}

  /**
   * The whole output so far. `partial`: more may follow, so an unfinished call is left out or
   * given as far as it goes (as llama-server streams it); final: all of it must parse.
   */
  parse(text: string, partial: boolean): ParsedChatMessage {
    const parsed = JSON.parse(
      this.addon.parseOutput(this.handle, text, partial),
    ) as ParsedMessageJson;
    return {
      content: parsed.content,
      reasoning: parsed.reasoning_content,
      toolCalls: parsed.tool_calls,
    };
  }
}

function probeFormatName(format: ChatFormat): string {
  try {
    return format.render({
      messages: [{ role: "user", content: "probe" }],
      tools: [{ name: "probe", parameters: { type: "object", properties: {} } }],
    }).format;
  } catch {
    return "unknown";
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
