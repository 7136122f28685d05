/**
 * The shared search vectors (test/vectors/search-vectors.json), run through the real EventLog.
 * test/python/test_search_parity.py runs the same file against kernel/scroll_search.py.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import type { NewEvent, SearchOptions } from '../../../src/core/types';

const ROOT = join(__dirname, '..', '..', '..', '..');
interface Vector {
  name: string;
  corpus: string;
  query: string;
  opts?: SearchOptions;
  expect: number[];
  broadened: number[];
  terms?: string[];
  pruned: string[];
  message: boolean;
  snippetContains?: string;
}
const vectors = JSON.parse(readFileSync(join(ROOT, 'test', 'vectors', 'search-vectors.json'), 'utf8')) as {
  corpora: Record<string, NewEvent[]>;
  queries: Vector[];
};

test('shared search vectors', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-vectors-'));
  const logs: Record<string, EventLog> = {};
  try {
    for (const [name, events] of Object.entries(vectors.corpora)) {
      logs[name] = EventLog.open({ path: join(dir, name, 'scroll.db') });
      const appended = logs[name].appendMany(events);
      assert.equal(appended[0].seq, 1);
    }
    for (const v of vectors.queries) {
      await t.test(v.name, () => {
        const r = logs[v.corpus].search(v.query, v.opts ?? {});
        assert.deepEqual(r.hits.map((h) => h.seq), v.expect);
        assert.deepEqual(r.hits.filter((h) => h.broadened).map((h) => h.seq), v.broadened);
        assert.equal(r.broadened, v.broadened.length > 0);
        if (v.terms) assert.deepEqual(r.terms, v.terms);
        assert.deepEqual(r.pruned, v.pruned);
        assert.equal(Boolean(r.message), v.message);
        if (v.snippetContains) {
          assert.ok(r.hits.some((h) => h.snippet.includes(v.snippetContains!)), JSON.stringify(r.hits.map((h) => h.snippet)));
        }
      });
    }
  } finally {
    for (const l of Object.values(logs)) l.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
