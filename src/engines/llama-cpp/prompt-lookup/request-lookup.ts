// Prompt lookup for one request: drafting from the prompt and the prediction when the request has
// one or speculation is on for every request, and the report once the request ended.
import type { LlamaModel, Token } from "node-llama-cpp";
import type { EngineRequest, Usage } from "../../engine.ts";
import type { SpeculationReport } from "../speculative-decode.ts";
import { PromptLookup } from "./prompt-lookup.ts";

export const DEFAULT_MAX_DRAFT_TOKENS = 16;

export interface RequestLookup {
  drafts: PromptLookup;
  history: Token[];
  lookupTokens: Token[];
}

export interface RequestLookupOptions {
  speculative?: boolean;
  maxDraftTokens?: number;
  onSpeculation?: (report: SpeculationReport) => void;
}

export class RequestLookups {
  /** Characters per token, for prompt lookup's minimum match length. */
  private readonly tokenCharacters = new Map<Token, number>();

  constructor(
    private readonly model: LlamaModel,
    private readonly options: RequestLookupOptions,
  ) {}

  /** Whether this request drafts with prompt lookup. */
  wants(request: EngineRequest): boolean {
    const hasPrediction = request.prediction !== undefined && request.prediction !== "";
    return hasPrediction || this.options.speculative === true;
  }

  for(request: EngineRequest, promptTokens: Token[]): RequestLookup | undefined {
    if (!this.wants(request)) return undefined;
    const prediction = request.prediction ?? "";
    const lookupTokens =
      prediction === "" ? promptTokens : [...promptTokens, ...this.model.tokenize(prediction)];
    const drafts = new PromptLookup(lookupTokens, promptTokens.length, {
      maxDraftTokens: this.options.maxDraftTokens ?? DEFAULT_MAX_DRAFT_TOKENS,
      tokenCharacters: (token) => this.charactersOf(token),
    });
    return { drafts, history: [...promptTokens], lookupTokens };
  }

  /** Counts accepted and rejected drafts into usage and tells onSpeculation. */
  report(lookup: RequestLookup, promptTokens: number, usage: Usage): void {
    const { statistics } = lookup.drafts;
    usage.acceptedPredictionTokens = statistics.acceptedTokens;
    usage.rejectedPredictionTokens = statistics.draftedTokens - statistics.acceptedTokens;
    this.options.onSpeculation?.({
      lookupTokens: lookup.lookupTokens,
      predictionStart: promptTokens,
      history: lookup.history,
      promptTokens,
      maxDraftTokens: this.options.maxDraftTokens ?? DEFAULT_MAX_DRAFT_TOKENS,
      statistics,
    });
  }

  private charactersOf(token: Token): number {
    let characters = this.tokenCharacters.get(token);
    if (characters === undefined) {
      characters = Math.max(1, this.model.detokenize([token]).length);
      this.tokenCharacters.set(token, characters);
    }
    return characters;
  }
}
