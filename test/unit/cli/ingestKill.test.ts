import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../src/core/db';
import { EventLog } from '../../../src/core/log/eventLog';

const CLI = join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');

test('scroll ingest killed with SIGKILL while batches are on the worker: nothing half-written; the same ingest then succeeds', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-ingest-kill-'));
  try {
    // Enough batches that the kill lands mid-ingest, with payload-sized events among them.
    const lines = Array.from({ length: 12_000 }, (_, i) =>
      JSON.stringify({ kind: 'tool_result', role: 'tool', session: 'k', content: i % 97 === 0 ? `big ${i} `.repeat(2000) : `event ${i} parseHeader_${i % 50} fetchUserById`, ts: '2026-11-30T02:00:00Z' }),
    );
    writeFileSync(join(dir, 'in.jsonl'), lines.join('\n') + '\n');
    const db = join(dir, '.scroll', 'scroll.db');
    const child = spawn(process.execPath, [CLI, 'ingest', 'in.jsonl'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    // Killed once the log's schema is committed and the ingest is under way (on a loaded machine the
    // file exists well before its tables do).
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        try {
          const raw = openDatabase(db, { readonly: true });
          try {
            raw.prepare('SELECT count(*) FROM events').get();
          } finally {
            raw.close();
          }
          clearInterval(poll);
          setTimeout(resolve, 150);
        } catch {
          // not created yet
        }
      }, 20);
    });
    child.kill('SIGKILL');
    const [code, signal] = await new Promise<[number | null, string | null]>((r) => child.on('close', (c, s) => r([c, s])));
    assert.equal(signal, 'SIGKILL', `the ingest finished before the kill (exit ${code}): ${stderr}`);

    const raw = openDatabase(db, { readonly: true });
    assert.deepEqual(raw.prepare('PRAGMA quick_check').all().map((x) => (x as { quick_check: string }).quick_check), ['ok']);
    assert.equal((raw.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n, 0, 'one transaction: all or nothing');
    raw.close();

    const again = spawnSync(process.execPath, [CLI, 'ingest', 'in.jsonl'], { cwd: dir, encoding: 'utf8' });
    assert.equal(again.status, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), { appended: 12_000, first_seq: 1, last_seq: 12_000 });
    const log = EventLog.open({ path: db, readonly: true });
    assert.equal(log.verify().ok, true);
    assert.equal(log.search('parseHeader_7', { k: 1 }).hits.length, 1);
    log.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
