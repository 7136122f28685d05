/**
 * Copilot Chat through the importer: a fake home with a VS Code user-data folder whose workspace
 * storage holds the chat session fixtures; located by the workspace's folder (workspace.json),
 * imported once, re-imported appending nothing, a grown session log appending only its new records.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importFiles, SOURCES } from '../../../src/core/capture';
import { SCROLL_OWN_TURNS, UNFINISHED_NOTE } from '../../../src/core/capture/copilotChat';
import { SETTLED_AFTER_MS } from '../../../src/core/capture/types';
import { capturedEvents, FIXTURES, missingOrDoubled, openLog, type Expected } from './captureTestKit';

const CHATS = join(FIXTURES, 'copilot-chat');
const OURS = 'c0ffee00-1111-4222-8333-444455556666.jsonl';

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-copilot-import-'));
  const home = join(dir, 'home');
  const storage = (id: string, folder: string) => {
    const ws = join(home, '.config', 'Code', 'User', 'workspaceStorage', id);
    mkdirSync(join(ws, 'chatSessions'), { recursive: true });
    writeFileSync(join(ws, 'workspace.json'), JSON.stringify({ folder: `file://${folder}` }));
    return ws;
  };
  const mine = storage('1ed4ca38', '/work/shop');
  for (const f of ['9bff5b6f-dba8-4eb6-adbb-c025d6cf1f48.jsonl', OURS, 'flat-v3.json', 'export.json']) cpSync(join(CHATS, f), join(mine, 'chatSessions', f));
  const other = storage('77aa0000', '/work/other');
  cpSync(join(CHATS, 'old-v2.json'), join(other, 'chatSessions', 'old-v2.json'));
  return { home, mine, dbPath: join(dir, 'ws', '.scroll', 'scroll.db'), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** How many requests of the real code-server session Scroll's own participant answered (all of them). */
function ownRequests(): number {
  let n = 0;
  for (const line of readFileSync(join(CHATS, '9bff5b6f-dba8-4eb6-adbb-c025d6cf1f48.jsonl'), 'utf8').split('\n').filter(Boolean)) {
    const e = JSON.parse(line);
    if (e.kind === 2 && e.k.join() === 'requests') n += e.v.filter((r: Record<string, any>) => r.agent?.id === 'scroll.agent').length;
  }
  return n;
}

/** Messages and replies the fixtures hold, read from their own JSON (the last request of ours is still streaming). */
function expected(): Expected[] {
  const out: Expected[] = [];
  // 9bff5b6f-….jsonl holds only requests of Scroll's own @scroll participant: none is captured.
  const requests: Array<Record<string, any>> = [];
  requests.push(JSON.parse(readFileSync(join(CHATS, 'flat-v3.json'), 'utf8')).requests[0]);
  requests.push(JSON.parse(readFileSync(join(CHATS, 'export.json'), 'utf8')).requests[0]);
  for (const r of requests) {
    out.push({ kind: 'user_message', content: r.message.text });
    for (const p of r.response) {
      if (p.kind === undefined) out.push({ kind: 'model_turn', content: p.value });
      if (p.kind === 'toolInvocationSerialized') {
        out.push({ kind: 'tool_call', name: p.toolId, content: p.resultDetails?.input ?? '' });
        if (Array.isArray(p.resultDetails?.output)) out.push({ kind: 'tool_result', name: p.toolId, content: p.resultDetails.output.map((o: any) => o.value).join('\n') });
      }
    }
  }
  out.push({ kind: 'user_message', content: 'Why does parse_amount reject "1,5"? Fix it in money.py.' });
  out.push({ kind: 'user_message', content: 'Now also accept a leading currency sign.' });
  return out;
}

/** The fixtures' fake home, its log, and the Copilot Chat source located for the /work/shop workspace. */
function shop() {
  const h = setup();
  const log = openLog(h.dbPath);
  const spec = SOURCES['copilot-chat']!;
  const scope = ['/work/shop'];
  const files = spec.locate({ home: h.home, scope });
  const opts = { scope, cwdOf: (p: string) => spec.cwdOf!(p, scope) };
  return { h, log, spec, files, opts };
}

test('copilot chat import: the workspace\'s sessions once, byte-exact after redaction; again appends 0; a grown log only its new records', async () => {
  const { h, log, spec, files, opts } = shop();
  try {
    assert.equal(files.length, 4, 'only the storage folder of /work/shop');
    const first = await importFiles(log, spec.reader, files, opts);
    assert.deepEqual(first.problems, []);
    assert.deepEqual(first.noCwd, [], 'the storage folder names its workspace');
    const events = capturedEvents(log);
    assert.equal(first.appended, events.length);
    assert.deepEqual(missingOrDoubled(events, expected()), []);
    assert.deepEqual(first.skipped, [{ reason: SCROLL_OWN_TURNS, records: ownRequests() }], "Scroll's own turns are skipped, and the summary says why");
    assert.ok(!events.some((e) => e.session === 'copilot-chat:9bff5b6f-dba8-4eb6-adbb-c025d6cf1f48' || e.meta.agentId === 'scroll.agent'));
    assert.ok(events.every((e) => e.meta.source === 'copilot-chat' && e.session.startsWith('copilot-chat:')));
    const image = events.find((e) => e.name === 'image' && e.role === 'user')!;
    assert.match(image.content, /^\[image\/png, 8 bytes: payload [0-9a-f]{64}\]$/);

    const again = await importFiles(log, spec.reader, files, opts);
    assert.equal(again.appended, 0);
    assert.equal(again.unchanged, 4);

    // The streaming reply ends: its parts and result are new, nothing else is.
    const ours = join(h.mine, 'chatSessions', OURS);
    appendFileSync(ours, JSON.stringify({ kind: 2, k: ['requests', 1, 'response'], i: 0, v: [{ value: 'Done: a leading € or $ is stripped before parsing.' }] }) + '\n'
      + JSON.stringify({ kind: 1, k: ['requests', 1, 'modelState'], v: { value: 1, completedAt: 1764590520000 } }) + '\n');
    const grown = await importFiles(log, spec.reader, files, opts);
    assert.deepEqual(grown.problems, []);
    const added = capturedEvents(log).slice(events.length);
    assert.deepEqual(added.map((e) => [e.kind, e.name]), [['model_turn', null], ['note', 'copilot.response']]);
    assert.equal(added[0].content, 'Done: a leading € or $ is stripped before parsing.');
    assert.equal(grown.appended, 2);
  } finally {
    log.close();
    h.dispose();
  }
});

test('copilot chat import: a reply its window stopped writing is imported as it stood once the file has settled, though the file did not change', async () => {
  const { h, log, spec, files, opts: located } = shop();
  try {
    const ours = join(h.mine, 'chatSessions', OURS);
    let clock = Date.now();
    const opts = { ...located, now: () => clock };
    const first = await importFiles(log, spec.reader, files, opts);
    assert.deepEqual(first.incomplete.map((p) => p.path), [ours], 'the summary names the file whose reply is still being written');
    assert.match(first.incomplete[0].message, /still being written: left for a later import/);
    const before = capturedEvents(log).length;
    assert.ok(!capturedEvents(log).some((e) => e.content.includes('Working on it')));

    const soon = await importFiles(log, spec.reader, files, opts);
    assert.equal(soon.appended, 0);
    assert.equal(soon.unchanged, 4);
    assert.deepEqual(soon.incomplete.map((p) => p.path), [ours], 'still waiting, and still said');

    // Nothing wrote the file for SETTLED_AFTER_MS: the window that streamed the reply is gone.
    clock += SETTLED_AFTER_MS + 1000;
    const settled = await importFiles(log, spec.reader, files, opts);
    assert.deepEqual(settled.problems, []);
    assert.deepEqual(settled.incomplete, []);
    const added = capturedEvents(log).slice(before);
    assert.ok(added.length >= 2, 'the reply as it stood, and its state');
    assert.ok(added.some((e) => e.content.includes('Working on it')), 'the half-streamed text is in the log');
    assert.ok(added.every((e) => e.meta.unfinished === UNFINISHED_NOTE && e.session === added[0].session));
    assert.equal(settled.appended, added.length);

    const again = await importFiles(log, spec.reader, files, opts);
    assert.equal(again.appended, 0);
    assert.equal(again.unchanged, 4, 'read once settled, then left alone');
    assert.deepEqual(again.incomplete, []);

    // The reply ends after all: its complete form is added beside the unfinished one.
    appendFileSync(ours, JSON.stringify({ kind: 1, k: ['requests', 1, 'modelState'], v: { value: 1, completedAt: 1764590520000 } }) + '\n');
    clock = Date.now();
    const ended = await importFiles(log, spec.reader, files, opts);
    const tail = capturedEvents(log).slice(before + added.length);
    assert.ok(tail.some((e) => e.content.includes('Working on it') && e.meta.unfinished === undefined));
    assert.equal(ended.appended, tail.length);
  } finally {
    log.close();
    h.dispose();
  }
});

test('copilot chat import: a log from before schema 6, whose cursor held back a reply without saying so, reads that file once more when it has settled', async () => {
  const { h, log, spec, files, opts: located } = shop();
  let reopened: ReturnType<typeof openLog> | undefined;
  try {
    let clock = Date.now();
    const opts = { ...located, now: () => clock };
    await importFiles(log, spec.reader, files, opts);
    const before = capturedEvents(log).length;
    // The cursors as schema 5 left them: no waiting column.
    log.database.exec(`ALTER TABLE capture_cursors DROP COLUMN waiting;
      UPDATE scroll_meta SET value = '5' WHERE key = 'schema_version'; PRAGMA user_version = 5;`);
    log.close();
    reopened = openLog(h.dbPath);
    clock += SETTLED_AFTER_MS + 1000;
    const settled = await importFiles(reopened, spec.reader, files, opts);
    const added = capturedEvents(reopened).slice(before);
    assert.ok(added.some((e) => e.content.includes('Working on it')), 'the reply held back by the old read is in the log');
    assert.equal(settled.appended, added.length);
    assert.equal((await importFiles(reopened, spec.reader, files, opts)).appended, 0);
  } finally {
    (reopened ?? log).close();
    h.dispose();
  }
});
