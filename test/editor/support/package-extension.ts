// The .vsix the editor tests install, built exactly as a user would (`npm run package` in
// editors/vscode) once per state of its sources. The editor test files run at once: two
// packagings at once broke each other, and a packaging rewrote the .vsix another file's
// code-server was installing. So one file packages under a lock (a directory, created
// atomically) into a file named by its inputs, which nothing rewrites; the others wait and reuse
// it. Each test process installs its own copy: sources edited while the suite runs give a later
// file a new state, whose packaging removes the older packages that earlier files still install.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const REPOSITORY = fileURLToPath(new URL("../../../", import.meta.url));
const EXTENSION_DIRECTORY = path.join(REPOSITORY, "editors", "vscode");
const DIST = path.join(EXTENSION_DIRECTORY, "dist");
/** What the bundle is built from: the extension, and the repository code it bundles. */
const INPUTS = [
  "editors/vscode/src",
  "editors/vscode/package.json",
  "editors/vscode/esbuild.mjs",
  "src/protocol",
  "web/src/state",
];
const LOCK = path.join(DIST, ".package-lock");
/** A lock older than this was left by a process that died while packaging. */
const STALE_LOCK_MS = 5 * 60_000;

let packaged: string | undefined;

/** Path, modification time and size of every input file: a change to any gives a new name. */
function inputsKey(): string {
  const hash = createHash("sha256");
  const visit = (relative: string): void => {
    const absolute = path.join(REPOSITORY, relative);
    if (!existsSync(absolute)) return;
    const stats = statSync(absolute);
    if (stats.isDirectory()) {
      for (const name of readdirSync(absolute).sort()) visit(path.join(relative, name));
      return;
    }
    hash.update(`${relative}:${stats.mtimeMs}:${stats.size}\n`);
  };
  for (const input of INPUTS) visit(input);
  return hash.digest("hex").slice(0, 16);
}

async function withLock<Value>(work: () => Value): Promise<Value> {
  mkdirSync(DIST, { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      const age = existsSync(LOCK) ? Date.now() - statSync(LOCK).mtimeMs : 0;
      if (age > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      else await sleep(250);
    }
  }
  try {
    return work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Packages the extension unless this state of it is packaged already; returns the .vsix. */
export async function packageExtension(): Promise<string> {
  if (packaged !== undefined) return packaged;
  const target = path.join(DIST, `spark-vscode-${inputsKey()}.vsix`);
  const copy = path.join(mkdtempSync(path.join(os.tmpdir(), "spark-vsix-")), "spark-vscode.vsix");
  process.once("exit", () => rmSync(path.dirname(copy), { recursive: true, force: true }));
  await withLock(() => {
    if (!existsSync(target)) packageInto(target);
    // Copied under the lock: only a packaging, under it too, removes `target`.
    copyFileSync(target, copy);
  });
  packaged = copy;
  return copy;
}

/** `npm run package`, its .vsix kept as `target` and older states' packages removed. */
function packageInto(target: string): void {
  execFileSync("npm", ["run", "package"], { cwd: EXTENSION_DIRECTORY, stdio: "ignore" });
  // Older states' packages, so dist/ does not fill up (a concurrent run of another state
  // would repackage, not fail).
  for (const name of readdirSync(DIST)) {
    if (/^spark-vscode-[0-9a-f]{16}\.vsix$/.test(name)) rmSync(path.join(DIST, name));
  }
  copyFileSync(path.join(DIST, "spark-vscode.vsix"), target);
}

/** The .vsix packageExtension made in this process, if it ran. */
export function packagedExtension(): string | undefined {
  return packaged;
}
