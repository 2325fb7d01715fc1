// Grammars by schema: an agent sends the same tools every step and a client the same output
// schema every request, so each compiles once (its GBNF on a worker thread). A build every waiting
// request abandoned is stopped; one request's abort never fails another's wait.
import { LlamaText, type Llama, type LlamaGrammar } from "node-llama-cpp";
import type { OutputFormat, ToolDefinition } from "../engine.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import type { GrammarSearch } from "./native-loop/generation-loop-addon.ts";
import type { NativeGrammar } from "./native-loop/native-sequence.ts";
import { GbnfBuilder } from "./structured-output/gbnf-builder.ts";
import { checkGrammarRules } from "./structured-output/grammar-rule-budget.ts";
import { compileOutputFormatGrammar } from "./structured-output/output-format-grammar.ts";
import { grammarEndingAtValue, toolCallSchema } from "./tool-calls/tool-call-schema.ts";

const MAX_CACHED_GRAMMARS = 32;

interface CachedGrammar {
  grammar: Promise<LlamaGrammar>;
  /** Stops the build and forgets it; once every request waiting for it has gone. */
  abandon: () => void;
  /** Requests waiting that can still go away; Infinity once one that cannot (no signal) waits. */
  waiting: number;
  settled: boolean;
}

export class GrammarCache {
  private readonly grammars = new Map<string, CachedGrammar>();
  /** Each tool-call grammar's GBNF as the native loop takes it, rewritten once per tool set. */
  private readonly nativeCallGrammars = new WeakMap<LlamaGrammar, NativeGrammar>();
  private readonly builder = new GbnfBuilder();

  constructor(
    private readonly llama: Llama,
    /** How the native loop samples again after a refusal (the engine's grammarSearch option). */
    private readonly search?: GrammarSearch,
  ) {}

  /**
   * A tool call's grammar (the tool-call JSON schema, as node-llama-cpp's
   * createGrammarForJsonSchema builds it); rejects with `cancelled` when `signal` aborts first.
   */
  grammarFor(schema: object, signal?: AbortSignal): Promise<LlamaGrammar> {
    const compile = async (buildSignal: AbortSignal): Promise<LlamaGrammar> => {
      const text = await this.builder.build(schema, buildSignal);
      checkGrammarRules(text, "the tools' parameter schemas");
      return this.llama.createGrammar({
        grammar: text,
        stopGenerationTriggers: [LlamaText("\n".repeat(4))],
        trimWhitespaceSuffix: true,
      });
    };
    return this.cached(JSON.stringify(schema), compile, signal);
  }

  /** The GBNF for one call of any of the tools, as the native loop takes it. */
  async nativeCallGrammar(
    tools: readonly ToolDefinition[],
    signal?: AbortSignal,
  ): Promise<NativeGrammar> {
    const grammar = await this.grammarFor(toolCallSchema(tools), signal);
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
  outputFormatGrammar(format: OutputFormat, signal?: AbortSignal): Promise<LlamaGrammar> {
    // The name is not part of the grammar: two names for one schema share it.
    const key = `output-format ${format.type === "json_schema" ? JSON.stringify(format.schema) : format.type}`;
    return this.cached(
      key,
      (buildSignal) => compileOutputFormatGrammar(this.llama, this.builder, format, buildSignal),
      signal,
    );
  }

  async dispose(): Promise<void> {
    await this.builder.dispose();
  }

  private cached(
    key: string,
    compile: (signal: AbortSignal) => Promise<LlamaGrammar>,
    signal: AbortSignal | undefined,
  ): Promise<LlamaGrammar> {
    if (signal?.aborted === true) return Promise.reject(cancelledError());
    let entry = this.grammars.get(key);
    if (entry === undefined) {
      const build = new AbortController();
      const created: CachedGrammar = {
        grammar: compile(build.signal),
        abandon: () => {
          // Forgotten at once: a request arriving now starts a build of its own.
          if (this.grammars.get(key) === created) this.grammars.delete(key);
          build.abort();
        },
        waiting: 0,
        settled: false,
      };
      created.grammar.then(
        () => (created.settled = true),
        () => {
          created.settled = true;
          // A refusal is not kept: its message names the request's schema.
          if (this.grammars.get(key) === created) this.grammars.delete(key);
        },
      );
      if (this.grammars.size >= MAX_CACHED_GRAMMARS) this.grammars.clear();
      this.grammars.set(key, created);
      entry = created;
    }
    return waitFor(entry, signal);
  }
}

/** The entry's grammar for one request; its abort leaves the wait, and the last one the build. */
function waitFor(entry: CachedGrammar, signal: AbortSignal | undefined): Promise<LlamaGrammar> {
  if (signal === undefined) {
    entry.waiting = Infinity;
    return entry.grammar;
  }
  entry.waiting += 1;
  return new Promise<LlamaGrammar>((resolve, reject) => {
    const onAbort = (): void => {
      entry.waiting -= 1;
      if (entry.waiting === 0 && !entry.settled) entry.abandon();
      reject(cancelledError());
    };
    signal.addEventListener("abort", onAbort, { once: true });
    entry.grammar.then(
      (grammar) => {
        signal.removeEventListener("abort", onAbort);
        resolve(grammar);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(SparkError.from(error));
      },
    );
  });
}

function cancelledError(): SparkError {
  return new SparkError("cancelled", "The request was cancelled while its grammar was built.");
}
