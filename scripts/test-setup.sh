#!/usr/bin/env bash
# Installs what the test suite needs beyond npm packages, idempotently and quickly when already there:
# Debian's chromium (browser tests) and libkrb5-dev (code-server's native build), code-server with
# Node 24 (the real VS Code host for e2e) and Claude Code (the real-CLI hook test), both cached in .cache/.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "test-setup: installing Debian packages: ${need_apt[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ -f scripts/code-server/install.sh ]; then bash scripts/code-server/install.sh; fi
CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.332}" bash scripts/install-claude-code.sh >/dev/null
echo "test-setup: ready"
