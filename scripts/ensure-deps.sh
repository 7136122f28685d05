#!/usr/bin/env bash
# Run by `npm start` and `npm test`: on a fresh clone (no node_modules, or one installed from another
# lock file) install the exact locked dependencies first, so each command alone does all set-up.
# The lock file's hash is kept beside the install: a checkout that only touched the file's date (a new
# git worktree, a rebase) does not reinstall. A node_modules that is a symlink (shared by several
# worktrees) is never reinstalled from here: `npm ci` would empty the folder the others use.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=node_modules/.scroll-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
have=$(cat "$stamp" 2>/dev/null || true)
# An install made by a plain `npm ci` (CI does one first) has no stamp: it counts when npm's own record of
# the install (node_modules/.package-lock.json) holds every locked package at its locked version
# (optional ones for other platforms may be absent).
if [ "$have" != "$want" ] && [ -f node_modules/.package-lock.json ] && node -e '
  const lock = require("./package-lock.json").packages, installed = require("./node_modules/.package-lock.json").packages;
  const ok = Object.entries(lock).every(([k, p]) => !k || (installed[k] ? installed[k].version === p.version : p.optional === true));
  process.exit(ok ? 0 : 1);' 2>/dev/null; then
  [ -L node_modules ] || echo "$want" > "$stamp"
  have=$want
fi
if [ "$have" != "$want" ]; then
  if [ -L node_modules ]; then
    echo "== node_modules is a link to $(readlink node_modules) and was installed from another package-lock.json: run npm ci there" >&2
  else
    echo "== installing dependencies (npm ci; better-sqlite3 compiles from source, about 2 min)"
    npm ci --no-audit --no-fund
    echo "$want" > "$stamp"
  fi
fi
bash scripts/ensure-sandbox.sh || echo "== bubblewrap is missing: the kernel runs unsandboxed (every cell asks first) and the sandbox unit tests fail" >&2
