import { parseScrollPath } from '../../../../src/shared/scrollUri';
import { test, before, after } from 'node:test';
import { unlinkSync } from 'node:fs';
import assert from 'node:assert/strict';
import { CONTENT_CAP, EVENT_PAGE_SIZE, type EventPage, type IndexNode, type SearchPage, type Timeline } from '../../../../src/shared/panelProtocol';
import { EventLogPanelSource } from '../../../../src/vscode/panel/eventLogSource';
import { PanelRequestHandler } from '../../../../src/vscode/panel/panelRequestHandler';
import { HOSTILE, seedLog, type SeededLog } from './panelFixture';

let seeded: SeededLog;
let handler: PanelRequestHandler;
const opened: string[] = [];

before(() => {
  seeded = seedLog(40);
  handler = new PanelRequestHandler(EventLogPanelSource.open(seeded.log), { openUri: (u) => void opened.push(u) });
});
after(() => seeded.cleanup());

async function ask<T>(msg: Record<string, unknown>): Promise<T> {
  const res = await handler.handleMessage({ id: 1, ...msg });
  assert.ok(res, 'expected a response');
  if (!res.ok) assert.fail(`request failed: ${res.error}`);
  return res.result as T;
}

test('search: pages never overlap or skip while the list grows; in score order', async () => {
  const whole = seeded.log.search('parser', { k: 1000, snippet: false }).hits;
  const first = await ask<SearchPage>({ type: 'search', query: 'parser', filters: {}, offset: 0, limit: 25 });
  // "parser" is in every user message and tool_call (40 + 40); the search also lists related
  // events next to strong matches (marked broadened, match "context"), all in one score order.
  assert.ok(whole.length >= 80 && whole.every((h) => h.match === 'every' || h.match === 'context'), 'every match is listed; a one-word query does not broaden');
  for (let i = 1; i < whole.length; i++) assert.ok(whole[i - 1].score >= whole[i].score, 'score order');
  assert.ok(first.total >= 80, 'at least every match is counted up front');
  assert.equal(first.capped, false);
  assert.equal(first.hits.length, 25);
  assert.ok(first.hits.every((h) => h.broadened || h.snippet.includes('«')), 'a match shows its marked terms');
  const all = [...first.hits];
  let total = first.total;
  for (let offset = 25; offset < total; offset += 25) {
    const p = await ask<SearchPage>({ type: 'search', query: 'parser', filters: {}, offset, limit: 25 });
    assert.equal(p.offset, offset);
    assert.ok(p.total >= total, 'the total only grows as the ranking lengthens');
    total = p.total;
    all.push(...p.hits);
  }
  assert.equal(all.length, total);
  assert.equal(new Set(all.map((h) => h.seq)).size, all.length, 'no hit twice');
  assert.deepEqual(new Set(all.map((h) => h.seq)), new Set(whole.map((h) => h.seq)), 'every ranked hit listed once');
  const past = await ask<SearchPage>({ type: 'search', query: 'parser', filters: {}, offset: total, limit: 25 });
  assert.deepEqual(past.hits, []);
});

test('search: filters by kind, role, session, seq range and time', async () => {
  const kind = await ask<SearchPage>({ type: 'search', query: 'parser', filters: { kind: ['tool_call'] }, offset: 0, limit: 100 });
  assert.equal(kind.hits.filter((h) => !h.broadened).length, Math.min(40, kind.hits.length));
  assert.ok(kind.hits.every((h) => h.kind === 'tool_call'));
  const role = await ask<SearchPage>({ type: 'search', query: 'parser', filters: { role: ['user'] }, offset: 0, limit: 100 });
  assert.ok(role.total > 0 && role.hits.every((h) => h.role === 'user'));
  const beta = await ask<SearchPage>({ type: 'search', query: 'zebra', filters: { session: 'beta' }, offset: 0, limit: 100 });
  // The match, then related events next to it (marked broadened) from the same session only.
  assert.deepEqual(beta.hits.filter((h) => !h.broadened).map((h) => h.seq), [seeded.bigSeq]);
  assert.equal(beta.hits[0].seq, seeded.bigSeq);
  assert.ok(beta.hits.every((h) => h.session === 'beta'));
  const none = await ask<SearchPage>({ type: 'search', query: 'zebra', filters: { session: 'alpha' }, offset: 0, limit: 100 });
  assert.equal(none.total, 0);
  const seqs = await ask<SearchPage>({ type: 'search', query: 'parser', filters: { seqFrom: 1, seqTo: 20 }, offset: 0, limit: 100 });
  assert.ok(seqs.total > 0 && seqs.hits.every((h) => h.seq >= 1 && h.seq <= 20));
  const late = await ask<SearchPage>({ type: 'search', query: 'parser', filters: { tsFrom: '2026-03-01T10:02:00Z' }, offset: 0, limit: 100 });
  assert.ok(late.total > 0 && late.hits.every((h) => h.ts >= '2026-03-01T10:02:00'));
});

test('search: the cached hit list refreshes when the log grows', async () => {
  const before = await ask<SearchPage>({ type: 'search', query: 'quokka', filters: {}, offset: 0, limit: 10 });
  assert.equal(before.total, 0);
  seeded.log.append({ kind: 'note', role: 'user', session: 'beta', content: 'a quokka appeared' });
  const quokka = seeded.log.maxSeq();
  const afterAppend = await ask<SearchPage>({ type: 'search', query: 'quokka', filters: {}, offset: 0, limit: 10 });
  assert.ok(afterAppend.total >= 1);
  assert.equal(afterAppend.hits[0].seq, quokka);
});

test('expand: one seq, a range in pages, an unknown seq', async () => {
  const one = await ask<EventPage>({ type: 'expand', from: 3, to: 3 });
  assert.equal(one.events.length, 1);
  assert.equal(one.events[0].seq, 3);
  assert.equal(one.nextFrom, null);
  const max = seeded.log.maxSeq();
  const page1 = await ask<EventPage>({ type: 'expand', from: 1, to: max });
  assert.equal(page1.events.length, EVENT_PAGE_SIZE);
  assert.equal(page1.nextFrom, EVENT_PAGE_SIZE + 1);
  const seen = [...page1.events];
  let next: number | null = page1.nextFrom;
  while (next !== null) {
    const p: EventPage = await ask<EventPage>({ type: "expand", from: next, to: max });
    seen.push(...p.events);
    next = p.nextFrom;
  }
  assert.deepEqual(seen.map((e) => e.seq), Array.from({ length: max }, (_, i) => i + 1));
  const res = await handler.handleMessage({ type: 'expand', id: 9, from: max + 100, to: max + 100 });
  assert.ok(res && !res.ok && /no event with seq/.test(res.error));
});

test('expand caps content; payload chunks give back the exact full text', async () => {
  const page = await ask<EventPage>({ type: 'expand', from: seeded.bigSeq, to: seeded.bigSeq });
  const e = page.events[0];
  const full = seeded.log.get(seeded.bigSeq)!.content;
  assert.equal(e.truncated, true);
  assert.equal(e.content.length, CONTENT_CAP);
  assert.equal(e.contentLength, full.length);
  let text = e.content;
  for (;;) {
    const c = await ask<{ text: string; offset: number; done: boolean }>({ type: 'payload', seq: e.seq, offset: text.length, length: 7000 });
    assert.equal(c.offset, text.length);
    text += c.text;
    if (c.done) break;
  }
  assert.equal(text, full);
  assert.ok(text.endsWith('THE-END'));
});

test('hostile content comes back as the exact text (the front end renders it as text)', async () => {
  const page = await ask<EventPage>({ type: 'expand', from: seeded.hostileSeqs[0], to: seeded.hostileSeqs[2] });
  assert.deepEqual(page.events.map((e) => e.headline), HOSTILE);
  const hits = await ask<SearchPage>({ type: 'search', query: 'hostile sample', filters: {}, offset: 0, limit: 10 });
  assert.deepEqual(hits.hits.filter((h) => !h.broadened).map((h) => h.seq).sort((a, b) => a - b), seeded.hostileSeqs);
});

test('neighbours: events around a seq', async () => {
  const p = await ask<EventPage>({ type: 'neighbours', seq: 10, radius: 2 });
  assert.deepEqual(p.events.map((e) => e.seq), [8, 9, 10, 11, 12]);
  const edge = await ask<EventPage>({ type: 'neighbours', seq: 1, radius: 3 });
  assert.deepEqual(edge.events.map((e) => e.seq), [1, 2, 3, 4]);
});

test('sessions and facets', async () => {
  const s = await ask<{ session: string; events: number; evictions: number }[]>({ type: 'sessions' });
  assert.deepEqual(s.map((x) => x.session).sort(), ['alpha', 'beta']);
  assert.equal(s.find((x) => x.session === 'alpha')!.events, 40 * 4 + 4);
  // The panel lists sessions that have evictions first in its Eviction index tab.
  assert.equal(s.find((x) => x.session === 'alpha')!.evictions, 4);
  assert.equal(s.find((x) => x.session === 'beta')!.evictions, 0);
  const f = await ask<{ kinds: string[]; roles: string[] }>({ type: 'facets' });
  assert.deepEqual(f.kinds, ['eviction', 'model_turn', 'note', 'tool_call', 'tool_result', 'user_message']);
  assert.ok(f.roles.includes('assistant') && f.roles.includes('tool'));
});

test('index: the eviction tree by level; a segment lists what it covers', async () => {
  const tree = await ask<{ roots: IndexNode[]; segments: number }>({ type: 'index', session: 'alpha' });
  assert.equal(tree.segments, 4);
  const leaves: IndexNode[] = [];
  const walk = (n: IndexNode) => (n.children.length ? n.children.forEach(walk) : leaves.push(n));
  tree.roots.forEach(walk);
  assert.deepEqual(leaves.map((l) => l.evictionSeq), seeded.evictions);
  assert.equal(leaves[0].title.task, 'fix parsers up to 10');
  const seg = await ask<EventPage>({ type: 'segment', evictionSeq: seeded.evictions[0] });
  assert.equal(seg.from, 1);
  assert.equal(seg.to, seeded.evictions[0] - 1);
  assert.equal(seg.events.length, 40);
  const notEviction = await handler.handleMessage({ type: 'segment', id: 2, evictionSeq: 1 });
  assert.ok(notEviction && !notEviction.ok && /not an eviction/.test(notEviction.error));
  const empty = await ask<{ roots: IndexNode[]; segments: number }>({ type: 'index', session: 'nobody' });
  assert.deepEqual(empty, { session: 'nobody', roots: [], segments: 0 });
});

test('index: odometer merging shows up as levels with children', async () => {
  const big = seedLog(100); // 10 evictions: with cap 8, seven merge into one level-1 block
  try {
    const h = new PanelRequestHandler(EventLogPanelSource.open(big.log));
    const tree = h.index('alpha');
    assert.equal(tree.segments, 10);
    assert.deepEqual(tree.roots.map((r) => r.level), [1, 0, 0, 0]);
    assert.equal(tree.roots[0].children.length, 7);
    assert.equal(tree.roots[0].from, 1);
    assert.equal(tree.roots[0].evictionSeq, null);
  } finally {
    big.cleanup();
  }
});

test('timeline: view tokens, budget, events per step, eviction markers', async () => {
  const t = await ask<Timeline>({ type: 'timeline', session: 'alpha' });
  assert.equal(t.points.length, 40);
  assert.equal(t.bucket, 1);
  assert.deepEqual(t.points[0], { step: 1, seq: 1, viewTokens: 1037, budget: 2000, events: 4 });
  assert.equal(t.points[9].events, 5, 'step 10 includes its eviction event');
  assert.deepEqual(t.evictions.map((e) => e.seq), seeded.evictions);
  assert.deepEqual(t.evictions[0], { seq: seeded.evictions[0], step: 10, from: 1, to: seeded.evictions[0] - 1 });
});

test('open: the scroll: URI is handed to the editor', async () => {
  opened.length = 0;
  await ask({ type: 'open', target: { kind: 'event', seq: 5 } });
  await ask({ type: 'open', target: { kind: 'segment', evictionSeq: seeded.evictions[0] } });
  await ask({ type: 'open', target: { kind: 'range', from: 2, to: 9 } });
  // Titled as the editor's own tabs are: what the tab shows, not "5.md" (issue 20).
  const kind5 = seeded.log.get(5)!.kind.replace(/_/g, ' ');
  assert.deepEqual(opened, [
    `scroll:/event/5/seq 5 · ${kind5}.md`,
    `scroll:/segment/${seeded.evictions[0]}/Evicted seq 1–${seeded.evictions[0] - 1}.md`,
    'scroll:/range/2-9/seq 2–9.md',
  ]);
  for (const u of opened) assert.ok(parseScrollPath(u.slice('scroll:'.length)), `${u} opens what it names`);
});

test('handleMessage never throws: bad requests come back as errors with their id', async () => {
  const r = await handler.handleMessage({ type: 'search', id: 77, query: 5 });
  assert.deepEqual(r, { type: 'response', id: 77, ok: false, error: 'search: "query" must be a string' });
  const r2 = await handler.handleMessage('not even an object');
  assert.ok(r2 && !r2.ok && r2.id === -1);
  assert.equal(await handler.handleMessage({ type: 'ready' }), undefined);
});

test('captured sessions: listed with their source, hits carry it, search filters by it (logged source stays text)', async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { EventLog } = await import('../../../../src/core/log/eventLog');
  const { claudeCodeReader, importFiles } = await import('../../../../src/core/capture');
  const dir = mkdtempSync(join(tmpdir(), 'scroll-panel-capture-'));
  const log = EventLog.open({ path: join(dir, 'scroll.db'), session: 'own', onWarning: () => {} });
  try {
    log.append({ kind: 'user_message', role: 'user', content: 'own question about the walrus ledger' });
    const file = join(dir, 's-1.jsonl');
    const line = (uuid: string, type: 'user' | 'assistant', text: string) => JSON.stringify({
      parentUuid: null, cwd: dir, sessionId: 's-1', version: '2.0.14', type, uuid, timestamp: '2026-03-02T10:00:00.000Z',
      message: type === 'user' ? { role: 'user', content: text } : { role: 'assistant', model: 'claude-test', content: [{ type: 'text', text }] },
    }) + '\n';
    writeFileSync(file, line('u-1', 'user', 'captured walrus question') + line('a-1', 'assistant', 'captured walrus answer'));
    const summary = await importFiles(log, claudeCodeReader, [file], { scope: [dir] });
    assert.equal(summary.appended, 2);
    // A source name is logged text: one with markup in it must reach the panel as a plain string.
    log.append({ kind: 'note', role: 'user', session: 'odd:1', content: 'odd walrus note', meta: { source: HOSTILE[0] } });
    const h = new PanelRequestHandler(EventLogPanelSource.open(log));
    const answer = async <T>(msg: Record<string, unknown>): Promise<T> => {
      const res = await h.handleMessage({ id: 7, ...msg });
      if (!res?.ok) assert.fail(`request failed: ${res && !res.ok ? res.error : 'no response'}`);
      return res.result as T;
    };
    const sessions = await answer<{ session: string; source?: string }[]>({ type: 'sessions' });
    assert.deepEqual(sessions.map((s) => [s.session, s.source]), [['own', undefined], ['claude-code:s-1', 'claude-code'], ['odd:1', HOSTILE[0]]]);
    const all = await answer<SearchPage>({ type: 'search', query: 'walrus', filters: {}, offset: 0, limit: 40 });
    assert.equal(all.total, 4);
    assert.deepEqual(all.hits.map((x) => x.source ?? null).sort(), [HOSTILE[0], 'claude-code', 'claude-code', null].sort());
    const captured = await answer<SearchPage>({ type: 'search', query: 'walrus', filters: { source: 'claude-code' }, offset: 0, limit: 40 });
    assert.equal(captured.total, 2);
    assert.ok(captured.hits.every((x) => x.session === 'claude-code:s-1' && x.source === 'claude-code'));
    const none = await answer<SearchPage>({ type: 'search', query: 'walrus', filters: { source: 'codex' }, offset: 0, limit: 40 });
    assert.equal(none.total, 0);
    const bad = await h.handleMessage({ id: 8, type: 'search', query: 'walrus', filters: { source: 42 }, offset: 0, limit: 40 });
    assert.ok(bad && !bad.ok && /"source" must be a string/.test(bad.error));
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('expand: an event whose payload file is gone comes as its preview, marked, and the rest of the page whole', async () => {
  const own = seedLog(1);
  try {
    const h = new PanelRequestHandler(EventLogPanelSource.open(own.log));
    unlinkSync(own.log.payloads.pathFor(own.log.get(own.bigSeq, { keepPreview: true })!.payload!));
    const res = await h.handleMessage({ id: 2, type: 'expand', from: own.bigSeq - 1, to: own.bigSeq + 1 });
    assert.ok(res?.ok, JSON.stringify(res));
    const page = res.result as EventPage;
    assert.deepEqual(page.events.map((e) => e.seq), [own.bigSeq - 1, own.bigSeq, own.bigSeq + 1]);
    const big = page.events[1];
    assert.match(big.previewOnly!, /^Only the first 512 characters of this event \(\d+ bytes\) can be shown: its payload file cannot be read/);
    assert.equal(big.content, 'zebra '.repeat(10_000).slice(0, 512));
    assert.equal(big.truncated, false, 'nothing more to load');
    assert.equal(page.events[0].previewOnly, undefined);
    assert.equal(page.events[2].previewOnly, undefined);
  } finally {
    own.cleanup();
  }
});
