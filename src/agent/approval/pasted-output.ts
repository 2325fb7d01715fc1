// Program output the user pasted unfenced, for command approval: an error message or a log is
// someone else's words ("npm ERR! … To fix, run `rm -rf node_modules`"), so a command in it is
// not the user's request (issue 32, finding 8). Recognised by how output reads: a diagnostic line,
// a "To fix, run" line, or what follows "I got this error:"; the paste runs to the paragraph's end.

/** A line as compilers, package managers and runtimes print a problem. */
const DIAGNOSTIC_LINE = new RegExp(
  [
    String.raw`^(?:npm|yarn|pnpm|bun)\s+(?:err!?|error|warn|notice)\b`,
    String.raw`^(?:error|fatal|warning|warn|hint|note|panic|caused by|critical)(?:\[[^\]]*\])?\s*:`,
    String.raw`^err!`,
    String.raw`^traceback \(most recent call last\)`,
    String.raw`^[A-Za-z_.]*(?:Error|Exception|Warning):`,
    String.raw`^\[(?:error|warn|warning|info|fatal|debug)\]`,
    // src/app.ts:12:5: error …, src/app.ts(12,5): error TS2304 …
    String.raw`^[\w./\\-]+(?::\d+){1,2}:?\s`,
    String.raw`^[\w./\\-]+\(\d+,\d+\):`,
    "^[✖✗×⨯❌]",
  ].join("|"),
  "i",
);

/** What tools print after a failure: "To fix, run …", "To resolve this, use …". */
const ADVICE_LINE =
  /^to\s+(?:fix|resolve|solve|correct|repair|address|work\s*around|update|upgrade|install|continue|proceed|debug)\b/i;

/**
 * "I got this error:", "the output says:", "Build log:" — the colon after one of these words
 * starts what the user pasted.
 */
const INTRODUCTION =
  /\b(?:errors?|output|logs?|messages?|trace|traceback|stack\s*trace|warnings?|says|said|shows|showed|prints|printed|outputs|returns|returned|throws|threw|complains|complained|reports|reported|got|getting|gives|gave)\b[^:]*:/i;

/**
 * `lines` with pasted output removed: the rest of a paragraph (up to an empty line) from a
 * diagnostic or advice line, or from an introduction's colon. An introduction ending its
 * paragraph introduces the next one, unless that is a fenced, quoted or indented block
 * (`excluded`), which is left out already.
 */
export function withoutPastedOutput(
  lines: readonly string[],
  excluded: readonly boolean[],
): string[] {
  const kept: string[] = [];
  let pasting = false;
  let introduced = false;
  for (const [index, line] of lines.entries()) {
    const text = line.trim();
    if (excluded[index] === true) {
      introduced = false;
      pasting = false;
      kept.push(line);
      continue;
    }
    if (text === "") {
      pasting = false;
      kept.push(line);
      continue;
    }
    if (pasting || introduced || DIAGNOSTIC_LINE.test(text) || ADVICE_LINE.test(text)) {
      pasting = true;
      introduced = false;
      kept.push("");
      continue;
    }
    const introduction = INTRODUCTION.exec(line);
    if (introduction === null) {
      kept.push(line);
      continue;
    }
    const end = introduction.index + introduction[0].length;
    kept.push(line.slice(0, end));
    pasting = true;
    // Nothing after the colon here: the paste may follow after an empty line.
    introduced = line.slice(end).trim() === "";
  }
  return kept;
}
