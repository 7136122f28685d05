/**
 * The Gemini CLI reader: a chat `.jsonl` read line by line (a message appended again when it
 * changes adds only what it did not hold before), the legacy whole `.json`, `/chat save`
 * checkpoints, restorable checkpoints and logs.json; every message part, tool call and tool result
 * once, byte-exact; images as binaries; workspace scope by the project hash. Fixtures:
 * test/fixtures/capture/gemini-cli/.gemini/tmp/<sha256 of /home/dev/weather>/ (the folder is a fake home).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { geminiFileKind, geminiProjectHash, geminiShortSessionId, readGemini } from '../../../src/core/capture/gemini';
import { locateGemini } from '../../../src/core/capture/readerDiscovery';
import type { CapturedEvent, CaptureProblem } from '../../../src/core/capture/types';

const HOME = join(__dirname, '../../../../test/fixtures/capture/gemini-cli');
const HASH = geminiProjectHash('/home/dev/weather');
const PROJECT = join(HOME, '.gemini', 'tmp', HASH);
const CHAT = join(PROJECT, 'chats', 'session-2026-12-01T09-00-5e55a0b1.jsonl');
type J = Record<string, any>;

/** Reads a `.jsonl` as the importer does (line by line), then keeps the first event of each record id, as the database does. */
function readLines(path: string, text = readFileSync(path, 'utf8')) {
  const all: CapturedEvent[] = [];
  const problems: CaptureProblem[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    const out = readGemini(JSON.parse(line), { path, line: i + 1 });
    all.push(...out.events);
    problems.push(...out.problems);
  });
  const kept = new Map<string, CapturedEvent>();
  for (const e of all) if (!kept.has(e.recordId)) kept.set(e.recordId, e);
  return { all, events: [...kept.values()], problems };
}

const once = (events: CapturedEvent[], pred: (e: CapturedEvent) => boolean, what: string) => {
  const hits = events.filter(pred);
  assert.equal(hits.length, 1, `${what}: ${hits.length} events, want exactly 1`);
  return hits[0];
};

/** The test's oracle: every message's parts, thoughts, tool calls and results once, byte-exact. */
function assertMessageFaithful(m: J, events: CapturedEvent[]) {
  const parts = typeof m.content === 'string' ? [{ text: m.content }] : m.content ?? [];
  const textKind = m.type === 'user' ? 'user_message' : m.type === 'gemini' ? 'model_turn' : 'note';
  parts.forEach((p: J, k: number) => {
    const what = `${m.id} part ${k}`;
    if (p.text === '') return;
    const e = once(events, (x) => x.recordId === `${m.id}#part.${k}`, what);
    if (typeof p.text === 'string') {
      assert.equal(e.content, p.text, what);
      assert.equal(e.kind, p.thought ? 'thinking' : textKind, what);
    } else if (p.inlineData) {
      assert.equal(Buffer.from(e.binaries![0].data).toString('base64'), p.inlineData.data);
      assert.equal(e.binaries![0].mediaType, p.inlineData.mimeType);
    }
  });
  (m.thoughts ?? []).forEach((t: J, k: number) => {
    const e = once(events, (x) => x.recordId === `${m.id}#thought.${k}`, `${m.id} thought ${k}`);
    assert.equal(e.kind, 'thinking');
    assert.equal(e.content, `${t.subject}\n${t.description}`);
  });
  for (const tc of m.toolCalls ?? []) {
    const call = once(events, (x) => x.recordId === `${m.id}#tool.${tc.id}`, `${tc.id} call`);
    assert.equal(call.kind, 'tool_call');
    assert.equal(call.name, tc.name);
    assert.equal(call.content, JSON.stringify(tc.args));
    const res = events.filter((x) => x.recordId === `${m.id}#tool.${tc.id}.result`);
    if (!tc.result) {
      assert.equal(res.length, 0, `${tc.id} has no result yet`);
      continue;
    }
    assert.equal(res.length, 1, `${tc.id} result once`);
    const fr = tc.result.find((p: J) => p.functionResponse).functionResponse.response;
    const texts = [fr.output ?? fr.error, ...tc.result.filter((p: J) => typeof p.text === 'string').map((p: J) => p.text)];
    assert.equal(res[0].content, texts.join('\n'), `${tc.id} output`);
    assert.equal(res[0].meta?.isError, tc.status === 'error' || fr.error !== undefined);
    assert.equal(res[0].toolCallId, tc.id);
    tc.result.filter((p: J) => p.inlineData).forEach((p: J, n: number) => {
      const img = once(events, (x) => x.recordId === `${m.id}#tool.${tc.id}.result.image.${n}`, `${tc.id} image`);
      assert.equal(Buffer.from(img.binaries![0].data).toString('base64'), p.inlineData.data);
    });
  }
  if (m.tokens) assert.deepEqual(JSON.parse(once(events, (x) => x.recordId === `${m.id}#tokens`, `${m.id} tokens`).content), m.tokens);
}

test('gemini: a chat .jsonl read line by line maps every message, thought, tool call and result once', () => {
  const text = readFileSync(CHAT, 'utf8');
  const records = text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const { all, events, problems } = readLines(CHAT, text);
  // The last version of each message (what Gemini itself reads back) is what the log holds.
  const last = new Map<string, J>();
  for (const r of records) {
    if (typeof r.id === 'string') last.set(r.id, r);
    for (const m of r.$set?.messages ?? []) if (!last.has(m.id)) last.set(m.id, m);
  }
  for (const m of last.values()) assertMessageFaithful(m, events);
  for (const e of all) {
    assert.equal(e.session, 'gemini-cli:5e55a0b1');
    assert.equal(e.meta?.projectHash, HASH);
    const first = events.find((x) => x.recordId === e.recordId)!;
    assert.deepEqual({ ...e, meta: undefined }, { ...first, meta: undefined }, `a record appended again (${e.recordId}) reads the same`);
  }
  assert.equal(once(events, (e) => e.name === 'gemini.session', 'session').meta?.sessionId, '5e55a0b1-2c3d-4e5f-8a9b-0c1d2e3f4a5b');
  assert.equal(once(events, (e) => e.name === 'gemini.metadata', 'summary').meta?.summary, 'Fix Kelvin output in forecast.py');
  assert.equal(once(events, (e) => e.name === 'gemini.rewind', 'rewind').content, 'msg-u2');
  assert.equal(once(events, (e) => e.recordId === 'msg-i1#part.0', 'info').name, 'gemini.info');
  assert.equal(once(events, (e) => e.recordId === 'msg-g1#part.0', 'model').meta?.model, 'gemini-2.5-pro');
  assert.deepEqual(once(events, (e) => e.recordId === 'msg-u1#part.0', 'user').meta?.displayContent, [{ text: 'Why does @forecast.py print temperatures in Kelvin?' }]);
  // The one unknown line: kept whole and named with its line; a `lastUpdated` tick alone adds nothing.
  assert.deepEqual(problems.map((p) => p.origin.line), [records.length]);
  assert.equal(once(events, (e) => e.meta?.kept !== undefined, 'kept whole').content, '{"mystery":42}');
  const ticks = records.filter((r) => r.$set && Object.keys(r.$set).join() === 'lastUpdated').length;
  assert.ok(ticks > 0);
  assert.equal(events.length, new Set(events.map((e) => e.recordId)).size);
});

test('gemini: a tool call read before its result, and the result once the message is appended again', () => {
  const lines = readFileSync(CHAT, 'utf8').split('\n').filter(Boolean);
  const upTo = lines.findIndex((l) => l.includes('"status":"executing"'));
  const early = readLines(CHAT, lines.slice(0, upTo + 1).join('\n'));
  assert.ok(early.events.some((e) => e.kind === 'tool_call' && e.name === 'read_file'));
  assert.ok(!early.events.some((e) => e.kind === 'tool_result'));
  const later = readLines(CHAT);
  const fresh = later.events.filter((e) => !early.events.some((x) => x.recordId === e.recordId));
  assert.ok(fresh.some((e) => e.kind === 'tool_result' && e.name === 'read_file'), 'the grown file adds the result');
  assert.ok(!fresh.some((e) => e.kind === 'tool_call' && e.name === 'read_file'), 'and not the call again');
});

test('gemini: a sub-agent chat, the legacy .json, checkpoints and logs.json', () => {
  const sub = readLines(join(PROJECT, 'chats', '5e55a0b1-2c3d-4e5f-8a9b-0c1d2e3f4a5b', 'a0b1c2d3-4444-4555-8666-777788889999.jsonl'));
  assert.equal(sub.events[0].session, 'gemini-cli:a0b1c2d3');
  assert.equal(sub.events[1].meta?.parentSession, '5e55a0b1-2c3d-4e5f-8a9b-0c1d2e3f4a5b');
  assert.deepEqual(sub.events.map((e) => e.kind), ['note', 'user_message', 'model_turn']);

  const legacyPath = join(PROJECT, 'chats', 'session-2026-11-20T08-00-01d5e55a.json');
  const legacy = JSON.parse(readFileSync(legacyPath, 'utf8'));
  const old = readGemini(legacy, { path: legacyPath });
  assert.deepEqual(old.problems, []);
  for (const m of legacy.messages) assertMessageFaithful(m, old.events);
  assert.equal(old.events[0].session, 'gemini-cli:01d5e55a');

  const ckPath = join(PROJECT, 'checkpoint-before-units.json');
  const ck = readGemini(JSON.parse(readFileSync(ckPath, 'utf8')), { path: ckPath });
  assert.deepEqual(ck.problems, []);
  assert.equal(ck.events[0].session, 'gemini-cli:checkpoint-before-units');
  assert.deepEqual(ck.events.map((e) => e.kind), ['user_message', 'thinking', 'tool_call', 'tool_result', 'model_turn', 'note', 'note']);
  assert.equal(ck.events[2].toolCallId, 'ck-1');
  assert.equal(ck.events[3].content, 'import requests\n');
  assert.equal(Buffer.from(ck.events[5].binaries![0].data).toString('base64'), '/9j/4AAQ');
  assert.equal(ck.events[6].content, JSON.stringify({ fileData: { mimeType: 'application/pdf', fileUri: 'gs://bucket/spec.pdf' } }));
  // Saving the same tag again with a longer history adds only the new entries.
  const grown = [...JSON.parse(readFileSync(ckPath, 'utf8')), { role: 'model', parts: [{ text: 'Done.' }] }];
  const ids = new Set(ck.events.map((e) => e.recordId));
  const more = readGemini(grown, { path: ckPath }).events.filter((e) => !ids.has(e.recordId));
  assert.deepEqual(more.map((e) => e.content), ['Done.']);

  const restorePath = join(PROJECT, 'checkpoints', '2026-12-01T09_00_11_000Z-forecast.py-replace.json');
  const restore = readGemini(JSON.parse(readFileSync(restorePath, 'utf8')), { path: restorePath });
  assert.deepEqual(restore.events.map((e) => e.name ?? e.kind), ['gemini.checkpoint', 'user_message', 'replace', 'gemini.uiHistory']);
  assert.equal(restore.events[0].meta?.commitHash, '1e2d3c4b5a69788796a5b4c3d2e1f00112233445');

  const logsPath = join(PROJECT, 'logs.json');
  const logs = readGemini(JSON.parse(readFileSync(logsPath, 'utf8')), { path: logsPath });
  assert.deepEqual(logs.events.slice(0, 2).map((e) => [e.session, e.content]), [
    ['gemini-cli:5e55a0b1', 'Why does @forecast.py print temperatures in Kelvin?'],
    ['gemini-cli:5e55a0b1', 'Here is the chart it draws:'],
  ]);
  assert.equal(logs.problems.length, 1, 'the entry without a session is named');
  assert.equal(logs.events.length, 3, 'and kept whole');
});

test('gemini: record ids are stable across reads and unique per file', () => {
  const files = locateGemini(HOME);
  assert.equal(files.length, 6);
  for (const p of files) {
    const a = p.endsWith('.jsonl') ? readLines(p).events : readGemini(JSON.parse(readFileSync(p, 'utf8')), { path: p }).events;
    const b = p.endsWith('.jsonl') ? readLines(p).events : readGemini(JSON.parse(readFileSync(p, 'utf8')), { path: p }).events;
    assert.deepEqual(a, b, p);
    assert.equal(new Set(a.map((e) => e.recordId)).size, a.length, p);
  }
});

test('gemini: bad files are named once; an unknown path is refused', () => {
  const bad = join(HOME, 'bad', 'tmp', HASH);
  const broken = readGemini(readFileSync(join(bad, 'checkpoint-broken.json'), 'utf8'), { path: join(bad, 'checkpoint-broken.json') });
  assert.equal(broken.problems.length, 1);
  assert.equal(broken.problems[0].perFile, true);
  assert.match(broken.problems[0].message, /^not JSON/);
  const logs = readGemini({ not: 'an array' }, { path: join(bad, 'logs.json') });
  assert.deepEqual(logs.problems.map((p) => p.message), ['logs.json is not a JSON array']);
  assert.equal(readGemini({}, { path: '/somewhere/else.json' }).problems[0].perFile, true);
});

test('gemini: the project hash is sha256 of the root; discovery finds a project\'s files, or every project\'s', () => {
  assert.equal(HASH, '311f553fe5d0fa48d7228625993522a01b9723437fd6155bfff4f433ab7cac30');
  assert.equal(geminiShortSessionId('/x/chats/session-2026-12-01T09-00-5e55a0b1.jsonl'), '5e55a0b1');
  assert.equal(geminiFileKind(join(PROJECT, 'logs.json')), 'logs');
  const mine = locateGemini(HOME, ['/home/dev/weather']);
  assert.deepEqual(mine.map((p) => p.slice(PROJECT.length + 1)), [
    'chats/session-2026-11-20T08-00-01d5e55a.json',
    'chats/session-2026-12-01T09-00-5e55a0b1.jsonl',
    'chats/5e55a0b1-2c3d-4e5f-8a9b-0c1d2e3f4a5b/a0b1c2d3-4444-4555-8666-777788889999.jsonl',
    'checkpoint-before-units.json',
    'checkpoints/2026-12-01T09_00_11_000Z-forecast.py-replace.json',
    'logs.json',
  ]);
  assert.deepEqual(locateGemini(HOME, ['/home/dev/elsewhere']), []);
  assert.deepEqual(locateGemini(HOME), mine);
});

test('gemini: a part\'s fields beside its call or response (the thought signature) and a tool call\'s other fields are kept', () => {
  const dir = join(HOME, 'variants', 'tmp', HASH);
  const ckPath = join(dir, 'checkpoint-signed.json');
  const ck = readGemini(JSON.parse(readFileSync(ckPath, 'utf8')), { path: ckPath });
  assert.deepEqual(ck.problems, []);
  assert.deepEqual(ck.events.map((e) => e.kind), ['user_message', 'thinking', 'tool_call', 'tool_result', 'model_turn']);
  const [, , call, result] = ck.events;
  assert.equal(call.content, JSON.stringify({ pattern: 'CITIES' }));
  assert.deepEqual(call.meta?.partExtra, { thoughtSignature: 'c2lnLWNhbGw=' });
  assert.equal(result.content, "forecast.py:3: CITIES = ['Oslo', 'Lima']");
  assert.deepEqual(result.meta?.responseExtra, { willContinue: false });

  const chat = readLines(join(dir, 'chats', 'session-2026-12-02T10-00-7a1b2c3d.jsonl'));
  assert.deepEqual(chat.problems, []);
  const shell = once(chat.events, (e) => e.kind === 'tool_call', 'the shell call');
  assert.deepEqual(shell.meta?.callExtra, { outputFile: '/tmp/gemini-shell-7a1b.log', approvalMode: 'auto_edit' });
  assert.equal(once(chat.events, (e) => e.kind === 'tool_result', 'its result').content, '2 passed');
});
