/** The chain covers every stored column: the writer's list is the table's (a new column must be added to both). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { CHAINED_COLUMNS, chainHash, GENESIS } from '../../../src/core/log/chain';

test('CHAINED_COLUMNS is every column of events but hash (fails when the table gains a column the writer does not bind)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-chaincols-'));
  try {
    const log = EventLog.open({ path: join(dir, 'scroll.db') });
    const cols = (log.database.prepare("SELECT name FROM pragma_table_info('events')").all() as { name: string }[]).map((c) => c.name);
    assert.deepEqual([...CHAINED_COLUMNS], cols.filter((c) => c !== 'hash').sort());
    assert.ok(cols.includes('hash'));
    // The writer hashes the row as the verifier reads it back, column for column.
    const e = log.append({ kind: 'note', role: 'user', content: 'x', meta: { a: 1 }, step: 2, name: 'n', toolCallId: 't', parentSeq: null, headline: 'h' });
    const row = log.database.prepare('SELECT * FROM events WHERE seq = ?').get(e.seq) as Record<string, unknown>;
    assert.equal(row.hash, chainHash(GENESIS, row));
    log.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
