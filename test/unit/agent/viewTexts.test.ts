/**
 * The words the model sees moved from code into src/prompts (view.md, title-request.md, loop.md).
 * These tests hold the rendered text to exactly what the code built before the move: the `old*`
 * functions below are the previous implementations, copied verbatim.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { clampTitle, EvictionIndex, type IndexBlock, type IndexTitle } from '../../../src/core/agent/evictionIndex';
import { AgentLoop } from '../../../src/core/agent/agentLoop';
import { fallbackTitle, segmentTranscript, type SegmentEvent } from '../../../src/core/agent/titles';
import { WorkingView, type VariableDigestEntry } from '../../../src/core/agent/workingView';
import { ScriptedModelClient } from '../../../src/core/agent/testing/scriptedModel';
import type { AgentTool } from '../../../src/core/agent/tools';
import { estimateTokens, type LogEvent, type NewEvent } from '../../../src/core/types';
import { fill, template, templates } from '../../../src/prompts';

// ------------------------------------------------------------------------------------------------
// The previous implementations (src/core/agent/workingView.ts, evictionIndex.ts, titles.ts, agentLoop.ts)

function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function oldStub(r: { seq: number; content: string }, step: number | null): string {
  const first = r.content.split('\n', 1)[0].slice(0, 120);
  return (
    `[output of step ${step ?? '?'} shrunk from the view: ${thousands(r.content.length)} characters, ` +
    `full copy at seq ${r.seq} — ms.expand(${r.seq}) in scroll_exec to read it] ${first}`
  );
}

function oldPreview(e: { seq: number; content: string; payload: string | null }, limitTokens: number): string {
  if (estimateTokens(e.content) <= limitTokens) return e.content;
  const head = e.content.slice(0, Math.max(80, limitTokens * 4 - 200));
  const handle = e.payload ? `, payload ${e.payload.slice(0, 12)}…` : '';
  return (
    `${head}\n… [preview only: ${thousands(e.content.length)} characters in all. ` +
    `The full copy is seq ${e.seq}${handle}; read slices with ms.expand(${e.seq})[0].content[a:b] in scroll_exec.]`
  );
}

function oldCut(v: string, maxChars: number, seq: number): string {
  return v.length <= maxChars ? v : `${v.slice(0, maxChars)}… [${thousands(v.length)} characters; the full call is seq ${seq}]`;
}

function oldRenderBlockLine(b: IndexBlock): string {
  const range = b.fromSeq === b.toSeq ? `seq ${b.fromSeq}` : `seq ${b.fromSeq}–${b.toSeq}`;
  const span = b.level > 0 ? ` (L${b.level}, ${b.segments} segments)` : '';
  return `- ${range}${span}: task: ${b.title.task} | state: ${b.title.state} | next: ${b.title.next}`;
}

function oldMemorySection(index: EvictionIndex, session: string, vars: VariableDigestEntry[]): string {
  const DIGEST_MAX_VARS = 30;
  const parts: string[] = [];
  if (index.size) {
    parts.push(
      `## Evicted from this view (still in the log — ms.range(a, b) or ms.expand(seq) reads it back)\n` +
        `${index.segments} segment(s) of session ${session}, oldest first:\n` +
        index.blocks().map(oldRenderBlockLine).join('\n'),
    );
  }
  if (vars.length) {
    const shown = vars.slice(0, DIGEST_MAX_VARS).map((v) => `- ${v.name}: ${v.type}${v.size ? `, ${v.size}` : ''} (since seq ${v.seq})`);
    if (vars.length > DIGEST_MAX_VARS) shown.push(`- … ${vars.length - DIGEST_MAX_VARS} more (print(list(globals())) to see them)`);
    parts.push(`## Kernel variables (they persist between scroll_exec calls)\n${shown.join('\n')}`);
  }
  return parts.join('\n\n');
}

function oldFirstLine(s: string, max: number): string {
  const line = s.split('\n').map((l) => l.trim()).find((l) => l) ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function oldExcerpt(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** fallbackTitle before clampTitle (the clamp is unchanged and applied to both). */
function oldFallbackFields(events: SegmentEvent[], currentRequest: string | null): IndexTitle {
  const firstUser = events.find((e) => e.kind === 'user_message');
  const taskSource = firstUser?.content ?? currentRequest ?? events.find((e) => e.kind === 'model_turn' && e.content.trim())?.content ?? '';
  const steps = events.map((e) => e.step).filter((s): s is number => typeof s === 'number');
  const tools = new Map<string, number>();
  for (const e of events) if (e.kind === 'tool_call' && e.name) tools.set(e.name, (tools.get(e.name) ?? 0) + 1);
  const toolText = [...tools].map(([n, c]) => (c > 1 ? `${n}×${c}` : n)).join(', ');
  const lastResult = [...events].reverse().find((e) => e.kind === 'tool_result');
  const stepText = steps.length ? (Math.min(...steps) === Math.max(...steps) ? `step ${steps[0]}` : `steps ${Math.min(...steps)}–${Math.max(...steps)}`) : 'no steps';
  const stateParts = [stepText];
  if (toolText) stateParts.push(`tools ${toolText}`);
  if (lastResult) stateParts.push(`last result: ${oldFirstLine(lastResult.content, 60)}`);
  const lastTurn = [...events].reverse().find((e) => e.kind === 'model_turn' && e.content.trim());
  const lastCall = [...events].reverse().find((e) => e.kind === 'tool_call');
  const next = lastTurn
    ? oldFirstLine(lastTurn.content, 80)
    : lastCall
      ? `after ${lastCall.name}(${oldFirstLine(lastCall.content, 50)})`
      : 'continue the task';
  return { task: oldFirstLine(taskSource, 100) || 'untitled segment', state: stateParts.join('; '), next };
}

function oldTranscript(events: SegmentEvent[], currentRequest: string | null): string {
  const lines = events.map((e) => {
    const who = e.kind === 'tool_call' || e.kind === 'tool_result' ? `${e.kind} ${e.name ?? ''}`.trim() : e.kind;
    return `[seq ${e.seq} ${who}] ${oldExcerpt(e.content, 400)}`;
  });
  let text = lines.join('\n');
  if (text.length > 6_000) {
    const half = Math.floor(6_000 / 2);
    text = `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters left out …]\n${text.slice(-half)}`;
  }
  const req = currentRequest ? `The user's current request: ${oldExcerpt(currentRequest, 500)}\n\n` : '';
  return `${req}Segment leaving the view:\n${text}`;
}

// ------------------------------------------------------------------------------------------------

class EventFactory {
  seq = 0;
  make(kind: string, content: string, extra: Partial<LogEvent> = {}): LogEvent {
    this.seq++;
    return {
      seq: this.seq, session: 's', kind, role: kind === 'user_message' ? 'user' : 'assistant', name: null, content,
      ts: '2026-01-01T00:00:00Z', meta: {}, step: null, toolCallId: null, parentSeq: null, headline: null,
      payload: null, bytes: Buffer.byteLength(content), tokens: Math.ceil(content.length / 4), ...extra,
    };
  }
}

const title = (i: number): IndexTitle => ({ task: `task ${i} {not a placeholder}`, state: `state ${i}`, next: `next ${i}` });

describe('model-facing texts from src/prompts', () => {
  test('stubs, previews, cut arguments and a missing result render exactly as before', () => {
    const f = new EventFactory();
    const v = new WorkingView({ session: 's', systemPrompt: 'SYS', budget: 40_000, largeResultTokens: 300 });
    const request = `go {seq} $& $1 ${'u'.repeat(2_000)}`;
    v.apply(f.make('user_message', request));
    const step1: LogEvent[] = [];
    v.apply(f.make('model_turn', 'one', { step: 1 }));
    v.apply(f.make('tool_call', JSON.stringify({ path: 'a.py', text: 'W'.repeat(900) }), { name: 'write', toolCallId: 'w', step: 1 }));
    step1.push(f.make('tool_result', `first line {step} $&\n${'L'.repeat(5_000)}`, { name: 'write', toolCallId: 'w', step: 1, payload: 'cd'.repeat(32) }));
    v.apply(step1[0]);
    v.apply(f.make('model_turn', 'two', { step: 2 }));
    v.apply(f.make('tool_call', '{}', { name: 'read', toolCallId: 'r', step: 2 }));
    const big = f.make('tool_result', `${'big {head} '.repeat(400)}`, { name: 'read', toolCallId: 'r', step: 2, payload: 'ef'.repeat(32) });
    v.apply(big);
    v.apply(f.make('tool_call', '{}', { name: 'read', toolCallId: 'r2', step: 2 }));
    const small = f.make('tool_result', 'x'.repeat(1_500), { name: 'read', toolCallId: 'r2', step: 2 });
    v.apply(small);
    v.apply(f.make('tool_call', '{}', { name: 'lost', toolCallId: 'q', step: 2 }));
    for (let s = 3; s <= 4; s++) v.apply(f.make('model_turn', `turn ${s}`, { step: s }));

    const msgs = v.render();
    const tool = (id: string) => msgs.find((m) => m.role === 'tool' && m.toolCallId === id)!.content;
    // Step 1 is old at step 5 (more than 3 steps back): its output is a stub, its long argument cut at the stub limit.
    assert.equal(tool('w'), oldStub(step1[0], 1));
    const turns = msgs.filter((m): m is Extract<typeof m, { role: 'assistant' }> => m.role === 'assistant');
    const call = turns.find((m) => m.toolCalls?.[0]?.id === 'w')!.toolCalls![0];
    assert.deepEqual(call.input, { path: 'a.py', text: oldCut('W'.repeat(900), 300, 3) });
    // Step 2 is not old: previews with and without a payload handle.
    assert.equal(tool('r'), oldPreview(big, 300));
    assert.ok(tool('r').includes('payload efefefefefef…'));
    assert.equal(tool('r2'), oldPreview(small, 300));
    assert.equal(tool('q'), '[no result was logged for this call]');
    // Squeezed: the same preview words at the smaller limits.
    assert.equal(msgs.find((m) => m.role === 'user')!.content, request);
    const squeezedUser = v.render(2).find((m) => m.role === 'user')!.content;
    assert.equal(squeezedUser, oldPreview({ seq: 1, content: request, payload: null }, 100));
    assert.ok(squeezedUser.includes('preview only'));
  });

  test('the memory section (index of every level, variables, the overflow line) renders exactly as before', () => {
    const f = new EventFactory();
    const v = new WorkingView({ session: 's', systemPrompt: 'SYS', budget: 40_000, indexCap: 3 });
    v.apply(f.make('user_message', 'go'));
    let index = new EvictionIndex(3);
    for (let i = 1; i <= 4; i++) {
      const from = f.seq + 1;
      v.apply(f.make('model_turn', `turn ${i}`, { step: i }));
      if (i === 4) v.apply(f.make('model_turn', `turn ${i}b`, { step: i }));
      const to = f.seq;
      index = index.withBlock({ fromSeq: from, toSeq: to, title: title(i), evictionSeq: null });
      v.apply(f.make('eviction', 'e', { meta: { level: 0, from_seq: from, to_seq: to, title: title(i), index: index.snapshot() } }));
    }
    const vars = Array.from({ length: 33 }, (_, i) => ({ name: `v${String(i).padStart(2, '0')}`, type: i % 2 ? 'int' : 'DataFrame', size: i % 3 ? '' : `${i} rows` }));
    v.apply(f.make('tool_result', 'ok', { meta: { variables: vars } }));
    assert.ok(v.index.blocks().some((b) => b.level > 0) && v.index.blocks().some((b) => b.fromSeq === b.toSeq) && v.index.blocks().some((b) => b.fromSeq < b.toSeq && b.level === 0));
    const expected = oldMemorySection(v.index, 's', v.variableDigest());
    assert.equal(v.memorySection(), expected);
    assert.equal(v.systemMessage(), `SYS\n\n${expected}`);
    assert.match(expected, /- … 3 more \(print\(list\(globals\(\)\)\) to see them\)$/);
    assert.deepEqual(v.index.render(), v.index.blocks().map(oldRenderBlockLine));
  });

  test('the title request transcript and the fallback title read exactly as before', () => {
    const events: SegmentEvent[] = [
      { seq: 4, kind: 'user_message', name: null, content: '  fix   the {task} parser\nsecond line', step: null },
      { seq: 5, kind: 'model_turn', name: null, content: 'I will read it', step: 3 },
      { seq: 6, kind: 'tool_call', name: 'read_file', content: '{"path": "parser.py"}', step: 3 },
      { seq: 7, kind: 'tool_result', name: 'read_file', content: 'def parse():\n  return 1', step: 3 },
      { seq: 8, kind: 'tool_call', name: 'read_file', content: '{"path": "lexer.py"}', step: 4 },
      { seq: 9, kind: 'tool_call', name: 'run', content: '{"cmd": "pytest"}', step: 5 },
    ];
    const samples: Array<[SegmentEvent[], string | null]> = [
      [events, 'the current request'],
      [events, null],
      [events.slice(1, 2), null],
      [events.slice(2), null],
      [[{ seq: 1, kind: 'tool_result', name: null, content: '', step: null }], null],
      [[], null],
      [Array.from({ length: 40 }, (_, i) => ({ seq: i + 1, kind: 'tool_result', name: 'read', content: `${i} `.repeat(300), step: 2 })), 'r'],
    ];
    for (const [segment, request] of samples) {
      assert.equal(segmentTranscript(segment, request), oldTranscript(segment, request));
      const old = oldFallbackFields(segment, request);
      const now = fallbackTitle(segment, request);
      // fallbackTitle clamps (unchanged code): compare the clamped old fields.
      assert.deepEqual(now, clampTitle(old));
    }
    assert.match(segmentTranscript(samples[6][0], 'r'), /\[… \d+ characters left out …\]/);
    assert.equal(fallbackTitle(events, null).state, 'steps 3–5; tools read_file×2, run; last result: def parse():');
    assert.equal(fallbackTitle(events.slice(4), null).next, 'after run({"cmd": "pytest"})');
    assert.deepEqual(fallbackTitle([], null), { task: 'untitled segment', state: 'no steps', next: 'continue the task' });
  });

  test('what the loop writes for the model (tool errors, the eviction event) reads exactly as before', async () => {
    const appended: LogEvent[] = [];
    const log = {
      append(e: NewEvent): LogEvent {
        const ev: LogEvent = {
          seq: appended.length + 1, session: e.session ?? 's', kind: e.kind, role: e.role, name: e.name ?? null, content: e.content,
          ts: '2026-01-01T00:00:00Z', meta: e.meta ?? {}, step: e.step ?? null, toolCallId: e.toolCallId ?? null, parentSeq: e.parentSeq ?? null,
          headline: null, payload: null, bytes: e.content.length, tokens: Math.ceil(e.content.length / 4),
        };
        appended.push(ev);
        return ev;
      },
      maxSeq: () => appended.length,
      range: (a: number, b: number) => appended.filter((e) => e.seq >= a && e.seq <= b),
    };
    const guarded: AgentTool = { definition: { name: 'guarded', description: 'g', inputSchema: { type: 'object' } }, needsConfirmation: true, invoke: async () => 'ran' };
    const failing: AgentTool = { definition: { name: 'failing', description: 'f', inputSchema: { type: 'object' } }, invoke: async () => { throw new Error('disk {full}'); } };
    const model = new ScriptedModelClient([
      { toolCalls: [{ id: 'a', name: 'nope', input: {} }, { id: 'b', name: 'guarded', input: {} }, { id: 'c', name: 'failing', input: {} }] },
      { text: 'done' },
    ]);
    const loop = AgentLoop.open({ log, session: 's', model, tools: [guarded, failing], titleModel: null, maxViewTokens: 100_000 });
    await loop.run('go');
    const results = appended.filter((e) => e.kind === 'tool_result').map((e) => e.content);
    assert.deepEqual(results, [
      `there is no tool named ${JSON.stringify('nope')}; available: guarded, failing`,
      `the user did not allow guarded to run${' (this host runs it only when allowed)'}`,
      `failing failed: disk {full}`,
    ]);
    // An eviction through the loop: its content as the old code built it from the plan and title.
    appended.length = 0;
    const echo: AgentTool = { definition: { name: 'echo', description: 'e', inputSchema: { type: 'object' } }, invoke: async () => 'output '.repeat(80) };
    const busy = new ScriptedModelClient([
      ...Array.from({ length: 12 }, (_, i) => ({ toolCalls: [{ id: `e${i}`, name: 'echo', input: { i } }] })),
      { text: 'done' },
    ]);
    const small = AgentLoop.open({ log, session: 's', model: busy, tools: [echo], titleModel: null, maxViewTokens: 1_200, systemPrompt: 'SYS' });
    const r = await small.run('go on');
    assert.ok(r.evictions > 0, 'the loop evicted');
    for (const e of appended.filter((x) => x.kind === 'eviction')) {
      const m = e.meta as { from_seq: number; to_seq: number; events: number; groups: number; title: IndexTitle };
      assert.equal(
        e.content,
        `Evicted seq ${m.from_seq}–${m.to_seq} (${m.events} events, ${m.groups} turns) from the working view; ` +
          `still in the log. task: ${m.title.task} | state: ${m.title.state} | next: ${m.title.next}`,
      );
    }
    // The eviction template, with text that looks like a placeholder.
    const plan = { fromSeq: 3, toSeq: 9, seqs: [3, 4, 5], groups: 2 };
    const t = { task: 'a {task}', state: 'b', next: 'c' };
    assert.equal(
      fill(template('loop', 'eviction'), { from: plan.fromSeq, to: plan.toSeq, events: plan.seqs.length, groups: plan.groups, ...t }),
      `Evicted seq ${plan.fromSeq}–${plan.toSeq} (${plan.seqs.length} events, ${plan.groups} turns) from the working view; ` +
        `still in the log. task: ${t.task} | state: ${t.state} | next: ${t.next}`,
    );
    assert.equal(fill(template('loop', 'not-allowed'), { tool: 'x' }), `the user did not allow x to run${''}`);
    assert.equal(template('loop', 'cancelled'), 'cancelled by the user');
    assert.equal(template('loop', 'not-run-cancelled'), 'not run: cancelled by the user');
    assert.equal(fill(template('loop', 'input-rejected'), { error: 'bad' }), 'tool call rejected: bad');
    assert.equal(fill(template('loop', 'max-steps'), { maxSteps: 4 }), 'stopped after 4 model calls without a final answer');
    assert.equal(fill(template('loop', 'no-model-call'), { step: 2, error: 'e' }), 'no model call at step 2: e');
    assert.equal(fill(template('loop', 'model-call-failed'), { step: 2, error: 'e' }), 'model call failed at step 2: e');
  });
});

describe('templates and fill', () => {
  test('fill replaces each {key} once; what it puts in is never filled again; a missing value throws', () => {
    assert.equal(fill('a {x} b {y} {x}', { x: 1, y: '{x} $&' }), 'a 1 b {x} $& 1');
    assert.equal(fill('no placeholders {"json": 1}', {}), 'no placeholders {"json": 1}');
    assert.throws(() => fill('a {missing}', { other: 1 }), /\{missing\} but no value/);
    assert.throws(() => fill('a {toString}', {}), /no value/);
  });

  test('template files: every template is the fenced text exactly, and every placeholder is one the code fills', () => {
    assert.equal(template('view', 'preview-payload'), ', payload {handle}…');
    assert.ok(template('view', 'evicted').startsWith('## Evicted from this view'), 'a heading inside a fence is template text');
    assert.equal(template('title-request', 'transcript-with-request'), "The user's current request: {request}\n\nSegment leaving the view:\n{lines}");
    assert.throws(() => template('view', 'nope'), /no template "nope"/);
    assert.throws(() => templates('nope'), /no template file/);
    const placeholders: Record<string, Record<string, string[]>> = {
      view: {
        stub: ['step', 'chars', 'seq', 'first'], preview: ['head', 'chars', 'seq', 'payload'], 'preview-payload': ['handle'],
        'call-cut': ['head', 'chars', 'seq'], 'no-result': [], evicted: ['segments', 'session', 'lines'],
        'index-line': ['range', 'task', 'state', 'next'], 'index-line-merged': ['range', 'level', 'segments', 'task', 'state', 'next'],
        'seq-one': ['from'], 'seq-span': ['from', 'to'], variables: ['lines'], variable: ['name', 'type', 'seq'],
        'variable-sized': ['name', 'type', 'size', 'seq'], 'variables-more': ['count'],
      },
      'title-request': {
        transcript: ['lines'], 'transcript-with-request': ['request', 'lines'], 'transcript-line': ['seq', 'who', 'excerpt'],
        'transcript-cut': ['head', 'chars', 'tail'], 'fallback-untitled': [], 'fallback-step': ['step'], 'fallback-steps': ['first', 'last'],
        'fallback-no-steps': [], 'fallback-tools': ['tools'], 'fallback-tool': ['name'], 'fallback-tool-count': ['name', 'count'],
        'fallback-last-result': ['line'], 'fallback-next-after-call': ['name', 'args'], 'fallback-next': [],
      },
      loop: {
        eviction: ['from', 'to', 'events', 'groups', 'task', 'state', 'next'], 'input-rejected': ['error'], 'no-such-tool': ['name', 'tools'],
        'not-allowed': ['tool'], 'not-allowed-no-confirm': ['tool'], 'tool-failed': ['tool', 'error'], cancelled: [], 'not-run-cancelled': [],
        'no-model-call': ['step', 'error'], 'model-call-failed': ['step', 'error'], 'max-steps': ['maxSteps'],
      },
    };
    for (const [file, expected] of Object.entries(placeholders)) {
      const got = Object.fromEntries(Object.entries(templates(file)).map(([name, t]) => [name, [...t.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).filter((k, i, a) => a.indexOf(k) === i)]));
      assert.deepEqual(got, expected, file);
    }
  });
});
