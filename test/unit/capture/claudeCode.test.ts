import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createReadStream } from 'node:fs';
import { claudeCodeReader, importFiles, importStream, SOURCES } from '../../../src/core/capture';
import { readClaudeCodeRecord } from '../../../src/core/capture/claudeCode';
import { FIXTURES, capturedEvents, fakeHome, jsonLines, missingOrDoubled, openLog, type Expected } from './captureTestKit';

const SESSION = '5f0e2a41-7c3b-4d8e-9a10-2b6c8d4e1f01';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** Read from the fixture's own structure, not through the reader under test. */
function expectedOf(records: unknown[]): Expected[] {
  const out: Expected[] = [];
  for (const r of records as Array<Record<string, any>>) {
    if ((r.type !== 'user' && r.type !== 'assistant') || !r.message) continue;
    const assistant = r.type === 'assistant';
    const textKind = assistant ? 'model_turn' : r.isCompactSummary ? 'compaction' : 'user_message';
    const c = r.message.content;
    if (typeof c === 'string') {
      out.push({ kind: textKind, content: c });
      continue;
    }
    const texts = c.filter((b: any) => b.type === 'text').map((b: any) => b.text);
    const images = c.some((b: any) => b.type === 'image');
    if (texts.length) out.push({ kind: textKind, content: texts.join('\n\n'), withBinary: images });
    for (const b of c) {
      if (b.type === 'tool_use') out.push({ kind: 'tool_call', name: b.name, content: JSON.stringify(b.input) });
      if (b.type === 'tool_result') out.push({ kind: 'tool_result', content: typeof b.content === 'string' ? b.content : b.content.map((x: any) => x.text).join('\n') });
    }
  }
  return out;
}

const mainFile = (home: string) => join(home, '.claude', 'projects', '-work-proj', `${SESSION}.jsonl`);
const agentFile = (home: string) => join(home, '.claude', 'projects', '-work-proj', SESSION, 'subagents', 'agent-d4e5f6.jsonl');

test('claude code: every user message, assistant text, tool call and tool result appears exactly once, redacted', async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    const files = SOURCES['claude-code']!.locate({ home: h.home });
    assert.equal(files.length, 3, 'two projects and a sub-agent file');
    const s = await importFiles(log, claudeCodeReader, files, { scope: ['/work/proj'] });
    assert.deepEqual(s.problems, []);
    assert.equal(s.outOfScope.length, 1, 'the session in /work/other is out of scope');
    assert.match(s.outOfScope[0], /-work-other/);
    const events = capturedEvents(log);
    assert.equal(s.appended, events.length);
    const expected = [...expectedOf(jsonLines(mainFile(h.home))), ...expectedOf(jsonLines(agentFile(h.home)))];
    assert.ok(expected.length >= 18, `the fixture covers many records (${expected.length})`);
    assert.deepEqual(missingOrDoubled(events, expected), []);

    // Every event: source in meta, session `claude-code:<id>` (sub-agent files belong to their parent session).
    for (const e of events) {
      assert.equal(e.meta.source, 'claude-code');
      assert.equal(e.session, `claude-code:${SESSION}`);
      assert.equal(e.meta.cwd, '/work/proj');
    }
    // The pasted key never reaches the log.
    const all = JSON.stringify(events);
    assert.ok(!all.includes('sk-proj-4fJk29'), 'the pasted key is redacted');
    assert.match(events.find((e) => e.kind === 'user_message' && e.content.startsWith('The price total'))!.content, /\[REDACTED:/);
    // Thinking is its own kind; its signature in meta.
    const thinking = events.filter((e) => e.kind === 'thinking');
    assert.equal(thinking.length, 1);
    assert.equal(thinking[0].content, 'The user says a test fails; read the test file first.');
    // Tool results: the error flag, the call's id, the toolUseResult details (in meta, or an event of their own when large).
    const bash = events.find((e) => e.kind === 'tool_result' && e.toolCallId === 'toolu_01Bash')!;
    assert.equal(bash.meta.isError, true);
    assert.deepEqual((bash.meta.toolUseResult as any).stderr, 'FAIL test/price.test.ts\n  expected 30 but got 29.999999999999996');
    const details = events.filter((e) => e.kind === 'tool_detail');
    assert.equal(details.length, 2, 'the Read and Edit details are large');
    const editDetail = JSON.parse(details.find((e) => e.toolCallId === 'toolu_01Edit')!.content);
    assert.equal(editDetail.structuredPatch[0].lines[1], '+Math.round((a + b.price) * 100) / 100');
    // Sidechains (in the file and in the sub-agent's own file), compaction, model, timestamps.
    assert.equal(events.filter((e) => e.meta.sidechain === true).length, 4);
    assert.deepEqual(events.filter((e) => e.kind === 'compaction').map((e) => e.role), ['system', 'user']);
    assert.equal(events.find((e) => e.kind === 'model_turn' && e.content.startsWith('Done'))!.meta.model, 'claude-sonnet-4-5-20250929');
    assert.equal(events.find((e) => e.toolCallId === 'toolu_01Read' && e.kind === 'tool_call')!.ts, '2025-10-01T10:00:05.000Z');
    // Records not mapped are kept whole.
    const snapshot = events.find((e) => e.content.includes('"file-history-snapshot"'))!;
    assert.equal(snapshot.kind, 'note');
    assert.equal(JSON.parse(snapshot.content).messageId, 'u-0007');
    // The image: bytes in the payload store, named in meta and content, listed for gc.
    const shot = events.find((e) => e.kind === 'user_message' && e.content.startsWith('Here is a screenshot'))!;
    const [bin] = shot.meta.binaries as Array<{ payload: string; mediaType: string; bytes: number }>;
    assert.equal(bin.mediaType, 'image/png');
    assert.equal(bin.bytes, PNG.length);
    assert.ok(log.payloads.readBuffer(bin.payload).equals(PNG), 'the image bytes come back exactly');
    assert.ok(shot.content.endsWith(`[image/png, ${PNG.length} bytes: payload ${bin.payload}]`));
    assert.deepEqual(log.database.prepare('SELECT handle, media_type FROM event_binaries WHERE seq = ?').all(shot.seq), [{ handle: bin.payload, media_type: 'image/png' }]);
    // Search finds captured events and can tell their source.
    const hit = log.search('floating point cents').hits[0];
    assert.ok(hit, 'searchable');
    assert.equal(log.get(hit.seq)!.meta.source, 'claude-code');

    // Importing again appends nothing and reads nothing.
    const again = await importFiles(log, claudeCodeReader, files, { scope: ['/work/proj'] });
    assert.equal(again.appended, 0);
    assert.equal(again.unchanged, 2);
    assert.equal(again.outOfScope.length, 1);
    assert.equal(capturedEvents(log).length, events.length);
  } finally {
    log.close();
    h.dispose();
  }
});

test('claude code stream-json (claude -p --output-format stream-json) imports from a stream, once', async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    const path = join(FIXTURES, 'claude-code', 'stream-json.jsonl');
    const s = await importStream(log, claudeCodeReader, createReadStream(path), 'stdin');
    assert.deepEqual(s.problems, []);
    const events = capturedEvents(log);
    assert.deepEqual(missingOrDoubled(events, expectedOf(jsonLines(path))), []);
    assert.ok(events.every((e) => e.session === 'claude-code:c0ffee00-1111-4222-8333-444455556666'));
    assert.ok(events.every((e) => e.meta.cwd === '/work/proj'), 'the init line names the working directory');
    const again = await importStream(log, claudeCodeReader, createReadStream(path), 'stdin');
    assert.equal(again.appended, 0);
    assert.equal(again.present, events.length);
  } finally {
    log.close();
    h.dispose();
  }
});

test('claude code: a record\'s session_id that differs from its sessionId is kept in the meta, an equal one is not repeated', () => {
  const origin = { path: '/home/dev/.claude/projects/-home-dev-app/5cfbda8d.jsonl', line: 1 };
  const base = { type: 'user', uuid: 'u-1', timestamp: '2026-11-30T10:00:00.000Z', sessionId: 'aaaa', message: { role: 'user', content: 'hello' } };
  const differs = readClaudeCodeRecord({ ...base, session_id: 'bbbb' }, origin).events[0];
  assert.equal(differs.session, 'claude-code:aaaa');
  assert.equal((differs.meta?.unmapped as { record?: { session_id?: string } } | undefined)?.record?.session_id, 'bbbb');
  const same = readClaudeCodeRecord({ ...base, session_id: 'aaaa' }, origin).events[0];
  assert.equal(same.meta?.unmapped, undefined);
});
