/**
 * The Cline / Roo Code / Kilo Code reader: every message block of each task's API history (text,
 * images, tool calls, tool results, thinking) and every UI message maps to exactly one event,
 * byte-exact; the source comes from the extension id in the path; record ids are stable (also when
 * condensing rewrites the array) and unique; bad files are named. Fixtures: test/fixtures/capture/{cline,roo-code,kilo-code}.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readClineTaskFile, clineSourceOfPath, UNFINISHED_MESSAGE } from '../../../src/core/capture/cline';
import { locateClineTasks } from '../../../src/core/capture/readerDiscovery';
import type { CapturedEvent } from '../../../src/core/capture/types';

const FIX = join(__dirname, '../../../../test/fixtures/capture');
type J = Record<string, any>;
const TASKS = [
  { source: 'cline', dir: join(FIX, 'cline/saoudrizwan.claude-dev/tasks/1764590400000'), task: '1764590400000', cwd: '/home/dev/sync' },
  { source: 'roo-code', dir: join(FIX, 'roo-code/rooveterinaryinc.roo-cline/tasks/0f4e2c1a-7b9d-4e3f-a2c5-1d8e6b4f9a70'), task: '0f4e2c1a-7b9d-4e3f-a2c5-1d8e6b4f9a70', cwd: '/home/dev/etl' },
  { source: 'kilo-code', dir: join(FIX, 'kilo-code/kilocode.kilo-code/tasks/3a9d7e10-55c2-4b8e-9f01-6c2d4e8a1b3f'), task: '3a9d7e10-55c2-4b8e-9f01-6c2d4e8a1b3f', cwd: undefined },
] as const;

function read(path: string, text = readFileSync(path, 'utf8')) {
  return readClineTaskFile(JSON.parse(text), { path });
}

const once = (events: CapturedEvent[], pred: (e: CapturedEvent) => boolean, what: string) => {
  const hits = events.filter(pred);
  assert.equal(hits.length, 1, `${what}: ${hits.length} events, want exactly 1`);
  return hits[0];
};

/** Every block of every API message appears once, byte-exact (the oracle walks the fixture itself). */
function assertApiFaithful(history: J[], events: CapturedEvent[]) {
  let expected = 0;
  const names = new Map<string, string>();
  for (const m of history) for (const b of Array.isArray(m.content) ? m.content : []) if (b.type === 'tool_use') names.set(b.id, b.name);
  history.forEach((m, i) => {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    const mine = events.filter((e) => e.meta?.messageIndex === i);
    blocks.forEach((b: J, k: number) => {
      const at = mine.filter((e) => e.recordId.endsWith(`#${k}`) || e.recordId.includes(`#${k}.image.`));
      expected++;
      const what = `message ${i} block ${k} (${b.type})`;
      if (b.type === 'text') {
        const e = once(at, (x) => x.content === b.text, what);
        assert.equal(e.kind, m.isSummary ? 'compaction' : m.role === 'user' ? 'user_message' : 'model_turn', what);
      } else if (b.type === 'tool_use') {
        const e = once(at, (x) => x.kind === 'tool_call', what);
        assert.equal(e.name, b.name);
        assert.equal(e.toolCallId, b.id);
        assert.equal(e.content, JSON.stringify(b.input));
      } else if (b.type === 'tool_result') {
        const e = once(at, (x) => x.kind === 'tool_result', what);
        const text = typeof b.content === 'string' ? b.content : b.content.filter((c: J) => c.type === 'text').map((c: J) => c.text).join('\n');
        assert.equal(e.content, text, what);
        assert.equal(e.meta?.isError, b.is_error === true, what);
        assert.equal(e.toolCallId, b.tool_use_id);
        assert.equal(e.name, names.get(b.tool_use_id) ?? null);
        const images = typeof b.content === 'string' ? [] : b.content.filter((c: J) => c.type === 'image');
        expected += images.length;
        images.forEach((img: J, n: number) => {
          const note = once(at, (x) => x.name === 'image' && x.recordId.endsWith(`#${k}.image.${n}`), `${what} image ${n}`);
          assert.equal(Buffer.from(note.binaries![0].data).toString('base64'), img.source.data);
          assert.equal(note.binaries![0].mediaType, img.source.media_type);
        });
      } else if (b.type === 'image') {
        const e = once(at, (x) => x.name === 'image', what);
        assert.equal(Buffer.from(e.binaries![0].data).toString('base64'), b.source.data);
      } else if (b.type === 'thinking' || b.type === 'reasoning') {
        once(at, (x) => x.kind === 'thinking' && x.content === (b.thinking ?? b.text), what);
      } else if (b.type === 'redacted_thinking') {
        const e = once(at, (x) => x.kind === 'thinking', what);
        assert.equal(e.meta?.redacted, true);
      } else {
        const e = once(at, (x) => x.kind === 'note', what);
        assert.equal(e.content, JSON.stringify(b));
        assert.equal(e.meta?.kept, 'whole record (not mapped)');
      }
    });
  });
  assert.equal(events.length, expected, 'no event beyond the blocks');
}

test('cline family: every API history block maps once, byte-exact, with the source, session and cwd of its task', () => {
  for (const t of TASKS) {
    const path = join(t.dir, 'api_conversation_history.json');
    const history = JSON.parse(readFileSync(path, 'utf8'));
    const out = read(path);
    assert.deepEqual(out.problems, [], t.source);
    assertApiFaithful(history, out.events);
    assert.equal(clineSourceOfPath(path), t.source);
    for (const e of out.events) {
      assert.equal(e.session, `${t.source}:${t.task}`);
      assert.equal(e.meta?.source, t.source);
    }
    assert.equal(out.cwd, t.cwd, `${t.source} cwd from the environment details`);
    const ids = out.events.map((e) => e.recordId);
    assert.equal(new Set(ids).size, ids.length, 'record ids unique');
    assert.deepEqual(read(path), out, 'two reads agree');
  }
});

test('cline family: timestamps are the message\'s own (Roo, Kilo) or the task\'s creation (Cline\'s task id)', () => {
  const cline = read(join(TASKS[0].dir, 'api_conversation_history.json'));
  assert.ok(cline.events.every((e) => e.ts === new Date(1764590400000).toISOString() && e.meta?.tsSource === 'task id'));
  const roo = read(join(TASKS[1].dir, 'api_conversation_history.json'));
  assert.equal(roo.events.find((e) => e.kind === 'tool_call')!.ts, new Date(1764600002000).toISOString());
  assert.equal(roo.events.find((e) => e.kind === 'compaction')!.content, 'Summary: fetch_rows renamed in db.py; run.py still to do.');
});

test('cline family: record ids survive condensing markers and a grown history; an edited message gets new ids', () => {
  const path = join(TASKS[1].dir, 'api_conversation_history.json');
  const history: J[] = JSON.parse(readFileSync(path, 'utf8'));
  const before = readClineTaskFile(history, { path }).events.map((e) => e.recordId);
  const marked = history.map((m, i) => (i < 3 ? { ...m, condenseParent: 'cond-9' } : m));
  const grown = [...marked, { role: 'user', ts: 1764600009000, content: [{ type: 'text', text: 'Also run.py, please.' }] }];
  const after = readClineTaskFile(grown, { path }).events.map((e) => e.recordId);
  assert.deepEqual(after.slice(0, before.length), before, 'the same messages keep their ids');
  assert.equal(after.length, before.length + 1);
  const restored = [...history.slice(0, 1), { ...history[1], content: [{ type: 'text', text: 'A different reply after a checkpoint restore.' }] }];
  const ids = readClineTaskFile(restored, { path }).events.map((e) => e.recordId);
  assert.ok(!before.includes(ids[ids.length - 1]), 'a replaced message is a new record, never mistaken for the old one');
});

test('cline family: every UI message is a note once (a still-streaming last one waits); metadata entries are notes', () => {
  for (const t of TASKS) {
    const path = join(t.dir, 'ui_messages.json');
    const ui: J[] = JSON.parse(readFileSync(path, 'utf8'));
    const out = read(path);
    const valid = ui.filter((m) => m.type === 'say' || m.type === 'ask');
    const streaming = ui[ui.length - 1].partial === true ? 1 : 0;
    assert.equal(out.events.length, ui.length - streaming, t.source);
    for (const m of valid.slice(0, valid.length - streaming)) {
      const what = `${t.source} ui ${m.ts} ${m.say ?? m.ask}`;
      const e = once(out.events, (x) => x.meta?.ui === true && x.ts === new Date(m.ts).toISOString() && x.meta?.type === m.type, what);
      if (m.text) assert.equal(e.content, m.text, what);
      assert.equal(e.kind, m.say === 'reasoning' ? 'thinking' : 'note', what);
      if (e.kind === 'note') assert.equal(e.name, `${m.type}.${m.say ?? m.ask}`);
      for (const [n, url] of (m.images ?? []).entries()) assert.equal(Buffer.from(e.binaries![n].data).toString('base64'), url.split(',')[1]);
    }
    assert.ok(!out.events.some((e) => e.content === 'Still typ'), 'a partial last message is not stored');
    const broken = ui.findIndex((m) => m.type !== 'say' && m.type !== 'ask');
    if (broken >= 0) {
      assert.deepEqual(out.problems.map((p) => p.message), [`ui message ${broken} has no type say/ask: kept as a note`]);
      assert.equal(out.events.find((e) => e.meta?.kept)!.content, JSON.stringify(ui[broken]));
    } else assert.deepEqual(out.problems, []);
    const ids = out.events.map((e) => e.recordId);
    assert.equal(new Set(ids).size, ids.length);
  }
  const cline = read(join(TASKS[0].dir, 'ui_messages.json'));
  const req = cline.events.find((e) => e.name === 'say.api_req_started')!;
  assert.deepEqual(req.meta?.apiRequest, { tokensIn: 5120, tokensOut: 240, cacheWrites: 5000, cacheReads: 0, cost: 0.0211 });
  assert.equal(cline.cwd, '/home/dev/sync');
  const checkpoint = cline.events.find((e) => e.name === 'say.checkpoint_created')!;
  assert.equal((checkpoint.meta?.message as J).lastCheckpointHash, '4b825dc642cb6eb9a060e54bf8d69288fbee4904');
  const roo = read(join(TASKS[1].dir, 'ui_messages.json'));
  assert.match(roo.events.find((e) => e.name === 'say.condense_context')!.content, /prevContextTokens/);

  const metaPath = join(TASKS[0].dir, 'task_metadata.json');
  const md = JSON.parse(readFileSync(metaPath, 'utf8'));
  const meta = read(metaPath);
  const entries = Object.values(md).flat() as J[];
  assert.equal(meta.events.length, entries.length);
  for (const entry of entries) once(meta.events, (e) => e.content === JSON.stringify(entry), 'metadata entry');
  assert.equal(meta.events.find((e) => e.name === 'metadata.model_usage')!.meta?.model, 'claude-sonnet-4-5-20250929');
});

test('cline family: a file that is not an array or not JSON is named once', () => {
  const bad = join(FIX, 'cline/bad/saoudrizwan.claude-dev/tasks/1764599999000');
  const api = read(join(bad, 'api_conversation_history.json'));
  assert.deepEqual(api.events, []);
  assert.deepEqual(api.problems.map((p) => [p.perFile, p.message]), [[true, 'api_conversation_history.json is not a JSON array']]);
  const uiPath = join(bad, 'ui_messages.json');
  const ui = readClineTaskFile(readFileSync(uiPath, 'utf8'), { path: uiPath });
  assert.equal(ui.problems.length, 1);
  assert.equal(ui.problems[0].origin.path, uiPath);
  assert.match(ui.problems[0].message, /^not JSON/);
  const odd = readClineTaskFile([{ role: 'system', content: 'x' }, 'stray'], { path: join(bad, 'api_conversation_history.json') });
  assert.equal(odd.problems.length, 2);
  assert.equal(odd.events.length, 2, 'kept whole, not dropped');
});

test('cline family: discovery lists each extension\'s task files under a global storage folder', () => {
  assert.deepEqual(locateClineTasks(join(FIX, 'cline'), 'cline'), [
    join(TASKS[0].dir, 'api_conversation_history.json'), join(TASKS[0].dir, 'ui_messages.json'), join(TASKS[0].dir, 'task_metadata.json'),
  ]);
  assert.deepEqual(locateClineTasks(join(FIX, 'roo-code'), 'roo-code'), [join(TASKS[1].dir, 'api_conversation_history.json'), join(TASKS[1].dir, 'ui_messages.json')]);
  assert.deepEqual(locateClineTasks(join(FIX, 'roo-code'), 'kilo-code'), []);
});

test('cline family: a last UI message still streaming when its file stopped changing is kept as it stood; its final form, if it comes, is added beside it', () => {
  const path = join(TASKS[0].dir, 'ui_messages.json');
  const ui: J[] = JSON.parse(readFileSync(path, 'utf8'));
  assert.equal(ui[ui.length - 1].partial, true, 'the fixture ends with a message still streaming');
  const live = readClineTaskFile(ui, { path });
  assert.match(live.inProgress ?? '', new RegExp(`ui message ${ui.length} is still being written`));
  const settled = readClineTaskFile(ui, { path, settled: true });
  assert.equal(settled.inProgress, undefined);
  assert.equal(settled.events.length, live.events.length + 1);
  const kept = settled.events[settled.events.length - 1];
  assert.equal(kept.content, ui[ui.length - 1].text);
  assert.equal(kept.meta?.unfinished, UNFINISHED_MESSAGE);
  assert.ok(live.events.every((e) => e.meta?.unfinished === undefined));
  const final = [...ui.slice(0, -1), { ...ui[ui.length - 1], partial: false, text: `${ui[ui.length - 1].text}ing done.` }];
  const done = readClineTaskFile(final, { path, settled: true });
  assert.notEqual(done.events[done.events.length - 1].recordId, kept.recordId, 'more text, another record: both are kept');
  const same = readClineTaskFile([...ui.slice(0, -1), { ...ui[ui.length - 1], partial: false }], { path, settled: true });
  assert.equal(same.events[same.events.length - 1].recordId, kept.recordId, 'the same text ended: the same record, not a second copy');
});

test('cline family: fields a block carries beyond those mapped are kept in its event (thinking, redacted thinking, tool results, images)', () => {
  // Cline 3.51 writes `summary` on thinking blocks; any other field a newer version adds must not vanish.
  const history = [
    { role: 'user', content: [{ type: 'text', text: 'check the build' }] },
    {
      role: 'assistant', content: [
        { type: 'thinking', thinking: 'The build log first.', signature: 'sig-1', summary: [{ type: 'summary_text', text: 'Reads the log' }] },
        { type: 'redacted_thinking', data: 'opaque-2', provider: 'vendor-x' },
        { type: 'tool_use', id: 'toolu_9', name: 'read_file', input: { path: 'build.log' } },
      ],
    },
    {
      role: 'user', content: [
        { type: 'tool_result', tool_use_id: 'toolu_9', content: 'ok', is_error: false, cache_control: { type: 'ephemeral' } },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' }, caption: 'build badge' },
      ],
    },
  ];
  const out = readClineTaskFile(history, { path: '/home/dev/.vscode-server/data/User/globalStorage/saoudrizwan.claude-dev/tasks/1769053680585/api_conversation_history.json' });
  const hay = out.events.map((e) => [e.content, e.name, e.toolCallId, JSON.stringify(e.meta)].join('\u0000')).join('\u0001');
  for (const v of ['Reads the log', 'summary_text', 'vendor-x', 'ephemeral', 'build badge', 'sig-1', 'opaque-2']) {
    assert.ok(hay.includes(v), `${v} is not in any event`);
  }
});

test('cline family: a task\'s first UI message "say: text" is the user\'s task; partial flags and images that are not data URLs reach the meta', () => {
  // Cline 3.51 and Roo Code open a task with say("text", task), not say("task"); messages left at
  // partial:true mid-file stay so in Cline's own file.
  const ui = [
    { ts: 1769053680628, type: 'say', say: 'text', text: 'You have been given a Dockerized codebase', images: ['/home/dev/shot.png'], files: [], conversationHistoryIndex: -1 },
    { ts: 1769053689455, type: 'say', say: 'text', text: "I'll help you secure it", partial: true },
    { ts: 1769053690000, type: 'say', say: 'api_req_started', text: '{}' },
  ];
  const out = readClineTaskFile(ui, { path: '/home/dev/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1769053680585/ui_messages.json' });
  assert.deepEqual(out.events.map((e) => e.role), ['user', 'assistant', 'system']);
  assert.equal(out.events[1].meta?.partial, true);
  assert.deepEqual(out.events[0].meta?.images, ['/home/dev/shot.png']);
});
