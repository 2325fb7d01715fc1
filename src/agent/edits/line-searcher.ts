// Locates a block of lines (a patch hunk's context and removals, or an @@ anchor) in a file's
// lines through the same matching ladder the edit tool uses, after a starting line.
import { MATCH_RUNGS, normalizeLine, type MatchRung } from "./normalize-text.ts";

export interface LineMatches {
  rung: MatchRung;
  /** Line indexes (0-based) where the block starts, in file order. */
  positions: number[];
}

export interface LineSearchOptions {
  /** Only a block ending at the last line of the file counts (`*** End of File`). */
  endOfFile?: boolean;
  /** Stop at the first hit of the winning rung instead of collecting every hit. */
  firstOnly?: boolean;
}

export class LineSearcher {
  private readonly normalizedByRung = new Map<MatchRung, string[]>();

  constructor(private readonly lines: readonly string[]) {}

  /** Returns the hits of the first rung that has any at or after `from`, else undefined. */
  find(
    pattern: readonly string[],
    from: number,
    options: LineSearchOptions = {},
  ): LineMatches | undefined {
    const count = pattern.length;
    if (count === 0 || count > this.lines.length) return undefined;
    const last = this.lines.length - count;
    const first = options.endOfFile === true ? Math.max(from, last) : from;
    for (const rung of MATCH_RUNGS) {
      const fileLines = this.normalizedLines(rung);
      const wanted = pattern.map((line) => normalizeLine(line, rung));
      const positions: number[] = [];
      for (let start = first; start <= last; start += 1) {
        if (!blockMatches(fileLines, wanted, start)) continue;
        positions.push(start);
        if (options.firstOnly === true) break;
      }
      if (positions.length > 0) return { rung, positions };
    }
    return undefined;
  }

  private normalizedLines(rung: MatchRung): readonly string[] {
    if (rung === "exact") return this.lines;
    let normalized = this.normalizedByRung.get(rung);
    if (normalized === undefined) {
      normalized = this.lines.map((line) => normalizeLine(line, rung));
      this.normalizedByRung.set(rung, normalized);
    }
    return normalized;
  }
}

function blockMatches(fileLines: readonly string[], wanted: readonly string[], start: number) {
  for (let offset = 0; offset < wanted.length; offset += 1) {
    if (fileLines[start + offset] !== wanted[offset]) return false;
  }
  return true;
}
