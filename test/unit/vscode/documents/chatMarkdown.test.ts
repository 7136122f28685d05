// What the chat and the tabs show a person (issue 20): /search and /expand readable in a narrow chat view
// (text first, one short metadata line, compact times, no code block that cannot wrap), tabs titled by
// what they show (older scroll: links still open), the index's levels explained, and /index in a new
// session pointing at the sessions that have an index.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LogEvent, SearchHit } from '../../../../src/core/types';
import { chatText, compactTime, renderEventsForChat, renderHits } from '../../../../src/vscode/documents/eventMarkdown';
import { parseScrollPath, scrollTitle, titledScrollPath, type ScrollTarget } from '../../../../src/shared/scrollUri';
import { INDEX_LEVELS_NOTE, renderEvictedSessions, renderIndexMarkdown } from '../../../../src/vscode/documents/evictionBlocks';
import { EvictionIndex } from '../../../../src/core/agent/evictionIndex';
import { openEventLink } from '../../../../src/vscode/chat/chatLinks';

const NOW = Date.parse('2026-12-01T12:00:00Z');

function event(seq: number, content: string, extra: Partial<LogEvent> = {}): LogEvent {
  return {
    seq, session: 'ledger-2026-11-20', kind: 'user_message', role: 'user', name: null, content, ts: '2026-11-20T09:15:00.000Z',
    meta: {}, step: null, toolCallId: null, parentSeq: null, headline: null, payload: null, bytes: content.length, tokens: 3, ...extra,
  };
}

function hit(seq: number, extra: Partial<SearchHit> = {}): SearchHit {
  return { seq, score: 1, kind: 'tool_result', role: 'tool', session: 's', ts: '2026-12-01T11:48:00Z', name: null, headline: null, snippet: 'retry «cap» of three', broadened: false, ...extra };
}

test('compact times: relative within a week, then the date', () => {
  assert.equal(compactTime('2026-12-01T11:59:30Z', NOW), 'just now');
  assert.equal(compactTime('2026-12-01T11:48:00Z', NOW), '12 min ago');
  assert.equal(compactTime('2026-12-01T07:00:00Z', NOW), '5 h ago');
  assert.equal(compactTime('2026-11-28T12:00:00Z', NOW), '3 d ago');
  assert.equal(compactTime('2026-11-20T09:15:00Z', NOW), 'Nov 20');
  assert.equal(compactTime('2025-11-20T09:15:00Z', NOW), '2025-11-20');
  assert.equal(compactTime('not a time', NOW), 'not a time');
});

test('/search hits: the matching text first, then one short line with the seq link, kind and a compact time', () => {
  const md = renderHits('retry cap', [hit(5), hit(9, { kind: 'user_message' })], openEventLink, undefined, NOW);
  const blocks = md.split('\n\n').slice(1);
  assert.equal(blocks.length, 2);
  const [text, meta] = blocks[0].split('  \n');
  assert.equal(text, 'retry **cap** of three');
  assert.equal(meta, `_[seq 5](${openEventLink(5)}) · tool result · 12 min ago_`);
  assert.ok(!/\d{4}-\d\d-\d\dT/.test(md), 'no ISO timestamps');
  assert.ok(!md.includes('```'), 'no code blocks');
  // The session is named only when the hits come from several.
  assert.ok(!md.includes(' · s_') && !md.includes(' · s ·'));
  assert.match(renderHits('x', [hit(1), hit(2, { session: 'other' })], openEventLink, undefined, NOW), /· other_/);
});

test('/expand: the text first as wrapping text (no fence), then one metadata line; markup stays literal', () => {
  const code = 'def f(x):\n    return x * 2\n\n# not a heading\n1. not a list\n> not a quote\n<b>not html</b> &amp; [not](a link) | cell';
  const md = renderEventsForChat([event(24, code, { kind: 'tool_result', name: 'scroll_exec' })], NOW);
  assert.ok(!md.includes('```'), 'no code block that cannot wrap');
  const [body, meta] = md.trim().split('\n\n_');
  assert.equal(meta, '**seq 24 · tool result** · scroll\\_exec · Nov 20 · ledger-2026-11-20_'.replace('scroll\\_exec', 'scroll_exec'));
  const lines = body.split('  \n');
  assert.equal(lines[0], 'def f(x):');
  assert.equal(lines[1], '\u00a0\u00a0\u00a0\u00a0return x \\* 2', 'indentation kept as no-break spaces, * escaped');
  assert.equal(lines[2], '\u00a0', 'a blank line is kept');
  assert.equal(lines[3], '\\# not a heading');
  assert.equal(lines[4], '1\\. not a list');
  assert.equal(lines[5], '\\> not a quote');
  assert.equal(lines[6], '\\<b\\>not html\\</b\\> \\&amp; \\[not\\](a link) \\| cell');
});

test('/expand cuts a long event in chat and says the tab has the rest', () => {
  const md = renderEventsForChat([event(3, 'x'.repeat(2000))], NOW, 100);
  assert.ok(md.includes('x'.repeat(100)) && !md.includes('x'.repeat(101)));
  assert.match(md, /…1900 more characters in the editor tab/);
  assert.equal(chatText('a\r\nb\n'), 'a  \nb');
});

test('tabs are titled by what they show; older scroll: links keep opening', () => {
  const cases: Array<[ScrollTarget, Parameters<typeof scrollTitle>[1], string]> = [
    [{ kind: 'event', seq: 24 }, { kind: 'user_message' }, '/event/24/seq 24 · user message.md'],
    [{ kind: 'range', from: 40, to: 45 }, {}, '/range/40-45/seq 40–45.md'],
    [{ kind: 'segment', evictionSeq: 30 }, { fromSeq: 1, toSeq: 18 }, '/segment/30/Evicted seq 1–18.md'],
    [{ kind: 'index', session: 'ledger-2026-11-20' }, {}, '/index/ledger-2026-11-20/Eviction index · ledger-2026-11-20.md'],
  ];
  for (const [t, info, path] of cases) {
    assert.equal(titledScrollPath(t, scrollTitle(t, info)), path);
    assert.deepEqual(parseScrollPath(path), t);
  }
  // A session with a slash or ending in ".md" still round-trips; its title stays one path segment.
  for (const session of ['chat 1/x', 'notes.md']) {
    const t: ScrollTarget = { kind: 'index', session };
    const p = titledScrollPath(t, scrollTitle(t));
    assert.equal(p.split('/').length, 4, p);
    assert.deepEqual(parseScrollPath(p), t);
  }
  // Links written before titles existed.
  assert.deepEqual(parseScrollPath('/event/24.md'), { kind: 'event', seq: 24 });
  assert.deepEqual(parseScrollPath('/segment/30.md'), { kind: 'segment', evictionSeq: 30 });
  assert.deepEqual(parseScrollPath('/range/3-9.md'), { kind: 'range', from: 3, to: 9 });
  assert.deepEqual(parseScrollPath('/index/chat%201%2Fx.md'), { kind: 'index', session: 'chat 1/x' });
});

test('the index explains its levels when it shows a merged line', () => {
  const blocks = Array.from({ length: 12 }, (_, i) => ({
    fromSeq: i * 10 + 1, toSeq: i * 10 + 9, evictionSeq: i * 10 + 10, title: { task: `t${i}`, state: 's', next: 'n' },
  }));
  const md = renderIndexMarkdown('s', EvictionIndex.fromLevel0(blocks, 3), () => 'x');
  assert.match(md, /\(L\d+: a summary of \d+ segments\)/);
  assert.ok(md.includes(INDEX_LEVELS_NOTE));
  assert.match(INDEX_LEVELS_NOTE, /level 0/);
});

test('/index in a session with nothing evicted lists the sessions that have an index', () => {
  const md = renderEvictedSessions([{ session: 'ledger-2026-11-20', evictions: 3 }, { session: 'b', evictions: 1 }], (s) => `command:x?${s}`);
  assert.match(md, /Sessions with an eviction index:/);
  assert.ok(md.includes('- [ledger-2026-11-20](command:x?ledger-2026-11-20): 3 evictions'));
  assert.ok(md.includes('- [b](command:x?b): 1 eviction\n'));
  assert.match(renderEvictedSessions([], () => ''), /No session in this workspace has evicted anything yet/);
});
