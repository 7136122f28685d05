// `scroll show` reads seq specs with the one grammar (src/shared/seqSpec.ts): every form the panel
// and the editor accept, and it still refuses a range written backwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CLI = join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');

function scroll(cwd: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: process.env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('scroll show: SEQ and A..B in every form of the shared grammar', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-show-'));
  try {
    const rows = [1, 2, 3, 4, 5].map((i) => JSON.stringify({ kind: 'note', role: 'user', content: `event number ${i}` }));
    writeFileSync(join(dir, 'h.jsonl'), rows.join('\n') + '\n');
    const db = join(dir, 'scroll.db');
    assert.equal(scroll(dir, ['ingest', 'h.jsonl', '--db', db]).code, 0);
    const seqs = (spec: string): number[] => {
      const r = scroll(dir, ['show', spec, '--db', db, '--json']);
      assert.equal(r.code, 0, `${spec}: ${r.stderr}`);
      return JSON.parse(r.stdout).map((e: { seq: number }) => e.seq);
    };
    for (const spec of ['3', ' 3 ', '#3', 'seq 3', 'SEQ3']) assert.deepEqual(seqs(spec), [3], spec);
    for (const spec of ['2..4', '2 .. 4', '2-4', '2 – 4', '2—4', '2:4', '2 to 4', '#2..#4', 'seq 2-4']) assert.deepEqual(seqs(spec), [2, 3, 4], spec);
    assert.deepEqual(seqs('4..4'), [4]);
    const backwards = scroll(dir, ['show', '4..2', '--db', db]);
    assert.notEqual(backwards.code, 0);
    assert.match(backwards.stderr, /empty range 4\.\.2 \(the end is before the start\)/);
    const bad = scroll(dir, ['show', '2..', '--db', db]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /expected SEQ or A\.\.B \(got "2\.\."\)/);
    assert.match(scroll(dir, ['show', '99999999999999999999', '--db', db]).stderr, /seq out of range/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
