// Prompt lookup for one request: drafting from the prompt and the prediction when the request has
// one or speculation is on for every request, inside a tool turn's calls from the context as JSON
// strings quote it, and the report once the request ended.
import type { LlamaModel, Token } from "node-llama-cpp";
import type { EngineRequest, Usage } from "../../engine.ts";
import type { SpeculationReport } from "../speculative-decode.ts";
import { EscapedViews } from "./escaped-views.ts";
import { PromptLookup } from "./prompt-lookup.ts";

export const DEFAULT_MAX_DRAFT_TOKENS = 16;

export interface RequestLookup {
  drafts: PromptLookup;
  /** The sequence's tokens: the prompt, then everything generated (and a tool turn's glue). */
  history: Token[];
  lookupTokens: Token[];
  /** Where the prediction (preferred by the lookup) begins in lookupTokens. */
  predictionStart: number;
}

/** Prompt lookup in a tool turn on the native loop; built when its first drafting job starts. */
export interface ToolTurnLookup {
  /** The text before a call drafts too (the request asked for prompt lookup). */
  draftsText: boolean;
  open(): RequestLookup;
  /** The lookup, if a job opened it. */
  opened(): RequestLookup | undefined;
}

export interface RequestLookupOptions {
  speculative?: boolean;
  maxDraftTokens?: number;
  /** Prompt lookup inside tool calls on the native loop. Default true. */
  toolCallLookup?: boolean;
  onSpeculation?: (report: SpeculationReport) => void;
}

export class RequestLookups {
  /** Characters per token, for prompt lookup's minimum match length. */
  private readonly tokenCharacters = new Map<Token, number>();
  private readonly escapedViews: EscapedViews;

  constructor(
    private readonly model: LlamaModel,
    private readonly options: RequestLookupOptions,
  ) {
    this.escapedViews = new EscapedViews((text) => model.tokenize(text));
  }

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
    return this.lookupOver(lookupTokens, promptTokens);
  }

  /**
   * A tool turn's lookup: the prompt, every message's escaped views, then the prediction as it is
   * and escaped; the views and the prediction are what a call copies, so matches there are
   * preferred and edits to them replayed. Calls draft from it unless toolCallLookup is off and the
   * request asked for no lookup (a call copying a file is the turn's longest run of tokens; a
   * call that copies nothing rarely finds a 12-character match, and PromptLookup pauses after
   * drafts that fail).
   */
  forToolTurn(request: EngineRequest, promptTokens: Token[]): ToolTurnLookup | undefined {
    const draftsText = this.wants(request);
    if (!draftsText && this.options.toolCallLookup === false) return undefined;
    let lookup: RequestLookup | undefined;
    const open = (): RequestLookup => {
      lookup ??= this.toolTurnLookup(request, promptTokens);
      return lookup;
    };
    return { draftsText, open, opened: () => lookup };
  }

  /** Counts accepted and rejected drafts into usage and tells onSpeculation. */
  report(lookup: RequestLookup, promptTokens: number, usage: Usage): void {
    const { statistics } = lookup.drafts;
    usage.acceptedPredictionTokens = statistics.acceptedTokens;
    usage.rejectedPredictionTokens = statistics.draftedTokens - statistics.acceptedTokens;
    this.options.onSpeculation?.({
      lookupTokens: lookup.lookupTokens,
      predictionStart: lookup.predictionStart,
      history: lookup.history,
      promptTokens,
      maxDraftTokens: this.options.maxDraftTokens ?? DEFAULT_MAX_DRAFT_TOKENS,
      statistics,
    });
  }

  private toolTurnLookup(request: EngineRequest, promptTokens: Token[]): RequestLookup {
    const views = request.messages.map((message) => this.escapedViews.of(message.content));
    const prediction = request.prediction ?? "";
    if (prediction !== "")
      views.push(this.model.tokenize(prediction), this.escapedViews.of(prediction));
    // One copy of everything (concat per message would copy the growing array each time).
    const lookupTokens = promptTokens.concat(...views);
    return this.lookupOver(lookupTokens, promptTokens, promptTokens.length);
  }

  private lookupOver(
    lookupTokens: Token[],
    promptTokens: Token[],
    predictionStart = promptTokens.length,
  ): RequestLookup {
    const drafts = new PromptLookup(lookupTokens, predictionStart, {
      maxDraftTokens: this.options.maxDraftTokens ?? DEFAULT_MAX_DRAFT_TOKENS,
      tokenCharacters: (token) => this.charactersOf(token),
    });
    return { drafts, history: [...promptTokens], lookupTokens, predictionStart };
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
