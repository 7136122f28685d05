#!/usr/bin/env bash
# Makes sure bubblewrap (`bwrap`, the kernel's sandbox on Linux; docs/ARCHITECTURE.md "Kernel sandbox")
# is installed: when it is missing on Linux, installs the Debian package `bubblewrap` with apt-get
# (as root, or through sudo when that works without a password prompt). Idempotent: with bwrap
# present it returns at once. Safe to run concurrently (apt runs under the same lock as
# scripts/host/ensure-host.sh). Prints only to stderr.
# Exit status: 0 when bwrap is there (or this is not Linux: no sandbox there in this version);
# 10 when it is missing on Linux and cannot be installed here (the message says how).
set -euo pipefail

say() { echo "[ensure-sandbox $(date +%T)] $*" >&2; }

if [ "$(uname -s)" != Linux ]; then
  say "no kernel sandbox on $(uname -s) in this version: nothing to install (every cell asks before it runs)"
  exit 0
fi
have_bwrap() { command -v bwrap >/dev/null 2>&1 && bwrap --version >/dev/null 2>&1; }
have_bwrap && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  say "bwrap is missing and this system has no apt-get: install the package 'bubblewrap' (0.4 or newer) with your package manager"
  exit 10
fi
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  say "bwrap is missing — install it as root: sudo apt-get install bubblewrap (without it the kernel runs unsandboxed and every cell asks first)"
  exit 10
fi

CACHE=${SCROLL_DEV_CACHE:-$HOME/.cache/scroll-dev}
mkdir -p "$CACHE"
LOG=$CACHE/apt-bubblewrap.log
say "apt-get install bubblewrap (log: $LOG)"
# apt is shared with every other process on the machine: take apt's own lock politely, and look
# again under it (another run may have installed it meanwhile).
(
  flock 9
  have_bwrap && exit 0
  { "${as_root[@]}" apt-get update -qq &&
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends bubblewrap
  } > "$LOG" 2>&1 || { tail -30 "$LOG" >&2; say "apt-get install bubblewrap failed (log: $LOG)"; exit 10; }
) 9>/tmp/scroll-apt.lock

if ! have_bwrap; then
  say "bubblewrap was installed but bwrap does not run (see $LOG)"
  exit 10
fi
say "installed: $(bwrap --version)"
