/**
 * The Copilot Chat reader (VS Code's chat session files): every request's message, every response
 * part, every tool call and every tool output the fixture holds maps to exactly one event, byte-exact;
 * record ids are stable and unique; a streaming reply waits; bad input is named with its line.
 * test/fixtures/capture/copilot-chat/9bff5b6f-….jsonl is a real file code-server wrote for a host test
 * (`node scripts/host/run-host-tests.mjs chat`), its workspace path replaced; the others are ours.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readCopilotChat, replayChatMutationLog, SCROLL_OWN_TURNS, SCROLL_PARTICIPANT_ID, UNFINISHED_NOTE } from '../../../src/core/capture/copilotChat';
import { copilotChatCwd, locateCopilotChat, locateCopilotEmptyWindowChats, workspaceStorageFor } from '../../../src/core/capture/readerDiscovery';
import type { CapturedEvent } from '../../../src/core/capture/types';

const DIR = join(__dirname, '../../../../test/fixtures/capture/copilot-chat');
const REAL = join(DIR, '9bff5b6f-dba8-4eb6-adbb-c025d6cf1f48.jsonl');
const OURS = join(DIR, 'c0ffee00-1111-4222-8333-444455556666.jsonl');
type J = Record<string, any>;

function read(path: string, text = readFileSync(path, 'utf8')) {
  return readCopilotChat(text, { path });
}

/** The test's own replay of a mutation log (the oracle: written from VS Code's objectMutationLog.ts, not the reader's). */
function oracleState(text: string): J {
  let state: J = {};
  for (const line of text.split('\n').filter(Boolean)) {
    const e = JSON.parse(line);
    if (e.kind === 0) { state = e.v; continue; }
    let obj: J = state;
    for (const k of e.k.slice(0, -1)) obj = obj[k];
    const last = e.k[e.k.length - 1];
    if (e.kind === 1) obj[last] = e.v;
    else if (e.kind === 3) delete obj[last];
    else { const arr = obj[last] ?? []; if (e.i !== undefined) arr.length = e.i; arr.push(...(e.v ?? [])); obj[last] = arr; }
  }
  return state;
}

/** Request fields VS Code writes when the response ends (a request with any of them has a copilot.response note). */
const RESPONSE_SIDE = ['responseId', 'result', 'followups', 'modelState', 'vote', 'isCanceled', 'contentReferences', 'codeCitations', 'elapsedMs', 'usedContext'];

const once = (events: CapturedEvent[], pred: (e: CapturedEvent) => boolean, what: string) => {
  const hits = events.filter(pred);
  assert.equal(hits.length, 1, `${what}: ${hits.length} events, want exactly 1`);
  return hits[0];
};

/** Every request and response part of `state` appears once in `events`, byte-exact, and nothing else but the header. */
function assertFaithful(state: J, events: CapturedEvent[], completeUpTo = state.requests.length) {
  let expected = 1; // the session header note
  once(events, (e) => e.name === 'copilot.session', 'session header');
  state.requests.forEach((r: J, i: number) => {
    const text = typeof r.message === 'string' ? r.message : r.message.text;
    const id = r.requestId;
    once(events, (e) => e.kind === 'user_message' && e.content === text && (!id || e.recordId === `${id}#message`), `message of request ${i}`);
    expected++;
    const images = (r.variableData?.variables ?? []).filter((v: J) => v.kind === 'image').length;
    expected += images;
    if (i >= completeUpTo) return;
    const parts = Array.isArray(r.response) ? r.response : [{ value: r.response }];
    parts.forEach((p: J, j: number) => {
      const rid = `${id ?? `${state.sessionId}/request-${i}`}#response.${j}`;
      expected++;
      if (p.kind === undefined) {
        once(events, (e) => e.kind === 'model_turn' && e.content === p.value && e.recordId === rid, `markdown ${i}.${j}`);
      } else if (p.kind === 'markdownVuln') {
        once(events, (e) => e.kind === 'model_turn' && e.content === p.content.value, `markdownVuln ${i}.${j}`);
      } else if (p.kind === 'thinking') {
        once(events, (e) => e.kind === 'thinking' && e.content === [p.value].flat().join(''), `thinking ${i}.${j}`);
      } else if (p.kind === 'toolInvocationSerialized') {
        const call = once(events, (e) => e.kind === 'tool_call' && e.recordId === rid, `tool call ${i}.${j}`);
        assert.equal(call.name, p.toolId);
        assert.equal(call.toolCallId, p.toolCallId);
        const input = p.resultDetails?.input ?? (p.toolSpecificData?.rawInput !== undefined ? JSON.stringify(p.toolSpecificData.rawInput) : p.toolSpecificData?.kind === 'terminal' ? JSON.stringify(p.toolSpecificData.commandLine) : '');
        assert.equal(call.content, input, `input of ${p.toolId}`);
        let output: string | undefined;
        let isError = false;
        if (Array.isArray(p.resultDetails?.output)) {
          output = p.resultDetails.output.filter((o: J) => o.isText !== false).map((o: J) => o.value).join('\n');
          isError = p.resultDetails.isError === true;
          expected += p.resultDetails.output.filter((o: J) => o.isText === false).length;
        } else if (Array.isArray(p.resultDetails)) output = JSON.stringify(p.resultDetails);
        else if (p.toolSpecificData?.terminalCommandOutput) {
          output = p.toolSpecificData.terminalCommandOutput.text;
          isError = p.toolSpecificData.terminalCommandState.exitCode !== 0;
        }
        if (output === undefined) {
          assert.equal(call.meta?.toolOutput, 'not recorded by source', `${p.toolId} says its output is not recorded`);
          assert.ok(!events.some((e) => e.kind === 'tool_result' && e.recordId === `${rid}.result`));
        } else {
          expected++;
          const res = once(events, (e) => e.kind === 'tool_result' && e.recordId === `${rid}.result`, `tool result ${i}.${j}`);
          assert.equal(res.content, output, `output of ${p.toolId}`);
          assert.equal(res.meta?.isError, isError);
          assert.equal(res.toolCallId, p.toolCallId);
        }
      } else {
        const note = once(events, (e) => e.recordId === rid, `part ${p.kind} ${i}.${j}`);
        assert.equal(note.kind, 'note');
        assert.equal(note.content, JSON.stringify(p));
      }
    });
    if (!RESPONSE_SIDE.some((k) => r[k] !== undefined)) return;
    expected++; // the copilot.response note
    once(events, (e) => e.name === 'copilot.response' && e.recordId === `${id ?? `${state.sessionId}/request-${i}`}#result`, `response note ${i}`);
  });
  expected += (state.pendingRequests ?? []).length;
  assert.equal(events.length, expected, 'no event beyond the mapped records');
}

function assertIdsStableAndUnique(path: string) {
  const a = read(path);
  const b = read(path);
  assert.deepEqual(a, b, 'two reads give the same events');
  const ids = a.events.map((e) => e.recordId);
  assert.equal(new Set(ids).size, ids.length, 'record ids are unique');
}

/** A session log's lines with each request's agent id that is `from` changed to `to` (and nothing else changed). */
function withAgent(text: string, from: string, to: string, only?: (requestId: string) => boolean): string {
  const visit = (x: unknown): void => {
    if (Array.isArray(x)) x.forEach(visit);
    else if (x && typeof x === 'object') {
      const o = x as J;
      if (typeof o.requestId === 'string' && o.agent?.id === from && (!only || only(o.requestId))) o.agent.id = to;
      Object.values(o).forEach(visit);
    }
  };
  return text.split('\n').map((line) => {
    if (!line.trim()) return line;
    const e = JSON.parse(line);
    visit(e);
    return JSON.stringify(e);
  }).join('\n');
}

test('copilot: the real code-server session holds only @scroll requests: skipped (Scroll logged those turns itself) and counted with why', () => {
  const text = readFileSync(REAL, 'utf8');
  const out = read(REAL, text);
  assert.deepEqual(out.problems, []);
  const state = oracleState(text);
  assert.ok(state.requests.length >= 2);
  assert.ok(state.requests.every((r: J) => r.agent?.id === 'scroll.agent'), 'the fixture is a session of Scroll\'s own participant');
  assert.deepEqual(out.events, [], 'no event: not even the session header');
  assert.deepEqual(out.skipped, [{ reason: SCROLL_OWN_TURNS, records: state.requests.length }]);
  assert.match(SCROLL_OWN_TURNS, /@scroll .*scroll\.agent/);
  const pkg = JSON.parse(readFileSync(join(__dirname, '../../../../package.json'), 'utf8'));
  assert.deepEqual(pkg.contributes.chatParticipants.map((c: J) => c.id), [SCROLL_PARTICIPANT_ID], "the id is Scroll's participant's");
});

test('copilot: the real code-server session (mutation log, version 3), answered by another participant, maps every request, part, tool call and output once', () => {
  const text = withAgent(readFileSync(REAL, 'utf8'), 'scroll.agent', 'github.copilot.editsAgent');
  const out = read(REAL, text);
  assert.deepEqual(out.problems, []);
  assert.equal(out.skipped, undefined);
  const state = oracleState(text);
  assert.equal(state.version, 3);
  assert.ok(state.requests.length >= 2);
  assertFaithful(state, out.events);
  for (const e of out.events) assert.equal(e.session, 'copilot-chat:9bff5b6f-dba8-4eb6-adbb-c025d6cf1f48');
  const call = out.events.find((e) => e.kind === 'tool_call' && e.name === 'scroll_readFile')!;
  assert.equal(call.meta?.agentId, 'github.copilot.editsAgent');
  assert.equal(call.meta?.modelId, 'scripted/scripted-model');
  const first = out.events.find((e) => e.kind === 'user_message')!;
  assert.equal(first.ts, new Date(state.requests[0].timestamp).toISOString());
  const response = out.events.find((e) => e.name === 'copilot.response')!;
  assert.deepEqual(response.meta?.timings, state.requests[0].result.timings);
  assert.deepEqual(JSON.parse(response.content).followups, state.requests[0].followups);
  const a = read(REAL, text);
  const b = read(REAL, text);
  assert.deepEqual(a, b, 'two reads give the same events');
  assert.equal(new Set(a.events.map((e) => e.recordId)).size, a.events.length, 'record ids are unique');
});

test('copilot: in a session with both, only the @scroll requests are skipped; the others keep their record ids', () => {
  const text = readFileSync(OURS, 'utf8');
  const firstId = oracleState(text).requests[0].requestId;
  const mixed = withAgent(text, 'github.copilot.editsAgent', SCROLL_PARTICIPANT_ID, (id) => id === firstId);
  const all = read(OURS, text);
  const out = read(OURS, mixed);
  assert.deepEqual(out.problems, []);
  assert.deepEqual(out.skipped, [{ reason: SCROLL_OWN_TURNS, records: 1 }]);
  assert.ok(!out.events.some((e) => e.recordId.startsWith(firstId)), 'nothing of the @scroll request');
  const kept = all.events.filter((e) => !e.recordId.startsWith(firstId));
  assert.ok(kept.some((e) => e.kind === 'user_message'));
  assert.deepEqual(out.events.map((e) => e.recordId), kept.map((e) => e.recordId));
  assert.ok(out.events.some((e) => e.name === 'copilot.session'), 'the session header stays');
});

test('copilot: our mutation log: every part kind, images as binaries, a streaming reply waits, queued requests kept', () => {
  const text = readFileSync(OURS, 'utf8');
  const out = read(OURS, text);
  assert.deepEqual(out.problems, []);
  const state = oracleState(text);
  assert.equal(state.requests[1].modelState.value, 0, 'the fixture ends with a reply still streaming');
  assertFaithful(state, out.events, 1);
  assert.ok(!out.events.some((e) => e.content.includes('Working on it')), 'a half-streamed reply is not stored');
  const header = out.events.find((e) => e.name === 'copilot.session')!;
  assert.equal(header.meta?.title, 'Comma decimals in parse_amount');
  const attached = out.events.find((e) => e.name === 'image' && e.role === 'user')!;
  assert.deepEqual([...attached.binaries![0].data], [137, 80, 78, 71, 13, 10, 26, 10]);
  assert.equal(attached.binaries![0].mediaType, 'image/png');
  const msg = out.events.find((e) => e.kind === 'user_message')!;
  assert.deepEqual(msg.meta?.request && (msg.meta.request as J).variableData.variables[1].value, { binary: 0 });
  const shot = out.events.find((e) => e.name === 'image' && e.role === 'tool')!;
  assert.equal(Buffer.from(shot.binaries![0].data).toString('base64'), 'iVBORw0KGgo=');
  assert.equal(out.events.find((e) => e.name === 'copilot.futureHologram')!.meta?.kept, 'whole record (not mapped)');
  assert.equal(out.events.find((e) => e.name === 'copilot.inlineReference')!.meta?.kept, undefined);
  const term = out.events.find((e) => e.kind === 'tool_result' && e.name === 'run_in_terminal')!;
  assert.equal(term.meta?.exitCode, 1);
  assert.equal(out.events.find((e) => e.name === 'copilot.pendingRequest')!.content, 'And write a changelog line.');
  assertIdsStableAndUnique(OURS);
});

test('copilot: a grown log adds only new records, with the ids of the first read; a half-written last line waits', () => {
  const lines = readFileSync(OURS, 'utf8').split('\n').filter(Boolean);
  const early = read(OURS, lines.slice(0, 2).join('\n') + '\n'); // request 1 streaming
  assert.deepEqual(early.events.map((e) => e.kind), ['note', 'user_message', 'note'], 'header, message, image: no reply yet');
  const full = read(OURS);
  const byId = new Map(full.events.map((e) => [e.recordId, e]));
  for (const e of early.events.filter((x) => x.name !== 'copilot.session')) assert.deepEqual(byId.get(e.recordId), e, `${e.recordId} unchanged in the grown file`);
  const cut = lines.slice(0, 6).join('\n') + '\n' + lines[6].slice(0, 20);
  const half = read(OURS, cut);
  assert.deepEqual(half.problems, [], 'a half-written last line is not a problem');
  assert.deepEqual(half.events.map((e) => e.recordId), read(OURS, lines.slice(0, 6).join('\n') + '\n').events.map((e) => e.recordId));
});

test('copilot: flat files of versions 1, 2 and 3 and an export map their messages and replies', () => {
  for (const f of ['flat-v3.json', 'old-v2.json', 'old-v1.json', 'export.json']) {
    const path = join(DIR, f);
    const data = JSON.parse(readFileSync(path, 'utf8'));
    const out = read(path);
    assert.deepEqual(out.problems, [], f);
    const state = { ...data, requests: data.requests.map((r: J) => ({ ...r, response: typeof r.response === 'string' ? [{ value: r.response }] : r.response })) };
    assertFaithful(state, out.events);
    assertIdsStableAndUnique(path);
  }
  const v3 = read(join(DIR, 'flat-v3.json'));
  const failed = v3.events.find((e) => e.name === 'copilot.response')!;
  assert.equal(failed.meta?.isError, true);
  assert.equal(failed.meta?.errorMessage, 'Response stopped: rate limited');
  assert.equal(failed.meta?.responseState, 'failed');
  const exp = read(join(DIR, 'export.json'));
  assert.equal(exp.events[0].session, 'copilot-chat:export-exp-0001');
  assert.equal(exp.events.find((e) => e.kind === 'tool_call')!.meta?.input, 'not recorded by source');
});

test('copilot: a malformed line is named with its line and the rest is read; an unknown version is reported once', () => {
  const bad = join(DIR, 'bad', 'malformed-line.jsonl');
  const out = read(bad);
  assert.deepEqual(out.problems.map((p) => [p.origin.line, p.perFile ?? false]), [[3, false], [5, false]]);
  assert.match(out.problems[0].message, /not JSON/);
  assert.match(out.problems[1].message, /does not exist/);
  assert.ok(out.events.some((e) => e.kind === 'user_message'), 'the request before the bad line is read');
  assert.ok(out.events.some((e) => e.name === 'copilot.response'), 'the change after the bad line is applied');

  const v9 = read(join(DIR, 'bad', 'unknown-version.json'));
  assert.equal(v9.problems.length, 1);
  assert.equal(v9.problems[0].perFile, true);
  assert.match(v9.problems[0].message, /unknown chat session format version 9/);
  assert.ok(v9.events.some((e) => e.content === 'Hello from v9.'), 'read as the newest known version, nothing dropped');

  const none = read(join(DIR, 'bad', 'not-a-session.json'));
  assert.equal(none.events.length, 0);
  assert.equal(none.problems[0].perFile, true);
  assert.equal(replayChatMutationLog('', { path: 'x.jsonl' }).problems[0].message, 'empty chat session log');
});

test('copilot: discovery lists a workspace storage folder\'s chat sessions and finds the folder by workspace.json', () => {
  const root = mkdtempSync(join(tmpdir(), 'scroll-copilot-'));
  try {
    const userData = join(root, 'Code');
    const ws = join(userData, 'User', 'workspaceStorage', 'abc123');
    mkdirSync(join(ws, 'chatSessions'), { recursive: true });
    writeFileSync(join(ws, 'workspace.json'), JSON.stringify({ folder: 'file:///home/dev/my%20shop' }));
    writeFileSync(join(ws, 'chatSessions', 's1.jsonl'), '');
    writeFileSync(join(ws, 'chatSessions', 's0.json'), '{}');
    writeFileSync(join(ws, 'chatSessions', 'notes.txt'), '');
    const other = join(userData, 'User', 'workspaceStorage', 'def456');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'workspace.json'), JSON.stringify({ folder: 'file:///home/dev/other' }));
    const empty = join(userData, 'User', 'globalStorage', 'emptyWindowChatSessions');
    mkdirSync(empty, { recursive: true });
    writeFileSync(join(empty, 'e1.json'), '{}');
    assert.deepEqual(workspaceStorageFor([userData, join(root, 'missing')], '/home/dev/my shop'), [ws]);
    assert.deepEqual(locateCopilotChat(ws), [join(ws, 'chatSessions', 's0.json'), join(ws, 'chatSessions', 's1.jsonl')]);
    assert.deepEqual(locateCopilotEmptyWindowChats(join(userData, 'User', 'globalStorage')), [join(empty, 'e1.json')]);
    assert.deepEqual(locateCopilotChat(join(root, 'nowhere')), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('copilot: a multi-root workspace\'s storage folder belongs to every folder its .code-workspace lists (JSON with comments)', () => {
  const root = mkdtempSync(join(tmpdir(), 'scroll-copilot-multi-'));
  try {
    const userData = join(root, 'Code');
    const ws = join(userData, 'User', 'workspaceStorage', 'multi1');
    mkdirSync(join(ws, 'chatSessions'), { recursive: true });
    const wsFile = join(root, 'projects', 'shop.code-workspace');
    mkdirSync(dirname(wsFile), { recursive: true });
    writeFileSync(wsFile, [
      '{',
      '  // the shop and its API, side by side',
      '  "folders": [',
      '    { "path": "web" },',
      '    { "name": "api", "uri": "file:///srv/shop%20api" }, /* absolute, by uri */',
      '    { "uri": "vscode-vfs://github/x/y" },',
      '  ],',
      '  "settings": {},',
      '}',
    ].join('\n'));
    writeFileSync(join(ws, 'workspace.json'), JSON.stringify({ workspace: pathToFileURL(wsFile).href }));
    const chat = join(ws, 'chatSessions', 's1.jsonl');
    writeFileSync(chat, '');
    const web = join(root, 'projects', 'web');
    assert.deepEqual(workspaceStorageFor([userData], web), [ws]);
    assert.deepEqual(workspaceStorageFor([userData], '/srv/shop api'), [ws]);
    assert.deepEqual(workspaceStorageFor([userData], '/srv/elsewhere'), []);
    assert.equal(copilotChatCwd(chat, ['/srv/shop api']), '/srv/shop api');
    assert.equal(copilotChatCwd(chat, [join(web, 'src')]), web, 'no folder inside the scope: the first folder');
    assert.equal(copilotChatCwd(chat), web);
    // A workspace file that is gone, or a storage folder naming none (code-server writes no workspace.json).
    rmSync(wsFile);
    assert.equal(copilotChatCwd(chat), undefined);
    rmSync(join(ws, 'workspace.json'));
    assert.equal(copilotChatCwd(chat), undefined);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('copilot: a reply still streaming when its file stopped changing is kept as it stood, and its end, if it comes, is added beside it', () => {
  const text = readFileSync(OURS, 'utf8');
  const live = read(OURS, text);
  assert.match(live.inProgress ?? '', /reply to request 2 is still being written/, 'the reader says what it left out');
  assert.ok(!live.events.some((e) => e.content.includes('Working on it')));

  const settled = readCopilotChat(text, { path: OURS, settled: true });
  assert.equal(settled.inProgress, undefined);
  assert.deepEqual(settled.problems, []);
  const kept = settled.events.filter((e) => /#unfinished\.[0-9a-f]{16}\./.test(e.recordId));
  const streamed = kept.find((e) => e.content.includes('Working on it'));
  assert.ok(streamed, 'the half-streamed reply is kept');
  assert.equal(streamed.kind, 'model_turn');
  assert.ok(kept.every((e) => e.meta?.unfinished === UNFINISHED_NOTE), 'each of its events says it is unfinished');
  const result = kept.find((e) => e.name === 'copilot.response')!;
  assert.equal(result.meta?.responseState, 'pending');
  // Everything else is the same as a live read.
  const byId = new Map(settled.events.map((e) => [e.recordId, e]));
  for (const e of live.events) assert.deepEqual(byId.get(e.recordId), e);
  assert.equal(settled.events.length, live.events.length + kept.length);

  // The reply ends after all (the window came back): its complete form has ids of its own.
  const ended = text + JSON.stringify({ kind: 2, k: ['requests', 1, 'response'], v: [{ value: ' Done.' }] }) + '\n'
    + JSON.stringify({ kind: 1, k: ['requests', 1, 'modelState'], v: { value: 1, completedAt: 1764590520000 } }) + '\n';
  const done = readCopilotChat(ended, { path: OURS, settled: true });
  const doneIds = new Set(done.events.map((e) => e.recordId));
  assert.ok(kept.every((e) => !doneIds.has(e.recordId)), 'the unfinished form is not taken for the complete one');
  assert.ok(done.events.some((e) => e.recordId.endsWith('#result') && e.meta?.responseState === 'complete' && e.meta?.unfinished === undefined));
  assert.equal(done.inProgress, undefined);
});

test('copilot: a tool\'s result details of every shape are kept: a data part (an image), a text output, the raw MCP result', () => {
  const out = read(join(DIR, 'tool-details.json'));
  assert.deepEqual(out.problems, []);
  const result = (id: string) => once(out.events, (e) => e.kind === 'tool_result' && e.toolCallId === id, `result of ${id}`);
  const shot = result('td-shot');
  assert.equal(shot.meta?.isError, false);
  const image = once(out.events, (e) => e.name === 'image' && e.toolCallId === 'td-shot', 'the screenshot');
  assert.equal(image.binaries![0].mediaType, 'image/png');
  assert.equal(Buffer.from(image.binaries![0].data).toString('base64').slice(0, 12), 'iVBORw0KGgoA');
  const orders = result('td-orders');
  assert.equal(orders.content, '2 open orders: #41, #44');
  assert.deepEqual((orders.meta?.resultDetails as J).mcpOutput, { content: [{ type: 'text', text: '2 open orders: #41, #44' }], structuredContent: { open: [41, 44] } });
  assert.equal(result('td-baskets').content, '17 baskets');
  assert.equal(once(out.events, (e) => e.kind === 'tool_call' && e.toolCallId === 'td-baskets', 'the call').content, '{}');
});
