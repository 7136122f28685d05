/**
 * Gemini CLI through the importer: a fake home with `~/.gemini/tmp/<sha256 of the project>/`;
 * scope by the project hash; `.jsonl` chats streamed by line (a message appended again adds only what
 * is new), `.json` files whole; once, again appending nothing, a grown chat only its new records, a
 * half-written last line picked up later.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { geminiProjectHash, importFiles, SOURCES } from '../../../src/core/capture';
import { capturedEvents, FIXTURES, missingOrDoubled, openLog, type Expected } from './captureTestKit';

const ROOT = '/home/dev/weather';

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-gemini-import-'));
  const home = join(dir, 'home');
  cpSync(join(FIXTURES, 'gemini-cli', '.gemini'), join(home, '.gemini'), { recursive: true });
  const project = join(home, '.gemini', 'tmp', geminiProjectHash(ROOT));
  return { home, project, dbPath: join(dir, 'ws', '.scroll', 'scroll.db'), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Texts, tool calls and results of the chat files, from their records (the last version of each message). */
function expected(project: string): Expected[] {
  const messages = new Map<string, Record<string, any>>();
  const chats = join(project, 'chats');
  for (const f of ['session-2026-12-01T09-00-5e55a0b1.jsonl', '5e55a0b1-2c3d-4e5f-8a9b-0c1d2e3f4a5b/a0b1c2d3-4444-4555-8666-777788889999.jsonl']) {
    for (const line of readFileSync(join(chats, f), 'utf8').split('\n').filter(Boolean)) {
      const r = JSON.parse(line);
      if (typeof r.id === 'string') messages.set(r.id, r);
      for (const m of r.$set?.messages ?? []) if (!messages.has(m.id)) messages.set(m.id, m);
    }
  }
  for (const m of JSON.parse(readFileSync(join(chats, 'session-2026-11-20T08-00-01d5e55a.json'), 'utf8')).messages) messages.set(m.id, m);
  const out: Expected[] = [];
  for (const m of messages.values()) {
    const parts = typeof m.content === 'string' ? [{ text: m.content }] : m.content;
    for (const p of parts) {
      if (typeof p.text !== 'string' || p.text === '') continue;
      out.push({ kind: p.thought ? 'thinking' : m.type === 'user' ? 'user_message' : m.type === 'gemini' ? 'model_turn' : 'note', content: p.text });
    }
    for (const tc of m.toolCalls ?? []) {
      out.push({ kind: 'tool_call', name: tc.name, content: JSON.stringify(tc.args) });
      const fr = tc.result?.find((x: any) => x.functionResponse)?.functionResponse.response;
      if (fr) out.push({ kind: 'tool_result', name: tc.name, content: fr.output ?? fr.error });
    }
  }
  return out;
}

test('gemini import: the project\'s chats and checkpoints once, byte-exact; again 0; grown and half-written lines', async () => {
  const h = setup();
  const log = openLog(h.dbPath);
  try {
    const spec = SOURCES['gemini-cli']!;
    const scope = [ROOT];
    const files = spec.locate({ home: h.home, scope });
    assert.equal(files.length, 6);
    assert.deepEqual(spec.locate({ home: h.home, scope: ['/home/dev/elsewhere'] }), [], 'another project\'s hash folder is not this workspace');
    const opts = { scope, cwdOf: (p: string) => spec.cwdOf!(p, scope) };
    const first = await importFiles(log, spec.reader, files, opts);
    assert.deepEqual(first.problems.map((p) => p.message), [
      'unknown chat record (no id, sessionId, $set or $rewindTo): kept as a note',
      'log entry 2 has no sessionId: kept as a note',
    ]);
    assert.deepEqual(first.noCwd, []);
    const events = capturedEvents(log);
    assert.equal(first.appended, events.length);
    // Checkpoints repeat the chat's content (records of their own): the chats' events are checked here.
    const fromChats = events.filter((e) => (e.meta.capture as { path: string }).path.includes('/chats/'));
    assert.deepEqual(missingOrDoubled(fromChats, expected(h.project)), []);
    assert.ok(events.every((e) => e.meta.source === 'gemini-cli' && e.meta.cwd === ROOT));
    assert.equal(new Set(events.map((e) => e.meta.capture && (e.meta.capture as { record: string }).record)).size, events.length);

    const again = await importFiles(log, spec.reader, files, opts);
    assert.equal(again.appended, 0);

    const chat = join(h.project, 'chats', 'session-2026-12-01T09-00-5e55a0b1.jsonl');
    const msg = { id: 'msg-u9', timestamp: '2026-12-01T09:05:00.000Z', type: 'user', content: [{ text: 'Thanks, that fixed it.' }] };
    const line = JSON.stringify(msg) + '\n';
    appendFileSync(chat, line.slice(0, 25));
    const half = await importFiles(log, spec.reader, files, opts);
    assert.equal(half.appended, 0);
    assert.equal(half.incomplete.length, 1, 'the half-written line waits');
    appendFileSync(chat, line.slice(25) + JSON.stringify({ ...msg, tokens: { input: 1, output: 0, cached: 0, total: 1 } }) + '\n');
    const grown = await importFiles(log, spec.reader, files, opts);
    assert.deepEqual(capturedEvents(log).slice(events.length).map((e) => [e.kind, e.content]), [
      ['user_message', 'Thanks, that fixed it.'],
      ['note', JSON.stringify({ input: 1, output: 0, cached: 0, total: 1 })],
    ]);
    assert.equal(grown.appended, 2);
  } finally {
    log.close();
    h.dispose();
  }
});
