// The real-editor harness: ensure the host tools, prepare a seeded sample workspace, install extensions into
// a code-server extensions folder, start code-server in its own process group (always stopped), and drive
// Chromium through playwright-core. Used by run-host-tests.mjs, run-e2e.mjs and ../start.mjs.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const cacheDir = process.env.SCROLL_DEV_CACHE || path.join(os.homedir(), '.cache', 'scroll-dev');
export const fixturesDir = path.join(repoRoot, 'test', 'fixtures');
export const sampleWorkspaceDir = path.join(fixturesDir, 'sample-workspace');

export function say(...args) {
  console.log(`[host ${new Date().toISOString().slice(11, 19)}]`, ...args);
}

/** Installs whatever is missing (see ensure-host.sh) and returns the paths of the tools. */
export function ensureHost() {
  const r = spawnSync('bash', [path.join(repoRoot, 'scripts', 'host', 'ensure-host.sh'), '--print-env'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, SCROLL_DEV_CACHE: cacheDir },
  });
  if (r.status !== 0) throw new Error(`scripts/host/ensure-host.sh failed (exit ${r.status})`);
  const env = {};
  for (const line of r.stdout.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    // printf %q leaves plain paths as they are and backslash-escapes anything else.
    if (m) env[m[1]] = m[2].replace(/\\(.)/g, '$1');
  }
  return {
    node24: env.SCROLL_NODE24,
    node24Home: env.SCROLL_NODE24_HOME,
    codeServerEntry: env.SCROLL_CODE_SERVER,
    playwrightCore: env.SCROLL_PLAYWRIGHT,
    chromium: env.SCROLL_CHROMIUM,
  };
}

/** Runs a command, inheriting output; throws with the command line when it fails. */
export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: repoRoot, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
  return r;
}

/** Compiles the TypeScript (tests included) and bundles the extension. */
export function buildExtension({ tsc = true } = {}) {
  if (tsc) {
    // tsc emits even when files owned by others have type errors; the bundle below is what must succeed.
    spawnSync(process.execPath, [path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], {
      cwd: repoRoot,
      stdio: 'inherit',
    });
  }
  run(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs')]);
  if (!fs.existsSync(path.join(repoRoot, 'dist', 'extension.js'))) {
    throw new Error('dist/extension.js was not built (is src/extension.ts there?)');
  }
}

// ---------------------------------------------------------------- cleanup that always runs

const cleanups = [];
let cleanupInstalled = false;
function runCleanups() {
  while (cleanups.length) {
    try {
      cleanups.pop()();
    } catch {
      // best effort: the rest must still run
    }
  }
}
/** Registers a synchronous cleanup that runs on normal exit, on failure, and on Ctrl-C / SIGTERM / SIGHUP. */
export function onCleanup(fn) {
  cleanups.push(fn);
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on('exit', runCleanups);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      runCleanups();
      process.exit(128 + os.constants.signals[sig]);
    });
  }
  process.on('uncaughtException', (e) => {
    console.error(e);
    runCleanups();
    process.exit(1);
  });
  process.on('unhandledRejection', (e) => {
    console.error(e);
    runCleanups();
    process.exit(1);
  });
}

// ---------------------------------------------------------------- waiting on conditions

/** Polls `check` until it returns a truthy value; throws `what` after timeoutMs. */
export async function waitFor(check, { timeoutMs = 60000, intervalMs = 100, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------- extensions

/** Every test fixture that is an extension (test/fixtures/<name>/package.json with engines.vscode). */
export function fixtureExtensions() {
  if (!fs.existsSync(fixturesDir)) return [];
  return fs
    .readdirSync(fixturesDir)
    .map((n) => path.join(fixturesDir, n))
    .filter((d) => {
      const pj = path.join(d, 'package.json');
      if (!fs.existsSync(pj)) return false;
      try {
        return !!JSON.parse(fs.readFileSync(pj, 'utf8')).engines?.vscode;
      } catch (e) {
        throw new Error(`${pj} is not valid JSON: ${e.message}`);
      }
    });
}

export function extensionId(dir) {
  const pj = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  return { id: `${pj.publisher}.${pj.name}`, version: pj.version };
}

/**
 * Installs extension folders into a code-server extensions folder the way an installed extension is laid
 * out: a `<publisher>.<name>-<version>` entry (a symlink to the folder, so a rebuild is picked up by a
 * window reload) listed in the profile manifest `extensions.json`.
 */
/** Removes extensions (by id) from a code-server extensions folder installed with installExtensions. */
export function uninstallExtensions(extensionsDir, ids) {
  const manifestPath = path.join(extensionsDir, 'extensions.json');
  if (!fs.existsSync(manifestPath)) return;
  const lower = new Set(ids.map((i) => i.toLowerCase()));
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  for (const e of manifest) {
    if (lower.has(e.identifier?.id?.toLowerCase()) && e.relativeLocation) {
      fs.rmSync(path.join(extensionsDir, e.relativeLocation), { recursive: true, force: true });
    }
  }
  fs.writeFileSync(manifestPath, JSON.stringify(manifest.filter((e) => !lower.has(e.identifier?.id?.toLowerCase()))));
}

export function installExtensions(extensionsDir, dirs) {
  fs.mkdirSync(extensionsDir, { recursive: true });
  const manifestPath = path.join(extensionsDir, 'extensions.json');
  let manifest = [];
  if (fs.existsSync(manifestPath)) manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  for (const dir of dirs) {
    const { id, version } = extensionId(dir);
    const rel = `${id}-${version}`;
    const link = path.join(extensionsDir, rel);
    fs.rmSync(link, { recursive: true, force: true });
    fs.symlinkSync(dir, link, 'dir');
    manifest = manifest.filter((e) => e.identifier?.id?.toLowerCase() !== id.toLowerCase());
    manifest.push({
      identifier: { id },
      version,
      location: { $mid: 1, path: link, scheme: 'file' },
      relativeLocation: rel,
      metadata: { installedTimestamp: Date.now(), source: 'resource', pinned: true },
    });
  }
  fs.writeFileSync(manifestPath, JSON.stringify(manifest));
}

// ---------------------------------------------------------------- sample workspace

/**
 * Copies test/fixtures/sample-workspace/project to `dest` and seeds its history: the JSONL files under
 * sample-workspace/history are appended with `node bin/scroll.js ingest` into dest/.scroll/scroll.db.
 */
export function prepareWorkspace(dest, { seed = true } = {}) {
  fs.rmSync(dest, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  fs.cpSync(path.join(sampleWorkspaceDir, 'project'), dest, { recursive: true });
  if (!seed) return { seeded: false };
  const historyDir = path.join(sampleWorkspaceDir, 'history');
  const db = path.join(dest, '.scroll', 'scroll.db');
  const files = fs.readdirSync(historyDir).filter((f) => f.endsWith('.jsonl')).sort();
  const results = [];
  for (const f of files) {
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'scroll.js'), 'ingest', path.join(historyDir, f), '--db', db, '--json'], {
      cwd: dest,
      encoding: 'utf8',
    });
    if (r.status !== 0) {
      throw new Error(`seeding ${f} with \`scroll ingest\` failed (exit ${r.status}): ${(r.stderr || r.stdout).trim()}`);
    }
    results.push({ file: f, ...JSON.parse(r.stdout.trim().split('\n').pop()) });
  }
  return { seeded: true, db, results };
}

// ---------------------------------------------------------------- code-server

/**
 * Starts code-server (Node 24) on 127.0.0.1 with its own user-data, extensions and XDG folders, in its own
 * process group. Resolves when /healthz answers. The returned `stop()` ends the whole group; it is also
 * registered to run on exit, failure and signals. `workspaceTrust: true` enforces workspace trust (no
 * --disable-workspace-trust) with a fresh profile that trusts nothing: the folder opens in restricted mode.
 */
export async function startCodeServer(host, { runDir, extensionsDir, port, env = {}, smokeTestDriver = false, settings = {}, workspaceTrust = false }) {
  port = port || (await freePort());
  const userDataDir = path.join(runDir, 'user-data');
  extensionsDir = extensionsDir || path.join(runDir, 'extensions');
  const xdg = path.join(cacheDir, 'xdg');
  for (const d of [userDataDir, extensionsDir, path.join(xdg, 'config'), path.join(xdg, 'data'), path.join(xdg, 'cache')]) {
    fs.mkdirSync(d, { recursive: true });
  }
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  // Defaults for a fresh profile only: a kept profile (npm start) keeps the user's own settings.
  const settingsFile = path.join(userDataDir, 'User', 'settings.json');
  if (!fs.existsSync(settingsFile)) fs.writeFileSync(
    settingsFile,
    JSON.stringify(
      {
        'telemetry.telemetryLevel': 'off',
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'security.workspace.trust.enabled': false,
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'update.mode': 'none',
        'chat.disableAIFeatures': false,
        // workspaceTrust: trust is enforced and nothing is trusted up front, so the folder opens in
        // restricted mode without a prompt (the untrusted in-host run).
        ...(workspaceTrust
          ? {
              'security.workspace.trust.enabled': true,
              'security.workspace.trust.startupPrompt': 'never',
              'security.workspace.trust.untrustedFiles': 'open',
              'security.workspace.trust.banner': 'never',
              'security.workspace.trust.emptyWindow': false,
            }
          : {}),
        ...settings,
      },
      null,
      2,
    ),
  );
  const configFile = path.join(runDir, 'config.yaml');
  fs.writeFileSync(configFile, 'auth: none\n');
  const logFile = path.join(runDir, 'code-server.log');
  const out = fs.openSync(logFile, 'a');
  const args = [
    host.codeServerEntry,
    '--config', configFile,
    '--bind-addr', `127.0.0.1:${port}`,
    '--auth', 'none',
    '--user-data-dir', userDataDir,
    '--extensions-dir', extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    // A closed browser tab's extension host would otherwise wait 3 hours for the tab to reconnect.
    '--reconnection-grace-time', '30',
  ];
  if (!workspaceTrust) args.push('--disable-workspace-trust');
  // Without this the built workbench ignores extensionDevelopmentPath/extensionTestsPath in the URL payload.
  if (smokeTestDriver) args.push('--vscode-option', 'enable-smoke-test-driver');
  const child = spawn(host.node24, args, {
    detached: true, // setsid: its own process group, ended as a whole
    stdio: ['ignore', out, out],
    env: {
      ...process.env,
      XDG_CONFIG_HOME: path.join(xdg, 'config'),
      XDG_DATA_HOME: path.join(xdg, 'data'),
      XDG_CACHE_HOME: path.join(xdg, 'cache'),
      // The extension host inherits this PATH: `node`/`npm` there are Node 24, like the host itself.
      PATH: `${path.join(host.node24Home, 'bin')}${path.delimiter}${process.env.PATH}`,
      ...env,
    },
  });
  fs.closeSync(out);
  let exited = null;
  const exitedPromise = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      resolve(exited);
    });
  });
  const stop = () => {
    if (exited) return;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      return;
    }
    // The server exits within a second on SIGTERM; make sure nothing of the group survives.
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && groupAlive(child.pid)) spawnSync('sleep', ['0.1']);
    if (groupAlive(child.pid)) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    exited = exited || { code: null, signal: 'SIGTERM' };
  };
  onCleanup(stop);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      async () => {
        if (exited) throw new Error(`code-server exited (${JSON.stringify(exited)}) before it answered; log:\n${tail(logFile)}`);
        try {
          const r = await fetch(`${url}/healthz`);
          return r.ok;
        } catch {
          return false;
        }
      },
      { timeoutMs: 120000, intervalMs: 200, what: `code-server on ${url}/healthz` },
    );
  } catch (e) {
    stop();
    throw e;
  }
  return { url, port, pid: child.pid, logFile, userDataDir, extensionsDir, stop, exited: exitedPromise };
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export function tail(file, lines = 40) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** The workbench URL for a folder, with an optional test payload (see VS Code's browser environment service). */
export function workbenchUrl(server, folder, payload) {
  let u = `${server.url}/?folder=${encodeURIComponent(folder)}`;
  if (payload) u += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return u;
}

/** A file path as the workbench's remote URI for it. */
export function remoteUri(server, p) {
  return `vscode-remote://127.0.0.1:${server.port}${p}`;
}

// ---------------------------------------------------------------- browser

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export function loadPlaywright(host) {
  return createRequire(path.join(host.playwrightCore, 'package.json'))('playwright-core');
}

/**
 * The folders of one test run: `test-results/<name>` emptied (what a failure leaves for the reader)
 * and a scratch folder under the cache, removed when the run ends.
 */
export function runFolders(name, runPrefix) {
  const resultsDir = path.join(repoRoot, 'test-results', name);
  fs.rmSync(resultsDir, { recursive: true, force: true });
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.mkdirSync(path.join(cacheDir, 'runs'), { recursive: true });
  const runDir = fs.mkdtempSync(path.join(cacheDir, 'runs', runPrefix));
  onCleanup(() => fs.rmSync(runDir, { recursive: true, force: true }));
  return { resultsDir, runDir };
}

/** Headless Debian Chromium with a fresh profile, removed on close. */
export async function launchChromium(host, { viewport = { width: 1400, height: 900 } } = {}) {
  const { chromium } = loadPlaywright(host);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'scroll-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: host.chromium,
    headless: true,
    viewport,
    args: CHROMIUM_ARGS,
  });
  const close = async () => {
    await context.close().catch(() => {});
    fs.rmSync(profile, { recursive: true, force: true });
  };
  onCleanup(() => fs.rmSync(profile, { recursive: true, force: true }));
  return { context, page: context.pages()[0] || (await context.newPage()), close };
}
