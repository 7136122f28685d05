#!/usr/bin/env node
// In-host integration tests: mocha inside a real VS Code extension host (code-server), the `vscode` API real.
//
// usage: node scripts/host/run-host-tests.mjs [FILE-FILTER ...] [--grep PATTERN] [--no-build] [--timeout SEC] [--untrusted]
//   FILE-FILTER  substrings of test file paths under out/test/host/suite (e.g. `harness`)
//   --grep       mocha grep on test titles;  --no-build  skip tsc + esbuild (npm test builds first)
//   --untrusted  workspace trust enforced and the folder NOT trusted (restricted mode); runs the tests
//                under out/test/host/untrusted instead of suite; results in test-results/host-untrusted
// exit: 0 pass, 1 test failure, 2 timeout, 3 harness error.
// The extension under test is the repository itself (extensionDevelopmentPath); every fixture extension
// under test/fixtures is installed into this run's extensions folder. Results, the final screenshot and
// the editor's logs of a failed run are kept under test-results/host/.
import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import {
  buildExtension, ensureHost, fixtureExtensions, installExtensions, launchChromium,
  prepareWorkspace, remoteUri, repoRoot, runFolders, say, startCodeServer, workbenchUrl,
} from './lib.mjs';

const { values: opts, positionals: fileFilters } = util.parseArgs({
  allowPositionals: true,
  options: {
    grep: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    untrusted: { type: 'boolean', default: false },
    timeout: { type: 'string', default: process.env.SCROLL_HOST_TIMEOUT_S || '900' },
  },
});

// Lines the editor logs on every start here that say nothing about the tests (no network, no sign-in).
const NOISE = /open-vsx|ENOTFOUND|EAI_AGAIN|authentication provider 'github'|Service Worker|builtin extensions cache|vsda|ChatModelSelection|AccountPolicyGate|AgentHost|marketplace|getaddrinfo/i;

async function main() {
  const t0 = Date.now();
  const host = ensureHost();
  if (!opts['no-build']) buildExtension();
  const testsEntry = path.join(repoRoot, 'out', 'test', 'host', 'index.js');
  if (!fs.existsSync(testsEntry)) throw new Error(`${path.relative(repoRoot, testsEntry)} is missing: run \`npx tsc -p .\``);

  const untrusted = opts.untrusted;
  const { resultsDir, runDir } = runFolders(untrusted ? 'host-untrusted' : 'host', 'host-');

  const workspace = path.join(runDir, 'workspace');
  const seeded = prepareWorkspace(workspace);
  say(`workspace ${workspace} (history: ${seeded.results.map((r) => `${r.file} → ${r.appended} events`).join(', ')})`);
  const fixtures = fixtureExtensions();
  const extensionsDir = path.join(runDir, 'extensions');
  installExtensions(extensionsDir, fixtures);
  say(`fixture extensions: ${fixtures.map((d) => path.basename(d)).join(', ') || 'none'}`);

  const fakeHome = path.join(runDir, 'fake-home');
  fs.mkdirSync(fakeHome, { recursive: true });
  const lmDir = path.join(runDir, 'scripted-lm');
  fs.mkdirSync(lmDir, { recursive: true });
  const server = await startCodeServer(host, {
    runDir,
    extensionsDir,
    smokeTestDriver: true,
    workspaceTrust: untrusted,
    // The scripted model must answer in restricted mode too (the fixture declares no trust capability, so
    // it would be disabled there): the user setting that overrides an extension's declared support.
    settings: untrusted ? { 'extensions.supportUntrustedWorkspaces': { 'scroll-test.scripted-lm': { supported: true } } } : {},
    env: {
      SCROLL_HOST_TEST_SUITE: untrusted ? 'untrusted' : 'suite',
      // Private to this run (others may run the harness in the same checkout); copied out at the end.
      SCROLL_TEST_RESULTS: path.join(runDir, 'results'),
      SCROLL_HOST_TEST_FILES: fileFilters.join(','),
      SCROLL_HOST_TEST_GREP: opts.grep || '',
      SCROLL_SCRIPTED_LM_DIR: lmDir,
      SCROLL_TEST_WORKSPACE: workspace,
      // Test-only: capture (src/vscode/capture) reads other agents' transcripts under this fake home, never the machine's.
      SCROLL_TEST_CAPTURE_HOME: fakeHome,
    },
  });
  say(`code-server ${server.url} (pid group ${server.pid})${untrusted ? '; workspace trust enforced, folder not trusted' : ''}`);

  const browser = await launchChromium(host);
  const { page } = browser;
  const outcome = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ code: 2, why: `timed out after ${opts.timeout} s` }), Number(opts.timeout) * 1000);
    page.on('pageerror', (e) => console.log('[pageerror]', String(e)));
    page.exposeFunction('codeAutomationLog', (type, args) => {
      const line = util.format(...(args || []));
      if (!NOISE.test(line)) console.log(line);
    });
    page.exposeFunction('codeAutomationExit', (code) => {
      clearTimeout(timer);
      resolve({ code, why: 'the extension host finished the tests' });
    });
    const payload = [
      ['extensionDevelopmentPath', remoteUri(server, repoRoot)],
      ['extensionTestsPath', remoteUri(server, testsEntry)],
      ['skipWelcome', 'true'],
    ];
    page.goto(workbenchUrl(server, workspace, payload), { waitUntil: 'domcontentloaded' }).catch((e) => {
      clearTimeout(timer);
      resolve({ code: 3, why: `the workbench did not load: ${e.message}` });
    });
  });

  if (outcome.code !== 0) {
    await page.screenshot({ path: path.join(resultsDir, 'final.png') }).catch(() => {});
    keepLogs(server, resultsDir);
  }
  await browser.close();
  server.stop();

  const runResults = path.join(runDir, 'results', 'results.json');
  const resultsFile = path.join(resultsDir, 'results.json');
  if (fs.existsSync(runResults)) fs.copyFileSync(runResults, resultsFile);
  if (fs.existsSync(resultsFile)) {
    const r = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
    for (const f of r.failed) console.log(`\n✗ ${f.title}\n${String(f.error).split('\n').slice(0, 8).join('\n')}`);
    console.log(`\nhost${untrusted ? ' (untrusted)' : ''}: ${r.passed.length} passed, ${r.failed.length} failed${r.pending.length ? `, ${r.pending.length} skipped` : ''}`);
  }
  say(`${outcome.why}; exit ${outcome.code}; ${((Date.now() - t0) / 1000).toFixed(1)} s${outcome.code ? `; screenshot and logs in ${path.relative(repoRoot, resultsDir)}/` : ''}`);
  return outcome.code;
}

/** Copies the editor's logs (server, extension host, window) next to the results of a failed run. */
function keepLogs(server, resultsDir) {
  const dest = path.join(resultsDir, 'logs');
  fs.mkdirSync(dest, { recursive: true });
  fs.copyFileSync(server.logFile, path.join(dest, 'code-server.log'));
  const logs = path.join(server.userDataDir, 'logs');
  if (fs.existsSync(logs)) fs.cpSync(logs, path.join(dest, 'user-data-logs'), { recursive: true });
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`[host] ${e.stack || e}`);
    process.exit(3);
  },
);
