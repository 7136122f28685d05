// A small run of the SIGKILL stress script (`npm run stress` runs 50 trials): kills during ingest,
// two writers, reindex and gc; nothing committed lost, no partial event, no seq hole, and no orphan
// payload file or temp file left after the final gc.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const OUT = join(__dirname, '..', '..', '..'); // the tsc build this test belongs to
const SCRIPT = join(OUT, '..', 'scripts', 'stress.mjs');

test('stress (5 trials): SIGKILL during ingest, two writers, reindex and gc loses nothing and leaves no orphans after gc', { timeout: 120_000 }, () => {
  const r = spawnSync(process.execPath, [SCRIPT, '--trials', '5', '--events', '3000', '--json', '--out', OUT], { encoding: 'utf8', timeout: 110_000 });
  assert.equal(r.error, undefined, String(r.error));
  const summary = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}');
  assert.deepEqual(summary.problems, [], r.stderr);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(summary.ok, true);
  assert.equal(summary.trials, 5);
  assert.ok(summary.kills > 0, 'something was killed');
  assert.equal(summary.lost, 0);
  assert.equal(summary.partial, 0);
  assert.equal(summary.holes, 0);
  assert.equal(summary.checkFailures, 0);
  assert.equal(summary.orphansAfterFinalGc, 0);
  assert.equal(summary.tempsAfterFinalGc, 0);
});
