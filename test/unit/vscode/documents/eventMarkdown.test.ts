import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LogEvent } from '../../../../src/core/types';
import {
  fenced,
  guessLanguage,
  parseSeqSpec,
  renderEvent,
  renderEvents,
  renderEventsForChat,
  renderHits,
  renderMissingEvent,
  renderSessionExport,
} from '../../../../src/vscode/documents/eventMarkdown';
import { parseScrollPath, scrollUriString } from '../../../../src/shared/scrollUri';
import { renderIndexMarkdown } from '../../../../src/vscode/documents/evictionBlocks';
import { EvictionIndex } from '../../../../src/core/agent/evictionIndex';
import { linkifySeqs, openEventLink, SeqLinkStreamer, seqRanges } from '../../../../src/vscode/chat/chatLinks';

function event(seq: number, content: string, extra: Partial<LogEvent> = {}): LogEvent {
  return {
    seq, session: 's1', kind: 'tool_result', role: 'tool', name: 'scroll_exec', content, ts: '2026-01-02T03:04:05.000Z',
    meta: {}, step: 2, toolCallId: 'c1', parentSeq: null, headline: null, payload: null, bytes: Buffer.byteLength(content), tokens: 3, ...extra,
  };
}

/** The exact content back out of a fenced block produced by `fenced`. */
function unfence(md: string): string {
  const m = /^(`{3,})[^\n]*\n([\s\S]*)\n\1$/m.exec(md.trim());
  assert.ok(m, `not a fenced block: ${md}`);
  return m[2];
}

test('parseSeqSpec reads seqs and ranges and rejects the rest with a clear message', () => {
  assert.deepEqual(parseSeqSpec('42'), { seq: 42 });
  assert.deepEqual(parseSeqSpec(' seq 7 '), { seq: 7 });
  assert.deepEqual(parseSeqSpec('#9'), { seq: 9 });
  assert.deepEqual(parseSeqSpec('40..45'), { from: 40, to: 45 });
  assert.deepEqual(parseSeqSpec('40-45'), { from: 40, to: 45 });
  assert.throws(() => parseSeqSpec('45..40'), /starts after it ends/);
  assert.throws(() => parseSeqSpec('abc'), /not a seq/);
  assert.throws(() => parseSeqSpec(''), /not a seq/);
});

test('content with backtick fences survives exactly inside an event document', () => {
  const content = 'before\n```python\nprint("x")\n```\nand ```` four\n';
  const md = fenced(content);
  assert.equal(unfence(md), content.replace(/\n$/, ''));
  const doc = renderEvent(event(12, content));
  assert.match(doc, /^# Event 12 · tool_result/);
  assert.match(doc, /\*\*seq:\*\* 12/);
  assert.match(doc, /\*\*session:\*\* s1/);
  assert.match(doc, /\*\*time:\*\* 2026-01-02T03:04:05.000Z/);
  assert.ok(doc.includes(content), 'content is complete and unaltered');
});

test('markup in headers is escaped; content is not touched', () => {
  const doc = renderEvent(event(3, '<img src=x onerror=alert(1)>', { headline: '<script>x</script> [a](javascript:1)' }));
  assert.ok(doc.includes('\\<script\\>x\\</script\\> \\[a\\](javascript:1)'));
  assert.ok(doc.includes('<img src=x onerror=alert(1)>\n'));
});

test('missing events and empty ranges say so', () => {
  assert.match(renderMissingEvent(99, 10), /no event with seq 99.*1\.\.10/s);
  assert.match(renderMissingEvent(1, 0), /The log is empty/);
  assert.match(renderEvents('Events 5..6', []), /No events in this range/);
});

test('language guess from content', () => {
  assert.equal(guessLanguage('{"a": 1}'), 'json');
  assert.equal(guessLanguage('import os\nprint(os.getcwd())'), 'python');
  assert.equal(guessLanguage('x', { kind: 'kernel_exec' }), 'python');
  assert.equal(guessLanguage('diff --git a/x b/x\n'), 'diff');
  assert.equal(guessLanguage('just words'), 'plaintext');
  assert.equal(guessLanguage('{not json'), 'plaintext');
});

test('session export holds every event in order, complete', () => {
  const events = [event(1, 'hello', { kind: 'user_message', role: 'user' }), event(2, 'x'.repeat(20000)), event(3, 'done', { kind: 'model_turn', role: 'assistant' })];
  const md = renderSessionExport('s1', events);
  assert.match(md, /^# Scroll session s1/);
  assert.match(md, /3 events \(seq 1\.\.3/);
  assert.ok(md.indexOf('### User — seq 1') < md.indexOf('— seq 2') && md.indexOf('— seq 2') < md.indexOf('### Assistant — seq 3'));
  assert.ok(md.includes('x'.repeat(20000)));
});

test('hits render with seq links and bold matches', () => {
  const md = renderHits('alpha', [{ seq: 5, score: 1, kind: 'note', role: 'user', session: 's', ts: '2026-01-01T00:00:00Z', name: null, headline: null, snippet: 'the «alpha» [x]', broadened: false }], openEventLink);
  assert.ok(md.includes(`[seq 5](${openEventLink(5)})`));
  assert.ok(md.includes('the **alpha** \\[x\\]'));
  assert.match(renderHits('zzz', [], openEventLink), /No events match/);
});

test('scroll: paths round-trip', () => {
  for (const t of [
    { kind: 'event', seq: 4 },
    { kind: 'range', from: 2, to: 9 },
    { kind: 'segment', evictionSeq: 77 },
    { kind: 'index', session: 'chat 1/x' },
  ] as const) {
    const uri = scrollUriString(t);
    assert.deepEqual(parseScrollPath(uri.slice('scroll:'.length)), t);
  }
  assert.deepEqual(parseScrollPath('/payload/' + 'a'.repeat(64) + '.json'), { kind: 'payload', handle: 'a'.repeat(64) });
  assert.equal(parseScrollPath('/nope/1.md'), undefined);
  assert.equal(parseScrollPath('/event/abc.md'), undefined);
});

test('seq mentions become links, except in code and existing links', () => {
  const md = linkifySeqs('see seq 12 and seq 3..5, not `seq 9` nor [seq 8](x)');
  assert.ok(md.includes(`[seq 12](${openEventLink(12)})`));
  assert.ok(md.includes('[seq 3..5](command:scroll.openEvent?'));
  assert.ok(md.includes('`seq 9`'));
  assert.ok(md.includes('[seq 8](x)'));
});

test('the streamer links a seq split across chunks and leaves fenced code alone', () => {
  const out: string[] = [];
  const s = new SeqLinkStreamer((m) => out.push(m));
  s.push('found it in se');
  s.push('q 41.\n```\nseq 2\n```\ntail seq 7');
  s.flush();
  const all = out.join('');
  assert.ok(all.includes(`[seq 41](${openEventLink(41)})`));
  assert.ok(all.includes('```\nseq 2\n```'));
  assert.ok(all.includes(`[seq 7](${openEventLink(7)})`));
});

test('seqRanges compacts', () => {
  assert.deepEqual(seqRanges([5, 3, 4, 9, 9]), [{ from: 3, to: 5 }, { from: 9, to: 9 }]);
});

// Logged fields are text wherever they are shown: none of them may become a link, an image, a
// command URI or raw HTML in the trusted Markdown of the chat and the tabs.
const HOSTILE = '[click me](command:workbench.action.terminal.new) ![t](https://evil.example/t.png) <img src=x> **bold** `code`';

/** Markup that the hostile text would produce if it were not escaped. */
function liveMarkup(md: string): string[] {
  const found: string[] = [];
  for (const m of md.matchAll(/(?<!\\)!?\[[^\]\n]*(?<!\\)\]\((?!command:scroll\.|scroll:)[^)]*\)/g)) found.push(m[0]);
  for (const m of md.matchAll(/(?<!\\)<(img|a|script|iframe)\b/gi)) found.push(m[0]);
  return found;
}

test('search hits escape every logged field: kind, role, session, time, snippet', () => {
  const hit = { seq: 7, score: 1, kind: HOSTILE, role: HOSTILE, session: HOSTILE, ts: HOSTILE, name: HOSTILE, headline: null, snippet: HOSTILE, broadened: false };
  const md = renderHits(HOSTILE, [hit as never], (seq) => `command:scroll.openEvent?${seq}`);
  assert.deepEqual(liveMarkup(md), []);
  assert.match(md, /\[seq 7\]\(command:scroll\.openEvent\?7\)/, 'our own link stays');
});

test('event documents escape kind, role, session, name and headline', () => {
  const e = event(3, 'body', { kind: HOSTILE, role: HOSTILE, session: HOSTILE, name: HOSTILE, headline: HOSTILE, toolCallId: HOSTILE });
  for (const md of [renderEvent(e), renderEvents('range', [e]), renderSessionExport(HOSTILE, [e])]) {
    assert.deepEqual(liveMarkup(md.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '')), [], md);
  }
});

test('eviction index titles and the session name cannot carry links, images or command URIs', () => {
  const index = EvictionIndex.fromLevel0([{ fromSeq: 3, toSeq: 9, title: { task: HOSTILE, state: HOSTILE, next: HOSTILE }, evictionSeq: 10 }]);
  const md = renderIndexMarkdown(HOSTILE, index, (b) => `command:scroll.openEvent?${b.fromSeq}`);
  assert.deepEqual(liveMarkup(md), []);
  assert.match(md, /\[seq 3–9\]\(command:scroll\.openEvent\?3\)/, 'our own link stays');
});

test('an event read from its preview only says so in every Markdown view, as text', () => {
  // The reason comes from the file system (the payload path): it is escaped like any logged field.
  const e = { ...event(4, 'row '.repeat(128), { bytes: 20_000, payload: 'ab'.repeat(32) }), payloadError: `payload ab is missing (expected at /w/${HOSTILE})` };
  const views = { tab: renderEvent(e), range: renderEvents('range', [e]), export: renderSessionExport('s1', [e]), chat: renderEventsForChat([e]) };
  for (const [name, md] of Object.entries(views)) {
    assert.match(md, /Only the first 512 characters of this event \(20000 bytes\) can be shown: its payload file cannot be read/, name);
    assert.deepEqual(liveMarkup(md.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '')), [], `${name}: ${md}`);
  }
  // A whole event carries no such line.
  assert.ok(!renderEvent(event(5, 'whole')).includes('Only the first'));
});
