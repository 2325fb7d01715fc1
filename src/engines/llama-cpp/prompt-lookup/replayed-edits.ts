// Edits the output made to the text it copies (a rename: `maxPerKey` became `limitPerKey`),
// learned where the output left the text and realigned with it, and replayed in later drafts so
// the next occurrence is drafted as the output will write it, not as the prediction has it.
import type { Token } from "node-llama-cpp";

/** Where drafting continues: a lookup index, after any replacement tokens still to emit. */
export interface DraftCursor {
  position: number;
  pending: Token[];
}

interface Edit {
  from: Token[];
  to: Token[];
  replays: number;
  misses: number;
}

/** Longer replaced or replacing runs are rewrites, not edits worth replaying. */
const MAX_EDIT_TOKENS = 64;
const MAX_EDITS = 32;

export class ReplayedEdits {
  private readonly edits: Edit[] = [];

  constructor(private readonly lookupTokens: readonly Token[]) {}

  /** Records that lookupTokens[start, end) came out as `replacement`. */
  learn(replaced: { start: number; end: number }, replacement: readonly Token[]): void {
    const from = this.lookupTokens.slice(replaced.start, replaced.end);
    if (from.length === 0 || from.length > MAX_EDIT_TOKENS) return;
    if (replacement.length > MAX_EDIT_TOKENS || this.edits.length >= MAX_EDITS) return;
    if (this.edits.some((edit) => sameTokens(edit.from, from) && sameTokens(edit.to, replacement)))
      return;
    this.edits.push({ from, to: [...replacement], replays: 0, misses: 0 });
  }

  /**
   * The token expected at the cursor, advancing it (undefined at the end of the lookup text).
   * Given the token that really came, an edit whose replacement starts here is scored: one the
   * output keeps declining stops being replayed.
   */
  next(cursor: DraftCursor, actual?: Token): Token | undefined {
    for (;;) {
      const replacing = cursor.pending.shift();
      if (replacing !== undefined) return replacing;
      const edit = this.editAt(cursor.position);
      if (edit === undefined) break;
      cursor.position += edit.from.length;
      cursor.pending.push(...edit.to);
      if (actual !== undefined) {
        if (edit.to[0] === actual) edit.replays += 1;
        else edit.misses += 1;
      }
    }
    const token = this.lookupTokens[cursor.position];
    if (token !== undefined) cursor.position += 1;
    return token;
  }

  private editAt(position: number): Edit | undefined {
    let found: Edit | undefined;
    for (const edit of this.edits) {
      if (edit.misses >= 2 && edit.misses > edit.replays) continue;
      if (found !== undefined && found.from.length >= edit.from.length) continue;
      if (this.startsWith(position, edit.from)) found = edit;
    }
    return found;
  }

  private startsWith(position: number, tokens: readonly Token[]): boolean {
    if (position + tokens.length > this.lookupTokens.length) return false;
    return tokens.every((token, offset) => this.lookupTokens[position + offset] === token);
  }
}

function sameTokens(left: readonly Token[], right: readonly Token[]): boolean {
  return left.length === right.length && left.every((token, index) => token === right[index]);
}
