// The .vsix the editor tests install, built exactly as a user would (`npm run package` in
// editors/vscode) once per state of its sources, and installed once (`code-server
// --install-extension`) into an extensions folder that every code-server of the run copies. The
// editor test files run at once: two packagings at once broke each other, and a packaging rewrote
// the .vsix another file's code-server was installing. So one file packages and installs under a
// lock (a directory, created atomically) into paths named by its inputs, which nothing rewrites;
// the others wait and reuse them. Each test process copies the installed folder: sources edited
// while the suite runs give a later file a new state, whose packaging removes the older ones
// that earlier files still use.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { removeWhenProcessEnds } from "../../support/when-process-ends.ts";

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

/** The installed extensions folder this process copied, once it has. */
let installed: string | undefined;

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

/** Installs a .vsix into a new extensions folder (code-server --install-extension). */
export type InstallExtension = (vsix: string, extensionsDirectory: string) => void;

/**
 * Packages and installs the extension unless this state of it is installed already; returns this
 * process's copy of the installed extensions folder, for each code-server to copy again.
 */
export async function installedExtension(install: InstallExtension): Promise<string> {
  if (installed !== undefined) return installed;
  const key = inputsKey();
  const vsix = path.join(DIST, `spark-vscode-${key}.vsix`);
  const template = path.join(DIST, `installed-${key}`);
  const copy = path.join(mkdtempSync(path.join(os.tmpdir(), "spark-extensions-")), "extensions");
  removeWhenProcessEnds(path.dirname(copy));
  await withLock(() => {
    if (!existsSync(vsix)) packageInto(vsix);
    if (!existsSync(template)) {
      // Installed beside and renamed: a process that died mid-install leaves no half folder.
      const staging = `${template}.staging`;
      rmSync(staging, { recursive: true, force: true });
      install(vsix, staging);
      renameSync(staging, template);
    }
    // Copied under the lock: only a packaging, under it too, removes `template`.
    cpSync(template, copy, { recursive: true });
  });
  installed = copy;
  return copy;
}

/** `npm run package`, its .vsix kept as `target` and older states' packages and installs removed. */
function packageInto(target: string): void {
  execFileSync("npm", ["run", "package"], { cwd: EXTENSION_DIRECTORY, stdio: "ignore" });
  // Older states' packages, so dist/ does not fill up (a concurrent run of another state
  // would repackage, not fail).
  for (const name of readdirSync(DIST)) {
    if (/^(spark-vscode-[0-9a-f]{16}\.vsix|installed-[0-9a-f]{16}(\.staging)?)$/.test(name))
      rmSync(path.join(DIST, name), { recursive: true, force: true });
  }
  copyFileSync(path.join(DIST, "spark-vscode.vsix"), target);
}
