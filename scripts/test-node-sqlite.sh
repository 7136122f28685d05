#!/usr/bin/env bash
# The db/log/cli/search/mcp unit tests again, under Node 24 with the built-in `node:sqlite` driver
# (the fallback used when better-sqlite3's native addon cannot load, e.g. in desktop VS Code).
# Expects `tsc -p .` to have run (scripts/test-all.sh does it first).
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${SCROLL_DEV_CACHE:-$HOME/.cache/scroll-dev}"
node24="$cache/node24/node_modules/node/bin/node"
if [ ! -x "$node24" ]; then
  echo "installing Node 24 into $cache/node24 (for node:sqlite)"
  mkdir -p "$cache/node24"
  flock /tmp/scroll-node24.lock npm install --prefix "$cache/node24" --no-audit --no-fund node@24
fi
"$node24" -e "require('node:sqlite')" || { echo "Node at $node24 has no node:sqlite" >&2; exit 1; }

if [ ! -d out/test/unit ]; then npx tsc -p . || true; fi
mapfile -t files < <(find out/test/unit/db out/test/unit/log out/test/unit/cli out/test/unit/search out/test/unit/mcp -name '*.test.js' 2>/dev/null | sort)
if [ "${#files[@]}" -eq 0 ]; then echo "no compiled tests under out/test/unit — run tsc -p . first" >&2; exit 1; fi

echo "== unit tests (Node $("$node24" --version), node:sqlite): ${#files[@]} files"
SCROLL_SQLITE_DRIVER=node:sqlite "$node24" --test --test-reporter=spec "${files[@]}"
