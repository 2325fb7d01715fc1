// Tool-call grammars by schema: an agent sends the same tools every step, so each compiles once.
import type { Llama, LlamaGrammar } from "node-llama-cpp";

const MAX_CACHED_GRAMMARS = 32;

export class GrammarCache {
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();

  constructor(private readonly llama: Llama) {}

  grammarFor(schema: object): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let grammar = this.grammars.get(key);
    if (grammar === undefined) {
      grammar = this.llama.createGrammarForJsonSchema(schema as never);
      grammar.catch(() => this.grammars.delete(key));
      if (this.grammars.size >= MAX_CACHED_GRAMMARS) this.grammars.clear();
      this.grammars.set(key, grammar);
    }
    return grammar;
  }
}
