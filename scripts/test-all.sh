#!/usr/bin/env bash
# `npm test`: every kind of test, in order of cost. Fails on the first failing layer.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== build"
npx tsc -p .
node scripts/build.mjs

echo "== unit tests (Node $(node --version), better-sqlite3)"
# Node 20 does not expand globs in --test arguments: list the files.
node --test --test-reporter=spec $(find out/test/unit -name '*.test.js' | sort)

echo "== python tests"
python3 -m unittest discover -s test/python -v
bash scripts/test-node-sqlite.sh
