// countMatches and snippetsFor (src/core/search/search.ts): what the history panel shows around a
// ranked page. The counts are held to the SQL the panel used to run itself (kept here as the oracle),
// the snippets to the ones searchEvents cuts for the same hits.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { countMatches, searchEvents, snippetsFor, type SearchDatabase } from '../../../src/core/search';
import * as constants from '../../../src/core/search/constants';
import { parseQuery } from '../../../src/core/search/query';
import type { NewEvent, SearchOptions } from '../../../src/core/types';

let dir: string;
let log: EventLog;
let db: SearchDatabase;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'scroll-matches-'));
  log = EventLog.open({ path: join(dir, 'scroll.db'), session: 'main', redact: false });
  const events: NewEvent[] = [];
  const kinds = ['user_message', 'model_turn', 'tool_call', 'tool_result'];
  const roles = ['user', 'assistant', 'assistant', 'tool'];
  for (let i = 0; i < 240; i++) {
    const words = [
      i % 2 ? 'retry' : 'upload',
      i % 3 ? 'timeout' : 'cache',
      i % 5 === 0 ? 'getUserById' : 'parser',
      i % 7 === 0 ? 'zebra' : 'filler',
      'the',
      'common',
    ];
    events.push({
      kind: kinds[i % 4],
      role: roles[i % 4],
      name: i % 4 === 2 ? (i % 8 === 2 ? 'read_file' : 'run') : undefined,
      session: `s${i % 3}`,
      ts: new Date(Date.UTC(2026, 2, 1, 10, 0, i)).toISOString(),
      content: `${words.join(' ')} event ${i}`,
    });
  }
  events.push({ kind: 'note', role: 'user', session: 'lonely', content: 'a unicorn here and a gryphon there', ts: '2026-03-02T00:00:00.000Z' });
  log.appendMany(events);
  db = log.database;
});

after(() => {
  log.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The count the panel ran itself before search owned it (src/vscode/panel/eventLogSource.ts). */
function oracleCount(query: string, opts: SearchOptions, usedTerms: string[]): number {
  const used = new Set(usedTerms);
  const terms = parseQuery(query).terms.filter((t) => used.has(t.text));
  if (!terms.length) return 0;
  const countMatch = (match: string): number => {
    const conds = ['events_fts MATCH ?'];
    const params: unknown[] = [match];
    if (opts.seqFrom !== undefined) {
      conds.push('f.rowid >= ?');
      params.push(opts.seqFrom);
    }
    if (opts.seqTo !== undefined) {
      conds.push('f.rowid <= ?');
      params.push(opts.seqTo);
    }
    const join: string[] = [];
    const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
    const inList = (column: string, values: string[]) => {
      if (!values.length) return;
      join.push(`e.${column} IN (${values.map(() => '?').join(',')})`);
      params.push(...values);
    };
    const equals = (sql: string, value: string | undefined) => {
      if (value === undefined) return;
      join.push(sql);
      params.push(value);
    };
    inList('kind', list(opts.kind));
    inList('role', list(opts.role));
    equals('e.session = ?', opts.session);
    equals('e.name = ?', opts.name);
    equals('e.ts >= ?', opts.tsFrom);
    equals('e.ts <= ?', opts.tsTo);
    const sql = join.length
      ? `SELECT count(*) AS n FROM events_fts f CROSS JOIN events e ON e.seq = f.rowid WHERE ${conds.join(' AND ')} AND ${join.join(' AND ')}`
      : `SELECT count(*) AS n FROM events_fts f WHERE ${conds.join(' AND ')}`;
    return Number(db.prepare(sql).get(...params).n);
  };
  const all = countMatch(terms.map((t) => t.fts).join(' AND '));
  return all < constants.BROADEN_BELOW && terms.length > 1 ? countMatch(terms.map((t) => t.fts).join(' OR ')) : all;
}

const QUERIES = ['retry', 'retry timeout', 'getUserById', 'user', 'zebra unicorn', 'unicorn gryphon', 'zebra retry cache', 'what is this', 'the retry', 'nothingmatches', 'nothing matches at all', '"retry timeout"', 'src/parser.ts'];
const FILTERS: SearchOptions[] = [
  {},
  { kind: 'tool_result' },
  { kind: ['tool_call', 'tool_result'] },
  { role: 'user' },
  { role: ['user', 'tool'] },
  { session: 's1' },
  { session: 'lonely' },
  { session: 'nobody' },
  { session: 's2', kind: 'model_turn' },
  { name: 'read_file' },
  { seqFrom: 30, seqTo: 90 },
  { seqFrom: 200 },
  { seqTo: 12 },
  { seqFrom: 90, seqTo: 30 },
  { tsFrom: '2026-03-01T10:01:00.000Z' },
  { tsFrom: '2026-03-01T10:00:30.000Z', tsTo: '2026-03-01T10:02:00.000Z', role: 'assistant' },
  { session: 's0', seqFrom: 40, seqTo: 160, kind: 'user_message', role: 'user' },
];

test('countMatches counts what the panel counted, for every filter the panel sends', () => {
  let nonzero = 0;
  let broadened = 0;
  for (const query of QUERIES) {
    for (const opts of FILTERS) {
      const result = searchEvents(db, query, { ...opts, k: 5, snippet: false });
      const n = countMatches(db, query, opts, result);
      assert.equal(n, oracleCount(query, opts, result.terms), `${query} ${JSON.stringify(opts)}`);
      if (n > 0) nonzero++;
      if (result.broadened && n > 0) broadened++;
    }
  }
  assert.ok(nonzero > 50, `enough queries match (${nonzero})`);
  assert.ok(broadened > 3, `the broadened count is exercised (${broadened})`);
});

test('countMatches agrees with the list a long search ranks', () => {
  for (const query of ['retry', 'retry timeout', 'zebra cache']) {
    for (const opts of [{}, { session: 's0' }, { kind: 'tool_result' }]) {
      const result = searchEvents(db, query, { ...opts, k: 1000, snippet: false });
      assert.ok(result.hits.some((h) => !h.broadened), `${query} ${JSON.stringify(opts)} matches every term somewhere`);
      const precise = result.hits.filter((h) => !h.broadened).length;
      assert.equal(countMatches(db, query, opts, result), precise, `${query} ${JSON.stringify(opts)}`);
    }
  }
  // Broadened: every event matching any term, the neighbours context adds not counted.
  const result = searchEvents(db, 'unicorn zebra', { k: 1000, snippet: false });
  assert.ok(result.broadened);
  const zebras = searchEvents(db, 'zebra', { k: 1000, snippet: false }).hits.filter((h) => !h.broadened).length;
  assert.equal(countMatches(db, 'unicorn zebra', {}, result), zebras + 1);
});

test('countMatches follows the terms the search used: pruned words are not counted', () => {
  // "common" is in nearly every event: pruned, so the count is that of "zebra" alone.
  const result = searchEvents(db, 'common zebra', { k: 5, snippet: false });
  assert.deepEqual(result.pruned, ['common']);
  const zebra = searchEvents(db, 'zebra', { k: 5, snippet: false });
  assert.equal(countMatches(db, 'common zebra', {}, result), countMatches(db, 'zebra', {}, zebra));
  assert.equal(countMatches(db, 'zebra', {}, { terms: [] }), 0);
  assert.equal(countMatches(db, '', {}, { terms: [] }), 0);
});

test('snippetsFor cuts the snippets searchEvents cuts for the same hits', () => {
  for (const query of ['retry timeout', 'getUserById', 'common zebra', 'what is this', 'unicorn zebra', '"retry timeout"']) {
    for (const opts of [{}, { session: 's2' }, { kind: 'tool_call' }]) {
      const result = searchEvents(db, query, { ...opts, k: 20 });
      const seqs = result.hits.map((h) => h.seq);
      const snippets = snippetsFor(db, seqs, query, result.terms);
      assert.equal(snippets.size, seqs.length);
      for (const h of result.hits) assert.equal(snippets.get(h.seq), h.snippet, `${query} #${h.seq}`);
    }
  }
  const marked = snippetsFor(db, [1, 2], 'retry upload', ['retry', 'upload']);
  assert.ok([...marked.values()].every((s) => s.includes('«')));
  assert.equal(snippetsFor(db, [], 'retry', ['retry']).size, 0);
  assert.equal(snippetsFor(db, [999_999], 'retry', ['retry']).size, 0, 'unknown seqs are absent');
  // No terms used: the start of the text, nothing marked.
  assert.equal(snippetsFor(db, [1], 'retry', []).get(1), 'upload cache getUserById zebra the common event 0');
});

test('the ranking constants and stop words are the shared file, not numbers in code', () => {
  const root = join(__dirname, '..', '..', '..', '..');
  const shared = JSON.parse(readFileSync(join(root, 'kernel', 'search_constants.json'), 'utf8')) as Record<string, unknown>;
  const exported = constants as unknown as Record<string, unknown>;
  for (const [name, value] of Object.entries(shared)) {
    if (name.startsWith('$')) continue;
    if (exported[name] instanceof Set) assert.deepEqual([...(exported[name] as Set<string>)], value, name); // a word list, read as a set
    else if (name === 'CJK_RANGES') assert.deepEqual(constants.CJK_RANGES.map((r) => r.map((x) => x.toString(16).toUpperCase()).join('-')), value);
    else assert.deepEqual(exported[name], value, name);
  }
  for (const name of Object.keys(exported)) assert.ok(name in shared, `${name} is in the shared file`);
  for (const file of ['search.ts', 'query.ts', 'snippet.ts', 'tokens.ts', 'selfReference.ts']) {
    const src = readFileSync(join(root, 'src', 'core', 'search', file), 'utf8');
    for (const name of Object.keys(shared)) {
      assert.doesNotMatch(src, new RegExp(`const ${name}\\b[^=]*= *[\\[0-9n]`), `${file} defines ${name} itself`);
    }
  }
});
