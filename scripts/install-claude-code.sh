#!/usr/bin/env bash
# Installs Claude Code 2.1.x into .cache/claude-code (git-ignored) for the
# integration tests, and prints the path of its `claude` binary on stdout.
# Idempotent: a present, runnable 2.1.x install is reused.
# Env: CLAUDE_CODE_VERSION (default 2.1, an exact version pins it), CLAUDE_CODE_PREFIX (default .cache/claude-code).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${CLAUDE_CODE_VERSION:-2.1}"
prefix="${CLAUDE_CODE_PREFIX:-$root/.cache/claude-code}"
bin="$prefix/node_modules/.bin/claude"
# shellcheck source=lib/isolated-npm.sh
. "$root/scripts/lib/isolated-npm.sh"

installed_ok() {
  [ -x "$bin" ] || return 1
  local v
  v="$("$bin" --version 2>/dev/null)" || return 1
  # `claude --version` prints e.g. "2.1.332 (Claude Code)".
  case "$v" in "$version".*|"$version "*) return 0 ;; *) return 1 ;; esac
}

mkdir -p "$prefix"
# Serialise concurrent callers (parallel test processes) on one prefix.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$prefix.lock"
  flock 9
fi

if ! installed_ok; then
  # Resolve the exact newest match first: given a range, npm skips versions whose
  # engines (node >=22 since 2.1.198) do not match this Node 20 and would pick an
  # old 2.1.197. The native binary does not run on Node, so the engines field is moot.
  exact="$(isolated_env npm view "@anthropic-ai/claude-code@$version" version --json | tr -d '[]",' | awk 'NF{v=$1} END{print v}')"
  if [ -z "$exact" ]; then
    echo "error: npm found no @anthropic-ai/claude-code@$version" >&2
    exit 1
  fi
  echo "installing @anthropic-ai/claude-code@$exact into $prefix" >&2
  # The package is a thin wrapper; its postinstall copies the native binary from
  # the platform's optional dependency, so optional deps and scripts must stay on.
  rm -rf "$prefix/node_modules" "$prefix/package.json" "$prefix/package-lock.json"
  isolated_env npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error \
    --engine-strict=false "@anthropic-ai/claude-code@$exact" >&2
  if ! installed_ok; then
    echo "error: claude binary at $bin missing or not version $version after install" >&2
    exit 1
  fi
fi

echo "$bin"
