// Prompt-lookup drafting: follows the output along the prediction (or the prompt) it copies,
// re-anchors by the longest suffix match when it diverges, replays edits it has seen once (a
// rename), and drafts only as far as recent acceptance makes worth its verification cost.
import type { Token } from "node-llama-cpp";
import { SuffixIndex } from "./suffix-index.ts";
import { ReplayedEdits, type DraftCursor } from "./replayed-edits.ts";

export interface PromptLookupOptions {
  /** Longest draft, reached by doubling while whole drafts are accepted. Default 16. */
  maxDraftTokens?: number;
  /** First draft after a new match. Default 4. */
  initialDraftTokens?: number;
  /** Shortest suffix match that may anchor a draft, in characters. Default 12. */
  minimumMatchCharacters?: number;
  /** Characters a token stands for (the match length is counted in them). Default 1. */
  tokenCharacters?: (token: Token) => number;
}

export interface DraftStatistics {
  /** Drafts proposed. */
  drafts: number;
  draftedTokens: number;
  acceptedTokens: number;
  /** Per draft position (0 = first drafted token): drafts that reached it, and accepted it. */
  draftedAt: number[];
  acceptedAt: number[];
}

interface ProposedDraft {
  tokens: Token[];
  /** History length when proposed: the draft predicts history[at], history[at + 1], … */
  at: number;
}

/** Plain steps without drafting after a poorly accepted draft; doubles while drafts keep failing. */
const FIRST_PAUSE_TOKENS = 8;
const LONGEST_PAUSE_TOKENS = 512;

export class PromptLookup {
  readonly statistics: DraftStatistics;
  private readonly index: SuffixIndex;
  private readonly edits: ReplayedEdits;
  private readonly maxDraftTokens: number;
  private readonly initialDraftTokens: number;
  private readonly minimumMatchCharacters: number;
  /** Where the output is expected to continue, valid for `cursorHistoryLength` tokens of history. */
  private cursor: DraftCursor | undefined;
  private cursorHistoryLength = 0;
  /** The last lookup index the output was aligned with: matches near it are preferred. */
  private anchor: number;
  /** Where the output last left the text it followed; an edit once it realigns. */
  private divergence: { position: number; historyLength: number } | undefined;
  private lastDraft: ProposedDraft | undefined;
  private draftTokens: number;
  private pausedUntil = 0;
  private pauseTokens = FIRST_PAUSE_TOKENS;

  /**
   * @param lookupTokens what the output is expected to copy from: the prompt, then the prediction
   * @param predictionStart where the prediction begins in lookupTokens (its length if none)
   */
  constructor(
    lookupTokens: readonly Token[],
    private readonly predictionStart: number,
    options: PromptLookupOptions = {},
  ) {
    this.index = new SuffixIndex(lookupTokens, options.tokenCharacters ?? (() => 1));
    this.edits = new ReplayedEdits(lookupTokens);
    this.maxDraftTokens = Math.max(1, options.maxDraftTokens ?? 16);
    this.initialDraftTokens = Math.min(this.maxDraftTokens, options.initialDraftTokens ?? 4);
    this.minimumMatchCharacters = options.minimumMatchCharacters ?? 12;
    this.draftTokens = this.initialDraftTokens;
    this.anchor = predictionStart;
    this.statistics = {
      drafts: 0,
      draftedTokens: 0,
      acceptedTokens: 0,
      draftedAt: new Array<number>(this.maxDraftTokens).fill(0),
      acceptedAt: new Array<number>(this.maxDraftTokens).fill(0),
    };
  }

  /**
   * The tokens expected to follow `history` (everything in the sequence: prompt and output so
   * far), or none when no draft is worth verifying. Each call also scores the previous draft
   * against the history that followed it.
   */
  draft(history: readonly Token[]): Token[] {
    this.scoreLastDraft(history);
    this.follow(history);
    if (this.cursor === undefined) this.reanchor(history);
    if (this.cursor === undefined || history.length < this.pausedUntil) return [];
    const walker = { ...this.cursor, pending: [...this.cursor.pending] };
    const tokens: Token[] = [];
    while (tokens.length < this.draftTokens) {
      const token = this.edits.next(walker);
      if (token === undefined) break;
      tokens.push(token);
    }
    if (tokens.length === 0) return [];
    this.lastDraft = { tokens, at: history.length };
    return tokens;
  }

  private scoreLastDraft(history: readonly Token[]): void {
    const draft = this.lastDraft;
    if (draft === undefined) return;
    this.lastDraft = undefined;
    let accepted = 0;
    while (
      accepted < draft.tokens.length &&
      draft.at + accepted < history.length &&
      draft.tokens[accepted] === history[draft.at + accepted]
    ) {
      accepted += 1;
    }
    const statistics = this.statistics;
    statistics.drafts += 1;
    statistics.draftedTokens += draft.tokens.length;
    statistics.acceptedTokens += accepted;
    for (let position = 0; position < draft.tokens.length; position += 1) {
      statistics.draftedAt[position] = (statistics.draftedAt[position] ?? 0) + 1;
      if (position < accepted) {
        statistics.acceptedAt[position] = (statistics.acceptedAt[position] ?? 0) + 1;
      }
    }
    if (accepted === draft.tokens.length) {
      // A whole draft accepted: the copy is running, draft further next time.
      this.draftTokens = Math.min(this.maxDraftTokens, this.draftTokens * 2);
      this.pauseTokens = FIRST_PAUSE_TOKENS;
    } else if (accepted * 2 < draft.tokens.length) {
      // Mostly wasted: verification costs compute, so decode plainly for a while.
      this.pausedUntil = history.length + this.pauseTokens;
      this.pauseTokens = Math.min(LONGEST_PAUSE_TOKENS, this.pauseTokens * 2);
      this.draftTokens = this.initialDraftTokens;
    }
  }

  /** Moves the cursor over the tokens generated since the last call, while they match it. */
  private follow(history: readonly Token[]): void {
    const cursor = this.cursor;
    if (cursor === undefined) return;
    for (let at = this.cursorHistoryLength; at < history.length; at += 1) {
      const before = { position: cursor.position, replaying: cursor.pending.length > 0 };
      const expected = this.edits.next(cursor, history[at]);
      if (expected === history[at]) continue;
      this.cursor = undefined;
      this.anchor = before.position;
      this.divergence = before.replaying
        ? undefined
        : { position: before.position, historyLength: at };
      return;
    }
    this.cursorHistoryLength = history.length;
    this.anchor = cursor.position;
  }

  /** Finds where the output's latest tokens occur and continues from there. */
  private reanchor(history: readonly Token[]): void {
    const match = this.index.find(history, this.minimumMatchCharacters, {
      anchor: this.anchor,
      preferredStart: this.predictionStart,
    });
    if (match === undefined) return;
    // Realigned after leaving the prediction: what lies between was an edit, if the match
    // starts after the divergence on both sides (a capped match may reach back further).
    const divergence = this.divergence;
    const historyMatchStart = history.length - match.tokens;
    if (
      divergence !== undefined &&
      !match.capped &&
      divergence.position >= this.predictionStart &&
      historyMatchStart >= divergence.historyLength
    ) {
      this.edits.learn(
        { start: divergence.position, end: match.end - match.tokens },
        history.slice(divergence.historyLength, historyMatchStart),
      );
    }
    this.divergence = undefined;
    this.cursor = { position: match.end, pending: [] };
    this.cursorHistoryLength = history.length;
    this.anchor = match.end;
    this.draftTokens = this.initialDraftTokens;
  }
}
