import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { EventLog } from '../../../../src/core/log/eventLog';
import { DAMAGED_INDEX_HINT } from '../../../../src/core/search/search';
import { indexFromEvents, renderIndexMarkdown } from '../../../../src/vscode/documents/evictionBlocks';
import { segmentEvents, sessionEvents, sessionIndex, latestSession } from '../../../../src/vscode/documents/historyQueries';
import { expandHistory, searchHistoryText } from '../../../../src/vscode/tools/historyText';

function withLog(fn: (log: EventLog) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-editor-'));
  const log = EventLog.open({ path: join(dir, 'scroll.db'), session: 'a' });
  try {
    fn(log);
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('history tools search and expand the real log', () => {
  withLog((log) => {
    log.append({ kind: 'user_message', role: 'user', content: 'the deploy password rotation happens on Fridays' });
    log.append({ kind: 'model_turn', role: 'assistant', content: 'noted', session: 'b' });
    const big = 'line\n'.repeat(5000);
    const bigEv = log.append({ kind: 'tool_result', role: 'tool', content: big, name: 'scroll_runCommand' });
    const text = searchHistoryText(log, { query: 'rotation Fridays' });
    assert.match(text, /^\d+ hit\(s\) for "rotation Fridays"/);
    assert.match(text.split('\n')[1], /^seq 1 · user_message · user · a ·/, 'the matching event is the first hit');
    assert.ok(text.includes('«rotation»'), 'snippets mark the matched terms');
    assert.throws(() => searchHistoryText(log, { query: '  ' }), /query is required/);
    assert.match(searchHistoryText(log, { query: 'nothingmatcheshere' }), /No events match/);

    const one = expandHistory(log, { seq: 1 }, 10_000);
    assert.match(one, /=== seq 1 · user_message · user · session a/);
    assert.ok(one.includes('the deploy password rotation happens on Fridays'));
    assert.match(expandHistory(log, { seq: 99 }, 10_000), /No event at seq 99\. The log holds seq 1\.\.3/);

    const full = expandHistory(log, { seq: bigEv.seq }, 1_000_000);
    assert.ok(full.includes(big), 'payload content is resolved in full');
    const capped = expandHistory(log, { from: 1, to: 3 }, 2_000);
    assert.ok(capped.length < 3_000);
    assert.match(capped, /more characters: expand seq 3 alone|stopped before seq 3/);

    // Captured transcripts: the source filter keeps the events of that agent (meta.source).
    log.append({ kind: 'user_message', role: 'user', content: 'rotation of the Fridays rota', session: 'claude-code:s1', meta: { source: 'claude-code' } });
    const captured = searchHistoryText(log, { query: 'rotation Fridays', source: 'claude-code' });
    assert.match(captured, /^1 hit\(s\)/);
    assert.match(captured.split('\n')[1], /^seq 4 · user_message · user · claude-code:s1 ·/);
    assert.match(searchHistoryText(log, { query: 'rotation Fridays', source: 'codex' }), /No events match/);
  });
});

test('eviction events rebuild the session index; segments list their events', () => {
  withLog((log) => {
    for (let i = 0; i < 6; i++) log.append({ kind: 'user_message', role: 'user', content: `fact ${i}` });
    const ev = log.append({
      kind: 'eviction', role: 'system', content: 'evicted 1-3',
      meta: { fromSeq: 1, toSeq: 3, title: { task: 'collect facts', state: 'three found', next: 'more' } },
    });
    log.append({ kind: 'user_message', role: 'user', content: 'other session', session: 'zz' });
    const index = sessionIndex(log, 'a', 8);
    assert.equal(index.segments, 1);
    const md = renderIndexMarkdown('a', index, (b) => `scroll:/segment/${b.evictionSeq}.md`);
    assert.match(md, /\[seq 1–3\]\(scroll:\/segment\/7\.md\): task: collect facts \| state: three found \| next: more/);
    const seg = segmentEvents(log, ev.seq);
    assert.deepEqual(seg?.events.map((e) => e.seq), [1, 2, 3]);
    assert.equal(segmentEvents(log, 1), undefined);
    assert.deepEqual(sessionEvents(log, 'zz').map((e) => e.content), ['other session']);
    assert.equal(latestSession(log), 'zz');
    assert.equal(indexFromEvents([]).segments, 0);
  });
});

test('history search tool: a damaged index is reported with the editor command that repairs it', () => {
  const fakeDamagedLog = {
    search: () => ({ hits: [], broadened: false, message: `search failed: database disk image is malformed (${DAMAGED_INDEX_HINT})` }),
  } as unknown as Pick<EventLog, 'search'>;
  const text = searchHistoryText(fakeDamagedLog, { query: 'anything' });
  assert.match(text, /^No search run: search failed: database disk image is malformed/);
  assert.match(text, /the command "Scroll: Rebuild Search Index" rebuilds it/);
  assert.ok(!text.includes('scroll reindex'));
});

test('expand and the session views give an event whose payload file is gone as its marked preview, the rest whole', () => {
  withLog((log) => {
    const before = log.append({ kind: 'user_message', role: 'user', content: 'show me the log' });
    const big = log.append({ kind: 'tool_result', role: 'tool', content: 'line\n'.repeat(5000) + 'END', name: 'run' });
    const after = log.append({ kind: 'model_turn', role: 'assistant', content: 'it ends with END' });
    unlinkSync(log.payloads.pathFor(big.payload!));
    const text = expandHistory(log, { from: before.seq, to: after.seq }, 100_000);
    assert.match(text, /show me the log/);
    assert.match(text, /it ends with END/);
    assert.match(text, /\[Only the first 512 characters of this event \(\d+ bytes\) can be shown: its payload file cannot be read \(payload [0-9a-f]{64} is missing/);
    assert.match(expandHistory(log, { seq: big.seq }, 100_000), /Only the first 512 characters/);
    const session = sessionEvents(log, 'a');
    assert.deepEqual(session.map((e) => e.seq), [before.seq, big.seq, after.seq]);
    assert.match(session[1].payloadError!, /is missing/);
  });
});
