#!/usr/bin/env bash
# Run by `npm start` and `npm test`: on a fresh clone (no node_modules, or a lock file newer than the
# install) install the exact locked dependencies first, so each command alone does all set-up.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "== installing dependencies (npm ci; better-sqlite3 compiles from source, about 2 min)"
  npm ci --no-audit --no-fund
fi
bash scripts/ensure-sandbox.sh || echo "== bubblewrap is missing: the kernel runs unsandboxed (every cell asks first) and the sandbox unit tests fail" >&2
