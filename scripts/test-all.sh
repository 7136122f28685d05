#!/usr/bin/env bash
# `npm test`: every kind of test, in order of cost: build → lint (ESLint, with the layer table) →
# unit (Node 20) → Python → node:sqlite → in-host integration (real VS Code extension host) →
# UI end-to-end (Playwright). A failed build stops
# the run; a failed test layer does not stop the later layers (one CI run shows everything that fails),
# and the run exits non-zero if any layer failed. The host tools (Node 24, code-server, Chromium,
# playwright-core) install on demand into ${SCROLL_DEV_CACHE:-~/.cache/scroll-dev}.
# One layer only: SCROLL_TEST_LAYERS="unit python" npm test   (names: lint unit bench-smoke python node-sqlite host e2e)
set -uo pipefail
cd "$(dirname "$0")/.."

failed=()
want() { [ -z "${SCROLL_TEST_LAYERS:-}" ] || [[ " $SCROLL_TEST_LAYERS " == *" $1 "* ]]; }
layer() { # layer NAME COMMAND...: runs one layer, records a failure and carries on
  local name=$1; shift
  want "$name" || return 0
  local t0=$SECONDS
  if "$@"; then echo "== $name: passed ($((SECONDS - t0)) s)"; else echo "== $name: FAILED ($((SECONDS - t0)) s)"; failed+=("$name"); fi
}

echo "== build"
# A clean out/: compiled copies of moved or deleted tests would otherwise still run.
rm -rf out
npx tsc -p . || { echo "== build: FAILED (tsc)"; exit 1; }
node scripts/build.mjs || { echo "== build: FAILED (esbuild)"; exit 1; }

echo "== lint (ESLint: typescript-eslint and the layer rules of eslint.config.mjs)"
layer lint npm run --silent lint

echo "== unit tests (Node $(node --version), better-sqlite3)"
# Node 20 does not expand globs in --test arguments: list the files.
layer unit node --test --test-reporter=spec $(find out/test/unit -name '*.test.js' | sort)

echo "== bench smoke (every bench/*.bench.mjs at a tiny size on this build: a crash or a wrong result fails, no target is checked)"
layer bench-smoke node scripts/bench.mjs --smoke --no-build

echo "== python tests"
layer python python3 -m unittest discover -s test/python -v
layer node-sqlite bash scripts/test-node-sqlite.sh

echo "== in-host integration tests (real VS Code extension host)"
host_layer() { # the normal run, then restricted mode (workspace trust enforced, folder not trusted); both run
  local rc=0
  node scripts/host/run-host-tests.mjs --no-build || rc=1
  node scripts/host/run-host-tests.mjs --no-build --untrusted || rc=1
  return $rc
}
layer host host_layer

echo "== UI end-to-end tests (Playwright, real workbench)"
layer e2e node scripts/host/run-e2e.mjs --no-build

if [ ${#failed[@]} -gt 0 ]; then
  echo "npm test: FAILED layers: ${failed[*]}"
  exit 1
fi
echo "npm test: all layers passed"
