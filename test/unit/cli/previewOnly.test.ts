// An event whose payload file is missing or damaged: `scroll show` and `scroll export` give every
// event still, that one as its stored preview marked so (text, --json, jsonl, Markdown), name it on
// stderr and exit 1; before, one missing file failed the whole command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';

const CLI = join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');
const scroll = (dir: string, args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8' });
const NOTE = /Only the first 512 characters of this event \(\d+ bytes\) can be shown: its payload file cannot be read \(payload [0-9a-f]{64} is missing/;

/** A log of three events, the middle one large enough for the payload store, its file then deleted. */
function damagedLog(): { dir: string; big: number } {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-preview-'));
  const log = EventLog.open({ path: join(dir, '.scroll', 'scroll.db') });
  const [, big] = log.appendMany([
    { kind: 'user_message', role: 'user', content: 'run the report', session: 'a' },
    { kind: 'tool_result', role: 'tool', content: 'row '.repeat(5000) + 'LAST-ROW', session: 'a' },
    { kind: 'model_turn', role: 'assistant', content: 'the report has 5000 rows', session: 'a' },
  ]);
  assert.ok(big.payload, 'the large event went to the payload store');
  unlinkSync(log.payloads.pathFor(big.payload));
  log.close();
  return { dir, big: big.seq };
}

test('show: every event of the range, the unreadable one as its preview, marked; exit 1 and the seq on stderr', () => {
  const { dir, big } = damagedLog();
  try {
    const r = scroll(dir, ['show', '1..3']);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /run the report/);
    assert.match(r.stdout, /the report has 5000 rows/);
    assert.match(r.stdout, NOTE);
    assert.ok(!r.stdout.includes('LAST-ROW'), 'only the preview is there to show');
    assert.match(r.stderr, new RegExp(`1 event\\(s\\) given from their stored preview only.*\\(seq ${big}\\)`));
    const one = scroll(dir, ['show', String(big), '--json']);
    assert.equal(one.status, 1, one.stderr);
    const [e] = JSON.parse(one.stdout);
    assert.equal(e.seq, big);
    assert.equal(e.content, 'row '.repeat(128));
    assert.match(e.payload_error, NOTE);
    const whole = scroll(dir, ['show', '1', '--json']);
    assert.equal(whole.status, 0, whole.stderr);
    assert.equal('payload_error' in JSON.parse(whole.stdout)[0], false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('export: every event, the unreadable one as its marked preview (md and jsonl); exit 1; ingest names the field it ignores', () => {
  const { dir, big } = damagedLog();
  try {
    const md = scroll(dir, ['export', '--session', 'a', '--format', 'md']);
    assert.equal(md.status, 1, md.stderr);
    assert.match(md.stdout, /run the report[\s\S]*> Only the first 512 characters[\s\S]*the report has 5000 rows/);
    assert.match(md.stderr, new RegExp(`\\(seq ${big}\\)`));
    const jsonl = scroll(dir, ['export', '--format', 'jsonl']);
    assert.equal(jsonl.status, 1, jsonl.stderr);
    const lines = jsonl.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.seq), [1, 2, 3]);
    assert.match(lines[1].payload_error, NOTE);
    writeFileSync(join(dir, 'out.jsonl'), jsonl.stdout);
    const back = scroll(dir, ['ingest', 'out.jsonl', '--db', 'copy.db']);
    assert.equal(back.status, 0, back.stderr);
    assert.match(back.stderr, /ignored unknown field\(s\): payload_error/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
