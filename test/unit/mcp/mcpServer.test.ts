// `scroll mcp` driven by the official SDK's Client over stdio, spawning the built CLI as a client
// would: tools and resources listed, search, paged reads of a 5 MB output, run_python only where
// the kernel is sandboxed and the workspace writable, read-only mode, every bad input a tool error
// after which the server still answers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { EventLog } from '../../../src/core/log/eventLog';
import { probeSandbox } from '../../../src/core/kernel/sandbox';

const CLI = join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');
/** /var/tmp, not /tmp: the sandboxed kernel gets a private /tmp (the brief's rule for scratch). */
const SCRATCH = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
const sandboxed = probeSandbox().available;

let root: string;
let ws: string;
let bigSeq: number;
let big: string;
let evictionSeq: number;

interface Connection {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

async function connect(args: string[], opts: { env?: Record<string, string>; name?: string } = {}): Promise<Connection> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: { ...(process.env as Record<string, string>), ...(opts.env ?? {}) },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: opts.name ?? 'scroll-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean } & Record<string, any>;

async function call(c: Connection, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await c.client.callTool({ name, arguments: args })) as unknown as ToolResult;
}

async function callJson(c: Connection, name: string, args: Record<string, unknown>) {
  const r = await call(c, name, args);
  assert.ok(!r.isError, `${name} ${JSON.stringify(args)} failed: ${r.content[0]?.text}`);
  return JSON.parse(r.content[0].text);
}

async function toolNames(c: Connection): Promise<string[]> {
  return (await c.client.listTools()).tools.map((t) => t.name).sort();
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[p] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

before(() => {
  root = mkdtempSync(join(SCRATCH, 'scroll-mcp-'));
  ws = join(root, 'ws');
  const log = EventLog.open({ workspace: ws, session: 'chat-20260301-100000-aaaa' });
  try {
    log.appendMany([
      { kind: 'user_message', role: 'user', content: 'Why does getUserById throw a TypeError in src/core/log.ts?', ts: '2026-03-01T10:00:00.000Z' },
      { kind: 'tool_call', role: 'assistant', name: 'read_file', content: '{"path":"src/core/log.ts"}', ts: '2026-03-01T10:00:01.000Z', toolCallId: 'call_1' },
      { kind: 'model_turn', role: 'assistant', content: 'The TypeError comes from a missing user_id.', ts: '2026-03-01T10:00:03.000Z', headline: 'root cause: user_id missing' },
      { kind: 'user_message', role: 'user', content: 'unrelated: water the garden', session: 'claude-code:0b1c', ts: '2026-03-02T08:00:00.000Z', meta: { source: 'claude-code' } },
      { kind: 'model_turn', role: 'assistant', content: 'The garden needs water on Tuesdays.', session: 'claude-code:0b1c', ts: '2026-03-02T08:00:05.000Z', meta: { source: 'claude-code' } },
    ]);
    // A 5 MB tool output with numbered lines, so a page out of order or a lost character shows.
    big = Array.from({ length: 85_000 }, (_, i) => `line ${String(i).padStart(6, '0')} of the compiler output: warning unusedVariable ✓`).join('\n');
    bigSeq = log.append({ kind: 'tool_result', role: 'tool', name: 'run_command', content: big, ts: '2026-03-01T10:00:02.000Z', toolCallId: 'call_1' }).seq;
    evictionSeq = log.append({
      kind: 'eviction',
      role: 'system',
      content: 'evicted 1..3',
      ts: '2026-03-01T10:05:00.000Z',
      meta: {
        level: 0,
        from_seq: 1,
        to_seq: 3,
        title: { task: 'find the TypeError', state: 'root cause found', next: 'fix it' },
        index: [{ level: 0, from_seq: 1, to_seq: 3, segments: 1, title: { task: 'find the TypeError', state: 'root cause found', next: 'fix it' } }],
      },
    }).seq;
  } finally {
    log.close();
  }
});

after(() => rmSync(root, { recursive: true, force: true }));

test('tools and resources are listed with schemas an agent can use; run_python only with a sandbox', async () => {
  const c = await connect(['--workspace', ws]);
  try {
    const { tools } = await c.client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, sandboxed ? ['history_index', 'read_events', 'run_python', 'search_history'] : ['history_index', 'read_events', 'search_history']);
    for (const t of tools) {
      assert.ok((t.description ?? '').length > 100, `${t.name} has a description`);
      const props = (t.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
      for (const [k, v] of Object.entries(props)) assert.ok(v.description, `${t.name}.${k} has a description`);
    }
    const search = tools.find((t) => t.name === 'search_history')!;
    assert.deepEqual(search.inputSchema.required, ['query']);
    assert.equal(search.annotations?.readOnlyHint, true);

    const templates = (await c.client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort();
    assert.deepEqual(templates, ['scroll:/event/{seq}.md', 'scroll:/index/{session}.md', 'scroll:/range/{from}-{to}.md']);
    const resources = (await c.client.listResources()).resources.map((r) => r.uri);
    assert.ok(resources.includes(`scroll:/event/${evictionSeq}.md`), 'the newest events are listed');
    assert.ok(resources.includes('scroll:/index/claude-code%3A0b1c.md'), 'session indexes are listed');
  } finally {
    await c.close();
  }
});

test('search_history: hits with seq, snippet, kind, session, source, time; filters; broadened', async () => {
  const c = await connect(['--workspace', ws]);
  try {
    const r = await callJson(c, 'search_history', { query: 'TypeError user_id' });
    assert.ok(r.hits.length >= 2);
    const top = r.hits[0];
    for (const f of ['seq', 'snippet', 'kind', 'role', 'session', 'source', 'time', 'broadened', 'uri']) assert.ok(f in top, `hit has ${f}`);
    assert.match(r.hits.map((h: { snippet: string }) => h.snippet).join(' '), /«TypeError»/);
    assert.equal(top.uri, `scroll:/event/${top.seq}.md`);

    const garden = await callJson(c, 'search_history', { query: 'garden', source: 'claude-code' });
    assert.deepEqual(garden.hits.map((h: { seq: number }) => h.seq).sort(), [4, 5]);
    assert.ok(garden.hits.every((h: { source: string }) => h.source === 'claude-code'));
    assert.equal((await callJson(c, 'search_history', { query: 'garden', source: 'scroll' })).hits.length, 0);
    assert.deepEqual((await callJson(c, 'search_history', { query: 'garden', kind: 'model_turn' })).hits.map((h: { seq: number }) => h.seq), [5]);
    assert.deepEqual((await callJson(c, 'search_history', { query: 'TypeError', role: ['user'], session: 'chat-20260301-100000-aaaa' })).hits.map((h: { seq: number }) => h.seq), [1]);
    const inSpan = (await callJson(c, 'search_history', { query: 'TypeError', seq_from: 2, seq_to: 3 })).hits.map((h: { seq: number }) => h.seq);
    assert.ok(inSpan.includes(3) && inSpan.every((s: number) => s >= 2 && s <= 3), `only seqs 2..3: ${inSpan}`);
    const byTime = await callJson(c, 'search_history', { query: 'garden water', time_from: '2026-03-02', time_to: '2026-03-02T08:00:01Z' });
    assert.deepEqual(byTime.hits.map((h: { seq: number }) => h.seq), [4]);
    const broad = await callJson(c, 'search_history', { query: 'garden xylophone' });
    assert.equal(broad.broadened, true);
    assert.ok(broad.hits.every((h: { broadened: boolean }) => h.broadened));
  } finally {
    await c.close();
  }
});

test('read_events: a 5 MB output arrives in pages that join to the exact content; lists and ranges page too', async () => {
  const c = await connect(['--workspace', ws]);
  try {
    let page = await callJson(c, 'read_events', { seq: bigSeq, max_chars: 500_000 });
    const pieces: string[] = [];
    let pages = 0;
    for (;;) {
      pages++;
      assert.equal(page.events.length, 1);
      const e = page.events[0];
      assert.equal(e.seq, bigSeq);
      assert.equal(e.content_offset, pieces.join('').length, 'each page starts where the last one stopped');
      assert.ok(e.content.length <= 500_000);
      pieces.push(e.content);
      if (!page.next_cursor) {
        assert.equal(e.complete, true);
        break;
      }
      assert.equal(e.complete, false);
      assert.ok(pages < 50, 'paging ends');
      page = await callJson(c, 'read_events', { cursor: page.next_cursor, max_chars: 500_000 });
    }
    assert.ok(pages >= 10, `5 MB in pages of 500k characters (${pages})`);
    assert.equal(pieces.join(''), big, 'the pages join to the exact content');

    // Default page size on a range: the small events whole, then the big one cut, continued by cursor.
    const first = await callJson(c, 'read_events', { range: `1..${evictionSeq}` });
    assert.deepEqual(first.events.slice(0, 5).map((e: { seq: number; complete: boolean }) => [e.seq, e.complete]), [[1, true], [2, true], [3, true], [4, true], [5, true]]);
    assert.equal(first.events[0].content, 'Why does getUserById throw a TypeError in src/core/log.ts?');
    assert.equal(first.events[2].headline, 'root cause: user_id missing');
    assert.ok(first.next_cursor);
    const seen = new Set<number>();
    let p = first;
    for (let i = 0; p.next_cursor && i < 400; i++) {
      for (const e of p.events) seen.add(e.seq);
      p = await callJson(c, 'read_events', { cursor: p.next_cursor });
    }
    for (const e of p.events) seen.add(e.seq);
    assert.deepEqual([...seen].sort((a, b) => a - b), [1, 2, 3, 4, 5, bigSeq, evictionSeq]);
    assert.ok(!p.next_cursor);

    const listed = await callJson(c, 'read_events', { seqs: [5, 1] });
    assert.deepEqual(listed.events.map((e: { seq: number }) => e.seq), [5, 1], 'a list comes back in its order');
    assert.equal(listed.events[0].source, 'claude-code');
    const written = await callJson(c, 'read_events', { range: '#4 to #5' });
    assert.deepEqual(written.events.map((e: { seq: number }) => e.seq), [4, 5], 'any seq-spec form of a range');
  } finally {
    await c.close();
  }
});

test('history_index: sessions with their sources; a session with its eviction index; resources read', async () => {
  const c = await connect(['--workspace', ws]);
  try {
    const list = await callJson(c, 'history_index', {});
    assert.deepEqual(list.sessions.map((s: { session: string; source: string }) => [s.session, s.source]), [
      ['claude-code:0b1c', 'claude-code'],
      ['chat-20260301-100000-aaaa', 'scroll'],
    ]);
    assert.equal(list.total, 2);
    assert.deepEqual((await callJson(c, 'history_index', { source: 'claude-code' })).sessions.length, 1);
    const one = await callJson(c, 'history_index', { session: 'chat-20260301-100000-aaaa' });
    assert.equal(one.index.length, 1);
    assert.deepEqual([one.index[0].from_seq, one.index[0].to_seq, one.index[0].title.task, one.index[0].uri], [1, 3, 'find the TypeError', 'scroll:/range/1-3.md']);

    const ev = await c.client.readResource({ uri: 'scroll:/event/3.md' });
    const text = (ev.contents[0] as { text: string }).text;
    assert.match(text, /^#3 {2}2026-03-01T10:00:03.000Z {2}session chat-20260301-100000-aaaa {2}model_turn\/assistant/);
    assert.match(text, /headline: root cause: user_id missing/);
    const range = (await c.client.readResource({ uri: 'scroll:/range/1-2.md' })).contents[0] as { text: string };
    assert.match(range.text, /#1 .*\n[\s\S]*#2 /);
    const idx = (await c.client.readResource({ uri: 'scroll:/index/chat-20260301-100000-aaaa.md' })).contents[0] as { text: string };
    assert.equal(JSON.parse(idx.text).index[0].to_seq, 3);
    await assert.rejects(c.client.readResource({ uri: 'scroll:/event/999.md' }), /no event with seq 999 \(the log holds 1\.\.7\)/);
    await assert.rejects(c.client.readResource({ uri: 'scroll:/range/1-5000.md' }), /too large/);
    assert.ok((await callJson(c, 'history_index', {})).sessions.length === 2, 'still serving after resource errors');
  } finally {
    await c.close();
  }
});

test('every bad input is a tool error with a clear message, and the server keeps serving', async () => {
  const c = await connect(['--workspace', ws]);
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['read_events', { seq: 999 }, /no event with seq 999 \(the log holds 1\.\.7\)/],
    ['read_events', { seqs: [1, 998, 999] }, /no event with seq 998, 999/],
    ['read_events', { range: '1..5000' }, /range 1\.\.5000 is too large \(5000 seqs\); at most 1000 per call/],
    ['read_events', { range: '9..3' }, /empty \(the end is before the start\)/],
    ['read_events', { range: 'yesterday' }, /range must be "A\.\.B"/],
    ['read_events', { range: '900..905' }, /no events in 900\.\.905/],
    ['read_events', {}, /needs one of seq .*seqs .*range .*cursor/],
    ['read_events', { seq: 1, range: '1..2' }, /not seq and range/],
    ['read_events', { cursor: 'rc1.bm9wZQ' }, /cursor is not one read_events returned/],
    ['read_events', { cursor: 'garbage' }, /cursor is not one read_events returned/],
    ['read_events', { seq: 'one' }, /Expected number, received string/],
    ['read_events', { seq: 1.5 }, /integer/],
    ['read_events', { seq: 1, max_chars: 10 }, /max_chars|greater than or equal to 1000/],
    ['read_events', { seq: 1, colour: 'red' }, /Unrecognized key.*colour/],
    ['search_history', {}, /query.*Required|Required.*query/],
    ['search_history', { query: '' }, /at least 1 character/],
    ['search_history', { query: 'x', k: 0 }, /greater than or equal to 1/],
    ['search_history', { query: 'x', k: 1000 }, /less than or equal to 100/],
    ['search_history', { query: 'x', source: 'nowhere' }, /Invalid enum value/],
    ['search_history', { query: 'x', time_from: 'last tuesday' }, /time_from must be an ISO 8601 date/],
    ['search_history', { query: 'x', seq_from: 5, seq_to: 2 }, /seq_to 2 is before seq_from 5/],
    ['history_index', { session: 'chat-nope' }, /no session "chat-nope" in this log/],
    ['history_index', { limit: -1 }, /greater than or equal to 1/],
    ['no_such_tool', {}, /Tool no_such_tool not found/],
  ];
  try {
    for (const [name, args, expected] of cases) {
      const r = await call(c, name, args);
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} is an error`);
      assert.match(r.content[0].text, expected, `${name} ${JSON.stringify(args)}`);
      const ok = await callJson(c, 'read_events', { seq: 1 });
      assert.equal(ok.events[0].seq, 1, `still serving after ${name} ${JSON.stringify(args)}`);
    }
  } finally {
    await c.close();
  }
});

test('--read-only: no run_python and nothing written; a workspace without a log says so', async () => {
  const before = snapshot(join(ws, '.scroll'));
  const c = await connect(['--workspace', ws, '--read-only']);
  try {
    assert.deepEqual(await toolNames(c), ['history_index', 'read_events', 'search_history']);
    assert.ok((await callJson(c, 'search_history', { query: 'garden' })).hits.length > 0);
    await callJson(c, 'read_events', { range: '1..3' });
    const r = await call(c, 'run_python', { code: 'print(1)' });
    assert.equal(r.isError, true);
    assert.match(c.stderr(), /run_python not offered: read-only/);
  } finally {
    await c.close();
  }
  assert.deepEqual(snapshot(join(ws, '.scroll')), before, 'the log folder is byte for byte as it was');

  const empty = join(root, 'empty');
  const e = await connect(['--workspace', empty, '--read-only']);
  try {
    const r = await call(e, 'search_history', { query: 'anything' });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /no Scroll memory at .*empty\/\.scroll\/scroll\.db yet/);
    assert.deepEqual((await e.client.listResources()).resources, []);
  } finally {
    await e.close();
  }
  assert.ok(!existsSync(join(empty, '.scroll')), 'nothing created');
});

test('run_python is absent when the sandbox is off or unavailable', async () => {
  for (const [args, env, reason] of [
    [['--sandbox', 'off'], {}, /not sandboxed|sandbox is off/],
    [[], { SCROLL_BWRAP_PATH: join(root, 'no-bwrap-here') }, /bwrap not found/],
  ] as [string[], Record<string, string>, RegExp][]) {
    const c = await connect(['--workspace', ws, ...args], { env });
    try {
      assert.deepEqual(await toolNames(c), ['history_index', 'read_events', 'search_history'], `${JSON.stringify(args)} ${JSON.stringify(env)}`);
      assert.match(c.stderr(), reason);
    } finally {
      await c.close();
    }
  }
});

test('run_python (sandboxed): ms reads the memory, variables persist, each client logs under its own session', { skip: sandboxed ? false : 'no sandbox here (bubblewrap missing or unusable)' }, async () => {
  const a = await connect(['--workspace', ws], { name: 'Claude Code' });
  const b = await connect(['--workspace', ws], { name: 'codex' });
  try {
    const [ra, rb] = await Promise.all([
      call(a, 'run_python', { code: 'hits = [h for h in ms.search("garden", k=10) if h.kind != "kernel_exec"]\nprint(sorted(h.seq for h in hits))' }),
      call(b, 'run_python', { code: 'print(ms.expand(3)[0].content)' }),
    ]);
    assert.ok(!ra.isError, ra.content[0].text);
    assert.match(ra.content[0].text, /^\[4, 5\]\n/);
    assert.match(rb.content[0].text, /^The TypeError comes from a missing user_id\.\n/);
    const again = await call(a, 'run_python', { code: 'print(len(hits))' });
    assert.match(again.content[0].text, /^2\n/, 'variables persist between calls');
    const failed = await call(a, 'run_python', { code: 'open("/etc/passwd-copy", "w")' });
    assert.equal(failed.isError, true);
    assert.match(failed.content[0].text, /Error/);
    const sa = /session (mcp:Claude-Code:\d{8}-\d{6}-[0-9a-f]{4})\]$/.exec(ra.content[0].text)?.[1];
    const sb = /session (mcp:codex:\d{8}-\d{6}-[0-9a-f]{4})\]$/.exec(rb.content[0].text)?.[1];
    assert.ok(sa && sb, `${ra.content[0].text} / ${rb.content[0].text}`);
    // The cells are in the log, each under its client's session, and searchable from the other client.
    const log = EventLog.open({ workspace: ws, readonly: true });
    try {
      const ofA = log.range(1, log.maxSeq()).filter((e) => e.session === sa);
      assert.deepEqual(ofA.map((e) => e.kind), ['kernel_exec', 'kernel_output', 'kernel_exec', 'kernel_output', 'kernel_exec', 'kernel_output']);
      assert.match(ofA[0].content, /ms\.search\("garden"/);
      assert.match(ofA[1].content, /^\[4, 5\]$/);
      assert.equal(log.range(1, log.maxSeq()).filter((e) => e.session === sb).length, 2);
    } finally {
      log.close();
    }
    const listed = await callJson(b, 'history_index', { source: 'mcp' });
    assert.deepEqual(listed.sessions.map((s: { session: string }) => s.session).sort(), [sa, sb].sort());
  } finally {
    await a.close();
    await b.close();
  }
});

test('--omit leaves tools out (the editor omits what its own tools offer); an unknown name is refused', async () => {
  const c = await connect(['--workspace', ws, '--omit', 'search_history,read_events,run_python']);
  try {
    assert.deepEqual(await toolNames(c), ['history_index']);
    assert.match(c.stderr(), /run_python not offered: left out/);
  } finally {
    await c.close();
  }
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(process.execPath, [CLI, 'mcp', '--workspace', ws, '--omit', 'search'], { encoding: 'utf8', input: '' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /no tool named search to leave out \(the tools: search_history, read_events, history_index, run_python\)/);
});
