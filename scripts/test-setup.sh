#!/usr/bin/env bash
# Installs what the test suite needs beyond npm packages, idempotently and quickly when already there:
# Debian's chromium (browser tests) and libkrb5-dev (code-server's native build), code-server with
# Node 24 (the real VS Code host for e2e) and Claude Code (the real-CLI hook test), cached in .cache/
# of this clone (CLAUDE_MEM_E2E_CACHE and CLAUDE_CODE_PREFIX point elsewhere, to reuse an install).
# Each step says what it installs and how long it usually takes; a failed step ends the run with one
# line naming it (the installer's own output above that line says why).
#   bash scripts/test-setup.sh          everything
#   bash scripts/test-setup.sh system   the Debian packages and PostgreSQL only
#   bash scripts/test-setup.sh tools    code-server and Claude Code only (`node test/run.mjs --setup`
#                                       runs this while the files that do not need them run)
set -euo pipefail
cd "$(dirname "$0")/.."
phase=${1:-all}
case "$phase" in all|system|tools) ;; *) echo "test-setup: unknown phase '$phase' (all, system or tools)" >&2; exit 2 ;; esac

step() { # step "<name>" "<what and how long>" command...
  local name=$1 what=$2 started=$SECONDS
  shift 2
  echo "test-setup: $name: $what"
  if ! "$@"; then
    echo "test-setup: FAILED at step '$name' after $((SECONDS - started)) s (command: $*)" >&2
    exit 1
  fi
  echo "test-setup: $name: done in $((SECONDS - started)) s"
}

apt_packages() {
  local SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

if [ "$phase" != tools ]; then
  need_apt=()
  [ -x /usr/bin/chromium ] || need_apt+=(chromium)
  dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
  if [ ${#need_apt[@]} -gt 0 ]; then
    step "Debian packages" "apt-get install ${need_apt[*]} (about 1 minute)" apt_packages "${need_apt[@]}"
  fi

  # PostgreSQL (team memory tests: test/helpers/postgres.ts makes a throwaway cluster with its initdb).
  if compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
    echo "test-setup: PostgreSQL: $(ls -d /usr/lib/postgresql/*/bin | head -1) already there"
  else
    step "PostgreSQL" "apt-get install postgresql (server binaries for the team-sync tests; about 30 s)" apt_packages postgresql
  fi
fi
[ "$phase" != system ] || { echo "test-setup: system ready"; exit 0; }

# The two installs need nothing of each other and mostly wait on the registry: Claude Code's runs
# beside code-server's, its output held back and printed after it. A failed step is reported in step
# order, one line (code-server's first).
export CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.332}"
cc_out=$(mktemp)
cc_err=$(mktemp)
trap 'rm -f "$cc_out" "$cc_err"' EXIT
( step "Claude Code" "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION from npm into ${CLAUDE_CODE_PREFIX:-.cache/claude-code} unless there (usually 10-30 s)" \
    bash -c 'bash scripts/install-claude-code.sh >/dev/null' ) >"$cc_out" 2>"$cc_err" &
cc_pid=$!
cache=${CLAUDE_MEM_E2E_CACHE:-.cache}
if [ -f "$cache/code-server/.installed-${CODE_SERVER_VERSION:-4.139.1}" ]; then
  code_server() { step "code-server" "reusing $cache" bash scripts/code-server/install.sh; }
else
  code_server() {
    step "code-server" "Node 24 and code-server ${CODE_SERVER_VERSION:-4.139.1} from npm into $cache (builds native modules: usually 2-4 minutes)" \
      bash scripts/code-server/install.sh
  }
fi
if ! (code_server); then
  wait "$cc_pid" || true
  exit 1
fi
cc_status=0
wait "$cc_pid" || cc_status=$?
cat "$cc_out"
cat "$cc_err" >&2
[ "$cc_status" -eq 0 ] || exit 1
echo "test-setup: ready"
