// Whether bin/spark.js may run the prebuilt CLI (dist/cli/spark.mjs, `npm run build:cli`) instead
// of the TypeScript through tsx: only while nothing it was built from changed after it was built.
// Plain JavaScript, checked on every start and cached nowhere, so it can never go stale.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
export const BUNDLE_ENTRY = path.join(ROOT, "dist", "cli", "spark.mjs");
const BUILD_SCRIPT = "scripts/build-cli.ts";
/** Files outside src/ the bundle depends on (JSX setting, package metadata, the build itself). */
const INPUTS_BESIDE_SOURCE = ["tsconfig.json", "package.json", BUILD_SCRIPT];
/**
 * npm rewrites it whenever node_modules changes (`npm update`, `npm install zod@…`): the bundle
 * holds the pure-JavaScript packages' code as it was at the build. Absent under other package
 * managers, where a dependency change has to be followed by `npm run build:cli` by hand.
 */
const INSTALLED_PACKAGES = "node_modules/.package-lock.json";

/** Tests and snapshots sit beside the code but are never bundled: editing one changes nothing. */
function isBundledInput(name) {
  return name !== "__snapshots__" && !/\.test\.tsx?$/.test(name);
}

/**
 * The first path under `directory` modified after `builtAt` (a folder too: a deleted or renamed
 * file changes its folder's time), or undefined. Stops at the first one found.
 */
function newerThan(directory, builtAt) {
  for (const name of readdirSync(directory)) {
    if (!isBundledInput(name)) continue;
    // Not path.join: its normalize, run cold on every name, was a third of the walk's time.
    const entryPath = directory + path.sep + name;
    const stats = statSync(entryPath);
    if (stats.mtimeMs > builtAt) return entryPath;
    if (stats.isDirectory()) {
      const found = newerThan(entryPath, builtAt);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * `{ bundle }` when the bundle may run, else `{ reason }` (why tsx runs instead). SPARK_NO_BUNDLE=1
 * always chooses tsx.
 */
export function chooseCliEntry(environment = process.env) {
  if (environment.SPARK_NO_BUNDLE === "1") return { reason: "SPARK_NO_BUNDLE=1" };
  let builtAt;
  try {
    builtAt = statSync(BUNDLE_ENTRY).mtimeMs;
  } catch {
    return { reason: "no bundle (npm run build:cli builds it)" };
  }
  // An installed package has no build script (package.json's `files` leaves it out). npm gives
  // its files the time they were unpacked, src/ after dist/, so times say nothing there; its
  // bundle was built from exactly its sources when it was packed.
  if (!existsSync(path.join(ROOT, BUILD_SCRIPT))) return { bundle: BUNDLE_ENTRY };
  for (const input of INPUTS_BESIDE_SOURCE) {
    if (statSync(path.join(ROOT, input)).mtimeMs > builtAt)
      return { reason: `${input} is newer than the bundle` };
  }
  const installedAt = statSync(path.join(ROOT, INSTALLED_PACKAGES), { throwIfNoEntry: false });
  if (installedAt !== undefined && installedAt.mtimeMs > builtAt)
    return { reason: `${INSTALLED_PACKAGES} is newer than the bundle` };
  const source = path.join(ROOT, "src");
  const newer = statSync(source).mtimeMs > builtAt ? source : newerThan(source, builtAt);
  if (newer !== undefined)
    return { reason: `${path.relative(ROOT, newer)} is newer than the bundle` };
  return { bundle: BUNDLE_ENTRY };
}
