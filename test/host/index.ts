// The in-host test entry (extensionTestsPath): the extension host loads this module inside the real editor
// and calls run(); the promise's outcome becomes the test run's exit code (0 pass, 1 fail).
// It runs out/test/host/suite/**/*.test.js with mocha (BDD: describe/it). Filters, set by
// scripts/host/run-host-tests.mjs through the environment the extension host inherits:
//   SCROLL_HOST_TEST_SUITE  the folder of tests next to this file: "suite" (default) or "untrusted"
//                           (run-host-tests --untrusted: restricted mode, the folder not trusted)
//   SCROLL_HOST_TEST_FILES  comma-separated substrings of test file paths (e.g. "harness,chat")
//   SCROLL_HOST_TEST_GREP   a mocha --grep pattern on test titles
//   SCROLL_TEST_RESULTS     folder for results.json (the runner prints it after the host exits)
import * as fs from 'fs';
import * as path from 'path';
import Mocha from 'mocha';

function findTests(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...findTests(p));
    else if (entry.name.endsWith('.test.js')) out.push(p);
  }
  return out.sort();
}

interface TestOutcome {
  title: string;
  file?: string;
  durationMs?: number;
  error?: string;
}

export async function run(): Promise<void> {
  const suiteName = process.env.SCROLL_HOST_TEST_SUITE || 'suite';
  if (!/^(suite|untrusted)$/.test(suiteName)) throw new Error(`SCROLL_HOST_TEST_SUITE must be "suite" or "untrusted", not "${suiteName}"`);
  const suiteDir = path.join(__dirname, suiteName);
  const only = (process.env.SCROLL_HOST_TEST_FILES || '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const files = findTests(suiteDir).filter((f) => !only.length || only.some((o) => f.includes(o)));
  if (!files.length) {
    throw new Error(`no in-host test files matched under ${suiteDir}${only.length ? ` (filter: ${only.join(', ')})` : ''}`);
  }
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    reporter: 'spec',
    timeout: Number(process.env.SCROLL_HOST_TEST_TIMEOUT_MS || 60000),
  });
  if (process.env.SCROLL_HOST_TEST_GREP) mocha.grep(process.env.SCROLL_HOST_TEST_GREP);
  for (const f of files) mocha.addFile(f);

  const results = { started: new Date().toISOString(), finished: '', files, passed: [] as TestOutcome[], failed: [] as TestOutcome[], pending: [] as TestOutcome[] };
  const writeResults = () => {
    const dir = process.env.SCROLL_TEST_RESULTS;
    if (!dir) return;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(results, null, 2));
  };
  await new Promise<void>((resolve, reject) => {
    let runner: Mocha.Runner;
    try {
      runner = mocha.run((failures) => {
        results.finished = new Date().toISOString();
        writeResults();
        if (failures) reject(new Error(`${failures} in-host test(s) failed`));
        else resolve();
      });
    } catch (e) {
      // A test file that throws while loading is a failure of the whole run, reported as such.
      results.failed.push({ title: 'loading test files', error: String((e as Error)?.stack || e) });
      writeResults();
      reject(e);
      return;
    }
    runner.on('pass', (t) => results.passed.push({ title: t.fullTitle(), file: t.file, durationMs: t.duration }));
    runner.on('fail', (t, err) => results.failed.push({ title: t.fullTitle(), file: t.file, error: String(err?.stack || err) }));
    runner.on('pending', (t) => results.pending.push({ title: t.fullTitle(), file: t.file }));
  });
}
