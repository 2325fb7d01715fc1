// Which command starts `spark serve` on this machine. `spark` is only on PATH after a global
// install; a user who cloned the repository has bin/spark.js instead (run with node), and a
// project that installed spark has node_modules/.bin/spark (run with npx). `npx spark` alone is
// never a fallback: without a local install it would fetch whatever package has that name.
import path from "node:path";

export interface ServeCommandContext {
  /** spark.serveCommand; "" means: find one. */
  configured: string;
  workspaceFolders: readonly string[];
  /** The clone this extension was built from, if it was built from one. */
  buildRepository: string | undefined;
  /** The directories of PATH. */
  pathDirectories: readonly string[];
  /** A Node.js to run bin/spark.js with ("node" when it is on PATH), or undefined. */
  nodeCommand: string | undefined;
  isFile: (file: string) => boolean;
  readText: (file: string) => string | undefined;
}

export interface ServeCommand {
  /** The shell command, without --port. */
  command: string;
  /** Where it came from, for the message that says what runs. */
  source: "setting" | "workspace clone" | "workspace install" | "PATH" | "build clone";
}

export function findServeCommand(context: ServeCommandContext): ServeCommand | undefined {
  const configured = context.configured.trim();
  if (configured !== "") return { command: configured, source: "setting" };
  for (const folder of context.workspaceFolders) {
    const clone = cloneLauncher(folder, context);
    if (clone !== undefined) return { command: clone, source: "workspace clone" };
  }
  for (const folder of context.workspaceFolders)
    if (context.isFile(path.join(folder, "node_modules", ".bin", "spark")))
      return { command: "npx --no-install spark serve", source: "workspace install" };
  if (context.pathDirectories.some((directory) => context.isFile(path.join(directory, "spark"))))
    return { command: "spark serve", source: "PATH" };
  if (context.buildRepository !== undefined) {
    const clone = cloneLauncher(context.buildRepository, context);
    if (clone !== undefined) return { command: clone, source: "build clone" };
  }
  return undefined;
}

/** `node '<root>/bin/spark.js' serve` when root is a Spark checkout with its dependencies. */
function cloneLauncher(root: string, context: ServeCommandContext): string | undefined {
  if (context.nodeCommand === undefined) return undefined;
  const launcher = path.join(root, "bin", "spark.js");
  if (!context.isFile(launcher)) return undefined;
  const manifest = context.readText(path.join(root, "package.json"));
  if (manifest === undefined || !/"name"\s*:\s*"spark"/.test(manifest)) return undefined;
  // bin/spark.js loads tsx from the clone's node_modules: without `npm install` it cannot start.
  if (!context.isFile(path.join(root, "node_modules", "tsx", "package.json"))) return undefined;
  return `${shellQuote(context.nodeCommand)} ${shellQuote(launcher)} serve`;
}

/** Quotes for POSIX shells (the integrated terminal's bash or zsh); plain words stay bare. */
export function shellQuote(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
