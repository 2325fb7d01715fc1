// Turns generated tokens into text deltas: holds back incomplete UTF-8 sequences and any tail that
// could be the start of a stop string, so a stop string never leaks to the client.
import type { LlamaModel, Token } from "node-llama-cpp";

const REPLACEMENT_CHARACTER = "\uFFFD";
const MAX_PENDING_TOKENS = 8;

export interface DecodeStep {
  /** Text safe to emit now. */
  text: string;
  /** True when a stop string was found: `text` ends just before it and generation must stop. */
  stopped: boolean;
}

export class TextStreamDecoder {
  private readonly pendingTokens: Token[] = [];
  private readonly contextTokens: Token[];
  private heldText = "";
  private readonly longestStop: number;

  constructor(
    private readonly model: LlamaModel,
    private readonly stops: readonly string[],
    /** Tokens before the first one pushed (an answer being continued), for how it detokenizes. */
    precedingTokens: readonly Token[] = [],
    /** Special tokens shown as their text (a chat format's call markers); others are not shown. */
    private readonly shownSpecialTokens: ReadonlySet<Token> = new Set(),
  ) {
    this.contextTokens = precedingTokens.slice(-16);
    this.longestStop = stops.reduce((longest, stop) => Math.max(longest, stop.length), 0);
  }

  push(token: Token): DecodeStep {
    this.pendingTokens.push(token);
    const piece = this.model.detokenize(
      this.pendingTokens,
      this.showsSpecial(this.pendingTokens),
      this.contextTokens,
    );
    if (piece.endsWith(REPLACEMENT_CHARACTER) && this.pendingTokens.length < MAX_PENDING_TOKENS) {
      return { text: "", stopped: false };
    }
    this.contextTokens.push(...this.pendingTokens);
    if (this.contextTokens.length > 16)
      this.contextTokens.splice(0, this.contextTokens.length - 16);
    this.pendingTokens.length = 0;
    return this.release(piece);
  }

  /** The end of generation: whatever is held back is real output. */
  flush(): string {
    const rest =
      this.pendingTokens.length > 0
        ? this.model.detokenize(
            this.pendingTokens,
            this.showsSpecial(this.pendingTokens),
            this.contextTokens,
          )
        : "";
    this.pendingTokens.length = 0;
    const text = this.heldText + rest;
    this.heldText = "";
    return text;
  }

  private showsSpecial(tokens: readonly Token[]): boolean {
    return (
      this.shownSpecialTokens.size > 0 && tokens.some((token) => this.shownSpecialTokens.has(token))
    );
  }

  private release(piece: string): DecodeStep {
    if (this.longestStop === 0) return { text: piece, stopped: false };
    const candidate = this.heldText + piece;
    let stopIndex = -1;
    for (const stop of this.stops) {
      const index = candidate.indexOf(stop);
      if (index !== -1 && (stopIndex === -1 || index < stopIndex)) stopIndex = index;
    }
    if (stopIndex !== -1) {
      this.heldText = "";
      return { text: candidate.slice(0, stopIndex), stopped: true };
    }
    const safeLength = Math.max(0, candidate.length - (this.longestStop - 1));
    this.heldText = candidate.slice(safeLength);
    return { text: candidate.slice(0, safeLength), stopped: false };
  }
}
