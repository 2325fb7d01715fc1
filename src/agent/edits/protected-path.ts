// Decides which paths inside the workspace the agent never writes, and says why in words the model
// can act on: git's metadata (git-metadata.ts), the folder git runs hooks from when
// `core.hooksPath` moves them out of `.git` (husky, lefthook; repository-hooks.ts, which the
// command sandbox reads too), `.husky/`, and `.spark/`, whose config.toml picks the model and
// settings of the user's next Spark session.
import path from "node:path";
import { gitMetadataReason, normalizeSegment } from "./git-metadata.ts";
import { repositoriesHolding } from "./repository-hooks.ts";

/** Folder names refused at any depth, compared as a case-insensitive file system would. */
const PROTECTED_FOLDERS: Record<string, string> = {
  ".husky":
    "is inside .husky, the folder husky has git run hooks from on commit, push and checkout",
  ".spark":
    "is inside .spark, Spark's project configuration, which chooses the model and settings of the user's next Spark session",
};

/**
 * Why the agent must not create, change, move or delete `absolutePath` (a real path: symlinks of
 * its existing ancestors resolved), or undefined when it may.
 */
export function protectedPathReason(absolutePath: string): string | undefined {
  const git = gitMetadataReason(absolutePath);
  if (git !== undefined) return `${git}, which git runs commands from (hooks, config)`;
  for (const segment of absolutePath.split(path.sep)) {
    const reason = PROTECTED_FOLDERS[normalizeSegment(segment)];
    if (reason !== undefined) return reason;
  }
  const repositories = repositoriesHolding(path.dirname(absolutePath));
  for (const hooks of repositories.flatMap((repository) => repository.hooksFolders)) {
    if (isInsideAnySpelling(hooks.folder, absolutePath)) {
      return `is inside ${hooks.folder}, the folder git runs hooks from (core.hooksPath in ${hooks.configFile})`;
    }
  }
  return undefined;
}

/** Whether `candidate` is `folder` or inside it, under case folding and trailing-dot trimming. */
function isInsideAnySpelling(folder: string, candidate: string): boolean {
  const normalize = (absolute: string) =>
    absolute
      .split(path.sep)
      .map(normalizeSegment)
      .filter((segment) => segment !== "");
  const folderSegments = normalize(folder);
  const candidateSegments = normalize(candidate);
  return (
    folderSegments.length <= candidateSegments.length &&
    folderSegments.every((segment, index) => candidateSegments[index] === segment)
  );
}
