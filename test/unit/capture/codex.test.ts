import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { codexReader, codexSessionOf, importFiles, importStream, SOURCES } from '../../../src/core/capture';
import { FIXTURES, capturedEvents, fakeHome, jsonLines, missingOrDoubled, openLog, type Expected } from './captureTestKit';

const SESSION = '0199a2d7-41c4-78b1-b7cc-a45d62a89cd5';

function expectedOf(records: unknown[]): Expected[] {
  const out: Expected[] = [];
  for (const r of records as Array<Record<string, any>>) {
    const p = r.type === 'response_item' ? r.payload : r.payload === undefined && r.type ? r : undefined;
    if (!p) continue;
    if (p.type === 'message' && (p.role === 'user' || p.role === 'assistant')) {
      const texts = p.content.filter((c: any) => typeof c.text === 'string').map((c: any) => c.text);
      out.push({ kind: p.role === 'user' ? 'user_message' : 'model_turn', content: texts.join('\n\n'), withBinary: p.content.some((c: any) => c.type === 'input_image') });
    }
    if (p.type === 'function_call') out.push({ kind: 'tool_call', name: p.name, content: p.arguments });
    if (p.type === 'custom_tool_call') out.push({ kind: 'tool_call', name: p.name, content: p.input });
    if (p.type === 'function_call_output' || p.type === 'custom_tool_call_output') out.push({ kind: 'tool_result', content: p.output });
  }
  return out;
}

test('codex: every user message, assistant text, tool call and tool result appears exactly once, redacted', async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    const files = SOURCES.codex!.locate({ home: h.home });
    assert.equal(files.length, 2);
    const rollout = files.find((f) => f.includes(SESSION))!;
    const legacy = files.find((f) => f !== rollout)!;
    const s = await importFiles(log, codexReader, files, { scope: ['/work/proj'] });
    assert.deepEqual(s.problems, []);
    assert.deepEqual(s.noCwd, [legacy], 'a legacy rollout records no working directory: offered, not imported');
    const events = capturedEvents(log);
    assert.deepEqual(missingOrDoubled(events, expectedOf(jsonLines(rollout))), []);
    assert.ok(!JSON.stringify(events).includes('ghp_A1b2C3'), 'the pasted token is redacted');
    assert.ok(events.every((e) => e.session === `codex:${SESSION}` && e.meta.source === 'codex' && e.meta.cwd === '/work/proj'));
    const results = events.filter((e) => e.kind === 'tool_result');
    assert.deepEqual(results.map((e) => [e.toolCallId, e.meta.isError]), [['call_A1', false], ['call_A2', true], ['call_P1', false]]);
    assert.equal(events.filter((e) => e.kind === 'thinking').map((e) => e.content).join(), '**Searching for price sums**');
    assert.equal(events.filter((e) => e.kind === 'compaction').length, 1);
    assert.deepEqual(events.filter((e) => e.kind === 'tool_call').map((e) => e.name), ['shell', 'shell', 'apply_patch', 'local_shell', 'web_search']);
    // The UI's copies (event_msg) and the context records are kept whole, not mapped twice.
    const notes = events.filter((e) => e.kind === 'note').map((e) => JSON.parse(e.content).type);
    assert.deepEqual(notes, ['session_meta', 'event_msg', 'turn_context', 'event_msg', 'event_msg', 'event_msg']);
    assert.equal(events.find((e) => e.content.includes('"turn_context"'))!.meta.model, 'gpt-5-codex');
    const image = events.find((e) => Array.isArray(e.meta.binaries))!;
    assert.equal((image.meta.binaries as any[])[0].mediaType, 'image/png');

    // The legacy file imports when named explicitly (no scope).
    const named = await importFiles(log, codexReader, [legacy]);
    assert.equal(named.appended, 4);
    const old = capturedEvents(log).filter((e) => e.session === 'codex:0188b1c2-d3e4-45f6-8a7b-9c0d1e2f3a4b');
    assert.deepEqual(old.map((e) => e.kind), ['note', 'user_message', 'note', 'model_turn']);
    assert.equal((await importFiles(log, codexReader, files, { scope: ['/work/proj'] })).appended, 0);
  } finally {
    log.close();
    h.dispose();
  }
});

test('codex: the session id comes from the rollout file name', () => {
  assert.equal(codexSessionOf(join('/x', `rollout-2025-10-29T00-59-38-${SESSION}.jsonl`)), SESSION);
});

test('codex: a rollout whose file name carries no session id (renamed) is still one session', () => {
  const records = [
    { timestamp: '2025-12-28T12:18:30.533Z', type: 'session_meta', payload: { id: SESSION, cwd: '/work/proj', cli_version: '0.77.0' } },
    { timestamp: '2025-12-28T12:21:44.491Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'check the retry cap' }] } },
    { timestamp: '2025-12-28T12:21:44.492Z', type: 'turn_context', payload: { cwd: '/work/proj', model: 'gpt-5.2-codex' } },
  ];
  for (const path of ['/downloads/sample_codex_session.jsonl']) {
    const sessions = new Set(records.flatMap((r) => codexReader.read(r, { path, line: 1 }).events.map((e) => e.session)));
    assert.equal(sessions.size, 1, `${path}: ${[...sessions].join(', ')}`);
    const meta = codexReader.read(records[0], { path, line: 1 }).events[0].meta;
    assert.equal(meta?.sessionId, SESSION, 'the session_meta record keeps its own id in meta');
  }
  // Named as Codex names it, the file's id and the record's agree.
  const named = join('/x', `rollout-2025-12-28T12-18-30-${SESSION}.jsonl`);
  assert.deepEqual([...new Set(records.flatMap((r) => codexReader.read(r, { path: named, line: 1 }).events.map((e) => e.session)))], [`codex:${SESSION}`]);
});

test('codex: a rollout piped in (--path -) is the session its session_meta names; two streams are two sessions', async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    const rollout = (id: string, text: string) =>
      [
        { timestamp: '2025-12-28T12:18:30.533Z', type: 'session_meta', payload: { id, cwd: '/work/proj' } },
        { timestamp: '2025-12-28T12:21:44.491Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } },
        { timestamp: '2025-12-28T12:21:46.000Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer to ${text}` }] } },
      ].map((r) => JSON.stringify(r) + '\n').join('');
    const other = '0199ffff-0000-7000-8000-000000000001';
    await importStream(log, codexReader, Readable.from([rollout(SESSION, 'first question')]), 'stdin');
    await importStream(log, codexReader, Readable.from([rollout(other, 'second question')]), 'stdin');
    // A rollout from before the {type, payload} wrapper: its first line is the session's fields.
    const legacy = '0188b1c2-d3e4-45f6-8a7b-9c0d1e2f3a4b';
    const legacyLines = [{ id: legacy, timestamp: '2025-05-07T17:24:21.123Z', instructions: null }, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'a legacy question' }] }];
    await importStream(log, codexReader, Readable.from([legacyLines.map((r) => JSON.stringify(r) + '\n').join('')]), 'stdin');
    const sessions = new Map<string, number>();
    for (const e of capturedEvents(log)) sessions.set(e.session, (sessions.get(e.session) ?? 0) + 1);
    assert.deepEqual([...sessions], [[`codex:${SESSION}`, 3], [`codex:${other}`, 3], [`codex:${legacy}`, 2]]);
  } finally {
    log.close();
    h.dispose();
  }
});

test('codex: a tool output holds its text as given, the exit code in its text sets the error flag, and content items give their text and images', async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    const file = join(FIXTURES, 'codex', 'outputs', 'rollout-2026-02-03T09-10-11-019b7c3e-5a1d-7f20-9c44-2e8d6b1a0f57.jsonl');
    const s = await importFiles(log, codexReader, [file]);
    assert.deepEqual(s.problems, []);
    const results = new Map(capturedEvents(log).filter((e) => e.kind === 'tool_result').map((e) => [e.toolCallId, e]));
    // Codex's shell tools write "Exit code: N" (shell) or "Process exited with code N" (exec) above the output.
    assert.equal(results.get('call_seeds')?.meta.isError, true);
    assert.equal(results.get('call_beds')?.meta.isError, false);
    assert.equal(results.get('call_water')?.meta.isError, true);
    assert.equal(results.get('call_beds')?.content, 'Exit code: 0\nWall time: 0.1 seconds\nOutput:\nnorth\nsouth\n');
    // An output of content items (an image a tool looked at, a patch's result): their text, images as binaries.
    const plan = results.get('call_plan')!;
    assert.ok(plan.content.startsWith('plan.png, 1x1\nbed layout sketch\n[image/png, '), plan.content);
    assert.equal((plan.meta.binaries as unknown[]).length, 1);
    assert.deepEqual((plan.meta.unmapped as { output: unknown }).output, [{ part: 1, detail: 'auto' }]);
    assert.equal(results.get('call_patch')?.content, 'Success. Updated the following files:\nA beds/east\n');
  } finally {
    log.close();
    h.dispose();
  }
});
