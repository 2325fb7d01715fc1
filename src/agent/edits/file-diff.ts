// The unified diff and line counts reported for every file an edit touched.
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from "diff";

export interface FileDiff {
  /** Unified diff with 3 lines of context; "" when the text did not change. */
  diff: string;
  linesAdded: number;
  linesRemoved: number;
}

/** `oldPath`/`newPath` are workspace-relative; null means the file does not exist on that side. */
export function diffFile(
  oldPath: string | null,
  newPath: string | null,
  oldText: string,
  newText: string,
): FileDiff {
  const patch = structuredPatch(
    oldPath === null ? "/dev/null" : `a/${oldPath}`,
    newPath === null ? "/dev/null" : `b/${newPath}`,
    oldText,
    newText,
    undefined,
    undefined,
    { context: 3 },
  );
  let linesAdded = 0;
  let linesRemoved = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) linesAdded += 1;
      else if (line.startsWith("-")) linesRemoved += 1;
    }
  }
  const renamed = oldPath !== null && newPath !== null && oldPath !== newPath;
  const diff = patch.hunks.length > 0 || renamed ? formatPatch(patch, FILE_HEADERS_ONLY) : "";
  return { diff, linesAdded, linesRemoved };
}
