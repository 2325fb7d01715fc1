// Which npm packages a spawned `spark` loaded, from the module URLs the loader-hook recorder wrote:
// a package imported from node_modules (an external one, or any through tsx), or one compiled into
// a chunk of the CLI bundle that was loaded: esbuild's metafile, written beside the bundle, says
// which chunk holds which package's code.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface LoadedPackages {
  /** Imported from node_modules by their own URL. */
  byUrl: Set<string>;
  /** Those and the packages whose code is in a loaded chunk. */
  all: Set<string>;
}

/** What scripts/build-cli.ts writes: for each output file, the inputs it holds code from. */
interface Metafile {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

/** The package a file or URL belongs to: `@scope/name` or `name`, the innermost node_modules'. */
export function packageOf(file: string): string | undefined {
  return [...file.matchAll(/[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/g)]
    .at(-1)?.[1]
    ?.replace("\\", "/");
}

/**
 * `urls`: the modules one process loaded. `bundle`: the project the bundle was built in (the
 * metafile's paths are relative to it) and its metafile.
 */
export function loadedPackages(
  urls: string[],
  bundle: { root: string; metafile: string },
): LoadedPackages {
  const byUrl = new Set<string>();
  const all = new Set<string>();
  const { outputs } = JSON.parse(readFileSync(bundle.metafile, "utf8")) as Metafile;
  for (const url of urls) {
    if (!url.startsWith("file:")) continue;
    const file = fileURLToPath(url);
    const name = packageOf(file);
    if (name !== undefined) {
      byUrl.add(name);
      all.add(name);
    }
    const output = path.relative(bundle.root, file).split(path.sep).join("/");
    // Code tree-shaken away entirely is listed with 0 bytes: the package did not load.
    for (const [input, { bytesInOutput }] of Object.entries(outputs[output]?.inputs ?? {})) {
      const compiled = packageOf(input);
      if (compiled !== undefined && bytesInOutput > 0) all.add(compiled);
    }
  }
  return { byUrl, all };
}
