/**
 * The TypeScript search runs each FTS5 expression once, fetching with the candidates every row a
 * page can need; kernel/scroll_search.py keeps the earlier plan (the candidates first, a deeper
 * fetch for the page after the context step). On a corpus where queries match hundreds of events,
 * both must return the same page for every k, offset and filter: same seqs, scores, labels and
 * snippets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import type { NewEvent, SearchOptions } from '../../../src/core/types';

const ROOT = join(__dirname, '..', '..', '..', '..');

/** 1,200 events in interleaved sessions over three days: common words match hundreds, rare ones a few. */
function corpus(): NewEvent[] {
  const words = ['deploy', 'rollback', 'cache', 'timeout', 'migration', 'token', 'retry', 'schema', 'queue', 'worker'];
  let x = 12345;
  const rand = (n: number) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x % n;
  };
  return Array.from({ length: 1200 }, (_, i) => {
    const n = 3 + rand(30);
    const text = Array.from({ length: n }, () => words[rand(words.length)]).join(' ');
    return {
      session: `s${rand(4)}`,
      kind: i % 4 === 0 ? 'tool_result' : 'model_turn',
      role: i % 4 === 0 ? 'tool' : 'assistant',
      ts: `2026-03-0${1 + Math.floor(i / 400)}T10:00:00Z`,
      content: `${text} step ${i}${i % 97 === 0 ? ' the upload failed at chunk 7' : ''}`,
    };
  });
}

const QUERIES = ['deploy', 'cache timeout', 'retry queue worker', 'upload chunk', 'upload deploy', 'failed rollback zebra'];
const OPTIONS: SearchOptions[] = [
  { k: 10 },
  { k: 1 },
  { k: 50 },
  { k: 10, offset: 5 },
  { k: 10, offset: 37 },
  { k: 25, offset: 160 },
  { k: 10, offset: 400 },
  { k: 10, kind: 'tool_result' },
  { k: 20, offset: 30, session: 's2' },
  { k: 10, seqFrom: 300, seqTo: 900 },
];

/** The Python port's pages for the same (query, options) pairs, on the same database file. */
function pythonPages(db: string, cases: Array<[string, SearchOptions]>): any[] {
  const script = [
    'import json, sqlite3, sys',
    `sys.path.insert(0, ${JSON.stringify(join(ROOT, 'kernel'))})`,
    'import scroll_search',
    'conn = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)',
    'out = []',
    'for q, o in json.load(sys.stdin):',
    '    kw = {k: o[k] for k in ("k", "kind", "session", "offset") if k in o}',
    '    if "seqFrom" in o: kw["seq_range"] = (o["seqFrom"], o["seqTo"])',
    '    out.append(scroll_search.search(conn, q, **kw))',
    'print(json.dumps(out))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', script, db], { input: JSON.stringify(cases), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('one FTS5 scan per expression returns the pages of the two-step plan (kernel/scroll_search.py)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-onescan-'));
  const path = join(dir, 'scroll.db');
  const log = EventLog.open({ path });
  try {
    log.appendMany(corpus());
    assert.ok(log.search('deploy', { k: 1000 }).hits.length > 400, 'a query matches hundreds of events');
    const cases: Array<[string, SearchOptions]> = QUERIES.flatMap((q) => OPTIONS.map((o): [string, SearchOptions] => [q, o]));
    // The second search of a connection uses the seq→session map: search twice, compare both.
    const first = cases.map(([q, o]) => log.search(q, o));
    const second = cases.map(([q, o]) => log.search(q, o));
    const py = pythonPages(path, cases);
    cases.forEach(([q, o], i) => {
      const label = `${q} ${JSON.stringify(o)}`;
      for (const ts of [first[i], second[i]]) {
        assert.deepEqual(ts.hits.map((h) => h.seq), py[i].hits.map((h: any) => h.seq), label);
        assert.deepEqual(ts.hits.map((h) => [h.match, h.broadened, h.snippet]), py[i].hits.map((h: any) => [h.match, h.broadened, h.snippet]), label);
        ts.hits.forEach((h, j) => assert.ok(Math.abs(h.score - py[i].hits[j].score) < 1e-9, `${label}: score of ${h.seq}`));
        assert.equal(ts.broadened, py[i].broadened, label);
      }
    });
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
