#!/usr/bin/env node
// UI end-to-end tests: Playwright drives the real workbench (code-server + headless Chromium) with Scroll
// installed like a user's extension and the fixture extensions (scripted model, ...) beside it.
//
// usage: node scripts/host/run-e2e.mjs [FILE-FILTER ...] [--grep PATTERN] [--no-build]
//   FILE-FILTER  substrings of test file paths under test/e2e (files are named *.e2e.js)
// exit: 0 pass, 1 test failure, 3 harness error.
// Tests use test/e2e/workbench.js; screenshots of failed tests and the editor's logs of a failed run are
// kept under test-results/e2e/.
import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import { createRequire } from 'node:module';
import {
  buildExtension, ensureHost, fixtureExtensions, installExtensions, prepareWorkspace,
  repoRoot, runFolders, say, startCodeServer,
} from './lib.mjs';

const require = createRequire(import.meta.url);
const { values: opts, positionals: fileFilters } = util.parseArgs({
  allowPositionals: true,
  options: {
    grep: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
  },
});

function findTests(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? findTests(path.join(dir, e.name)) : e.name.endsWith('.e2e.js') ? [path.join(dir, e.name)] : []))
    .sort();
}

async function main() {
  const t0 = Date.now();
  // Filters match the path under test/ ("e2e/panel.e2e.js"), not the checkout's own path (which may hold "panel").
  const testDir = path.join(repoRoot, 'test');
  const files = findTests(path.join(testDir, 'e2e')).filter((f) => !fileFilters.length || fileFilters.some((x) => path.relative(testDir, f).includes(x)));
  if (!files.length) throw new Error(`no e2e test files matched${fileFilters.length ? ` ${fileFilters.join(', ')}` : ''} under test/e2e (*.e2e.js)`);
  const host = ensureHost();
  if (!opts['no-build']) buildExtension({ tsc: false });

  const { resultsDir, runDir } = runFolders('e2e', 'e2e-');

  // One seeded copy shared by the run's tests, and a pristine template for tests that need their own
  // (Workbench.open({ fresh: true }) copies it).
  const template = path.join(runDir, 'workspace-template');
  prepareWorkspace(template);
  const workspace = path.join(runDir, 'workspace');
  fs.cpSync(template, workspace, { recursive: true });
  const extensionsDir = path.join(runDir, 'extensions');
  const extensions = [repoRoot, ...fixtureExtensions()];
  installExtensions(extensionsDir, extensions);
  const lmDir = path.join(runDir, 'scripted-lm');
  fs.mkdirSync(lmDir, { recursive: true });
  // Capture (src/vscode/capture) reads a fake home (test-only variable), and the chat sessions the tests
  // write are not offered for capture: its first-run notification would cover the UI under test.
  const fakeHome = path.join(runDir, 'fake-home');
  fs.mkdirSync(fakeHome, { recursive: true });
  const server = await startCodeServer(host, {
    runDir, extensionsDir,
    env: { SCROLL_SCRIPTED_LM_DIR: lmDir, SCROLL_TEST_CAPTURE_HOME: fakeHome },
    settings: { 'scroll.capture.sources': { 'copilot-chat': false } },
  });
  say(`code-server ${server.url}; installed: ${extensions.map((d) => path.basename(d)).join(', ')}`);

  Object.assign(process.env, {
    SCROLL_E2E_URL: server.url,
    SCROLL_E2E_WORKSPACE: workspace,
    SCROLL_E2E_WORKSPACE_TEMPLATE: template,
    SCROLL_E2E_RESULTS: resultsDir,
    // Where the code-server's capture looks for other agents' transcripts (a test writes one there).
    SCROLL_E2E_CAPTURE_HOME: fakeHome,
    SCROLL_SCRIPTED_LM_DIR: lmDir,
    SCROLL_PLAYWRIGHT: host.playwrightCore,
    SCROLL_CHROMIUM: host.chromium,
  });
  const Mocha = require('mocha');
  const mocha = new Mocha({ ui: 'bdd', reporter: 'spec', color: false, timeout: 180000 });
  mocha.rootHooks(require(path.join(repoRoot, 'test', 'e2e', 'hooks.js')).mochaHooks);
  if (opts.grep) mocha.grep(opts.grep);
  for (const f of files) mocha.addFile(f);
  const counts = { passed: 0, failed: 0, pending: 0 };
  await new Promise((resolve) => {
    const runner = mocha.run(() => resolve());
    runner.on('pass', () => counts.passed++);
    runner.on('fail', () => counts.failed++);
    runner.on('pending', () => counts.pending++);
  });
  if (counts.failed) {
    const dest = path.join(resultsDir, 'logs');
    fs.mkdirSync(dest, { recursive: true });
    fs.copyFileSync(server.logFile, path.join(dest, 'code-server.log'));
    const logs = path.join(server.userDataDir, 'logs');
    if (fs.existsSync(logs)) fs.cpSync(logs, path.join(dest, 'user-data-logs'), { recursive: true });
  }
  server.stop();
  console.log(`\ne2e: ${counts.passed} passed, ${counts.failed} failed${counts.pending ? `, ${counts.pending} skipped` : ''}`);
  say(`${((Date.now() - t0) / 1000).toFixed(1)} s${counts.failed ? `; screenshots and logs in ${path.relative(repoRoot, resultsDir)}/` : ''}`);
  return counts.failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`[e2e] ${e.stack || e}`);
    process.exit(3);
  },
);
