// Glob filters for list_files and search, with .gitignore pattern semantics ("*.ts" matches at any
// depth, "src/**/*.ts" is anchored), which is what models tend to write.
import ignore from "ignore";

export function createGlobFilter(glob: string | undefined): (workspacePath: string) => boolean {
  if (glob === undefined || glob.trim() === "") return () => true;
  const matcher = ignore().add(glob.split(",").map((part) => part.trim()));
  return (workspacePath) => matcher.ignores(workspacePath);
}
