// Grammars by schema: an agent sends the same tools every step and a client the same output
// schema every request, so each compiles once.
import type { Llama, LlamaGrammar } from "node-llama-cpp";
import type { OutputFormat, ToolDefinition } from "../engine.ts";
import type { GrammarSearch } from "./native-loop/generation-loop-addon.ts";
import type { NativeGrammar } from "./native-loop/native-sequence.ts";
import { compileOutputFormatGrammar } from "./structured-output/output-format-grammar.ts";
import { grammarEndingAtValue, toolCallSchema } from "./tool-calls/tool-call-schema.ts";

const MAX_CACHED_GRAMMARS = 32;

export class GrammarCache {
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  /** Each tool-call grammar's GBNF as the native loop takes it, rewritten once per tool set. */
  private readonly nativeCallGrammars = new WeakMap<LlamaGrammar, NativeGrammar>();

  constructor(
    private readonly llama: Llama,
    /** How the native loop samples again after a refusal (the engine's grammarSearch option). */
    private readonly search?: GrammarSearch,
  ) {}

  /** A tool call's grammar (the tool-call JSON schema, as node-llama-cpp builds it). */
  grammarFor(schema: object): Promise<LlamaGrammar> {
    return this.cached(JSON.stringify(schema), () =>
      this.llama.createGrammarForJsonSchema(schema as never),
    );
  }

  /** The GBNF for one call of any of the tools, as the native loop takes it. */
  async nativeCallGrammar(tools: readonly ToolDefinition[]): Promise<NativeGrammar> {
    const grammar = await this.grammarFor(toolCallSchema(tools));
    let native = this.nativeCallGrammars.get(grammar);
    if (native === undefined) {
      native = {
        text: grammarEndingAtValue(grammar.grammar),
        root: grammar.rootRuleName,
        ...(this.search === undefined ? {} : { search: this.search }),
      };
      this.nativeCallGrammars.set(grammar, native);
    }
    return native;
  }

  /** A structured-output answer's grammar; rejects with invalid_request for a schema it cannot keep. */
  outputFormatGrammar(format: OutputFormat): Promise<LlamaGrammar> {
    // The name is not part of the grammar: two names for one schema share it.
    const key = `output-format ${format.type === "json_schema" ? JSON.stringify(format.schema) : format.type}`;
    return this.cached(key, () => compileOutputFormatGrammar(this.llama, format));
  }

  private cached(key: string, compile: () => Promise<LlamaGrammar>): Promise<LlamaGrammar> {
    let grammar = this.grammars.get(key);
    if (grammar === undefined) {
      grammar = compile();
      // A refusal is not kept: its message names the request's schema.
      grammar.catch(() => this.grammars.delete(key));
      if (this.grammars.size >= MAX_CACHED_GRAMMARS) this.grammars.clear();
      this.grammars.set(key, grammar);
    }
    return grammar;
  }
}
