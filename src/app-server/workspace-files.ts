// `workspace/files`: the session's files as git sees them (gitignore respected), fuzzy-filtered for
// @-mentions and capped, so a huge repository cannot make one answer huge.
import { walkWorkspace } from "../agent/tools/walk-workspace.ts";

export const DEFAULT_FILE_LIMIT = 200;
/** Files looked at per request: the walk stops here even if fewer matched. */
const MAX_FILES_SCANNED = 50_000;

export interface WorkspaceFilesResult {
  files: string[];
  truncated: boolean;
}

export async function listWorkspaceFiles(options: {
  workspaceRoot: string;
  query?: string;
  limit?: number;
  signal?: AbortSignal;
}): Promise<WorkspaceFilesResult> {
  const limit = options.limit ?? DEFAULT_FILE_LIMIT;
  const query = (options.query ?? "").trim().toLowerCase();
  const matches: { file: string; score: number }[] = [];
  let scanned = 0;
  let truncated = false;
  for await (const file of walkWorkspace({
    workspaceRoot: options.workspaceRoot,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  })) {
    if (++scanned > MAX_FILES_SCANNED) {
      truncated = true;
      break;
    }
    const score = query === "" ? 0 : fuzzyScore(file.toLowerCase(), query);
    if (score === undefined) continue;
    matches.push({ file, score });
    // Without a query the walk order is the answer: stop as soon as the page is full.
    if (query === "" && matches.length > limit) break;
  }
  matches.sort((left, right) => left.score - right.score || compare(left.file, right.file));
  if (matches.length > limit) truncated = true;
  return { files: matches.slice(0, limit).map((match) => match.file), truncated };
}

/**
 * Lower is better; undefined when the query's characters do not all appear in order. Gaps cost,
 * and a match inside the file name beats one spread over directories.
 */
export function fuzzyScore(candidate: string, query: string): number | undefined {
  const substring = candidate.indexOf(query);
  const fileNameStart = candidate.lastIndexOf("/") + 1;
  if (substring >= 0) return substring >= fileNameStart ? 0 : 1;
  let position = 0;
  let gaps = 0;
  for (const character of query) {
    const found = candidate.indexOf(character, position);
    if (found < 0) return undefined;
    if (found > position) gaps += 1;
    position = found + 1;
  }
  return 2 + gaps;
}

function compare(left: string, right: string): number {
  return left.length - right.length || (left < right ? -1 : left > right ? 1 : 0);
}
