import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { WorkingView } from '../../../src/core/agent/workingView';
import { ViewBudgetError } from '../../../src/core/agent/errors';
import type { LogEvent } from '../../../src/core/types';
import type { ToolDefinition } from '../../../src/core/agent/model';

/** Builds events as the log would hand them back (seq increasing, one session). */
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
  /** A model turn with one tool call and its result. */
  turn(view: WorkingView, step: number, result: string, meta: Record<string, unknown> = {}): number {
    const id = `c${step}`;
    view.apply(this.make('model_turn', `thinking ${step}`, { step }));
    view.apply(this.make('tool_call', JSON.stringify({ item: step }), { name: 'check', toolCallId: id, step }));
    view.apply(this.make('tool_result', result, { name: 'check', toolCallId: id, step, meta }));
    return this.seq;
  }
}

const tools: ToolDefinition[] = [{ name: 'check', description: 'check', inputSchema: { type: 'object' } }];

describe('WorkingView', () => {
  test('renders a valid conversation: system, user, assistant with tool calls, tool results', () => {
    const f = new EventFactory();
    const v = new WorkingView({ session: 's', systemPrompt: 'SYS', budget: 10_000 });
    v.apply(f.make('user_message', 'hello'));
    f.turn(v, 1, 'result one');
    v.apply(f.make('model_turn', 'final', { step: 2 }));
    v.apply(f.make('user_message', 'other session', { session: 'other' }));
    assert.deepEqual(v.render(), [
      { role: 'system', content: 'SYS' },
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'thinking 1', toolCalls: [{ id: 'c1', name: 'check', input: { item: 1 } }] },
      { role: 'tool', toolCallId: 'c1', name: 'check', content: 'result one' },
      { role: 'assistant', content: 'final' },
    ]);
    assert.equal(v.nextStep, 3);
  });

  test('tool outputs older than 3 steps and longer than 600 characters shrink to a stub naming the seq', () => {
    const f = new EventFactory();
    const v = new WorkingView({ session: 's', systemPrompt: 'SYS', budget: 100_000 });
    v.apply(f.make('user_message', 'go'));
    const longSeq = f.turn(v, 1, 'L'.repeat(700));
    f.turn(v, 2, 'short'.repeat(10));
    f.turn(v, 3, 'M'.repeat(700));
    f.turn(v, 4, 'x');
    // next step 5: step 1 is older than 3 steps, step 3 is not
    const tools = v.render().filter((m) => m.role === 'tool').map((m) => m.content);
    assert.match(tools[0], new RegExp(`^\\[output of step 1 shrunk from the view: 700 characters, full copy at seq ${longSeq} — ms.expand\\(${longSeq}\\)`));
    assert.equal(tools[1], 'short'.repeat(10));
    assert.equal(tools[2], 'M'.repeat(700));
  });

  test('large results show a preview plus the seq and payload handle of the full copy', () => {
    const f = new EventFactory();
    const v = new WorkingView({ session: 's', systemPrompt: 'SYS', budget: 4_000, largeResultTokens: 100 });
    v.apply(f.make('user_message', 'go'));
    v.apply(f.make('model_turn', '', { step: 1 }));
    v.apply(f.make('tool_call', '{}', { name: 'check', toolCallId: 'a', step: 1 }));
    v.apply(f.make('tool_result', 'line\n'.repeat(1000), { name: 'check', toolCallId: 'a', step: 1, payload: 'ab'.repeat(32) }));
    const content = v.render().find((m) => m.role === 'tool')!.content;
    assert.ok(content.length < 600, `${content.length}`);
    assert.match(content, /preview only: 5,000 characters in all\. The full copy is seq 4, payload abababababab…/);
  });

  test('eviction: oldest groups first down to the low-water mark; pinned request and newest group stay', async () => {
    const f = new EventFactory();
    const v = new WorkingView({ session: 's', systemPrompt: 'SYS', budget: 2_000, stubAfterSteps: 1000 });
    v.apply(f.make('user_message', 'old request'));
    f.turn(v, 1, 'a'.repeat(800));
    v.apply(f.make('user_message', 'current request'));
    const pinned = f.seq;
    for (let s = 2; s <= 12; s++) f.turn(v, s, 'b'.repeat(600));
    const before = await v.measure(tools);
    assert.ok(before > 0.9 * 2000);
    const plan = (await v.planEviction(tools))!;
    assert.ok(plan);
    assert.equal(plan.fromSeq, 1, 'starts at the oldest group');
    assert.ok(plan.tokensAfter <= 0.6 * 2000, `${plan.tokensAfter}`);
    // Applying the eviction event is what removes the groups.
    v.apply(f.make('eviction', 'evicted', { meta: { level: 0, from_seq: plan.fromSeq, to_seq: plan.toSeq, title: { task: 't', state: 's', next: 'n' } } }));
    const msgs = v.render();
    assert.ok(msgs.some((m) => m.role === 'user' && m.content === 'current request'), 'pinned request stays');
    assert.ok(!msgs.some((m) => m.role === 'user' && m.content === 'old request'));
    assert.equal(msgs[msgs.length - 1].role, 'tool');
    assert.equal(msgs[msgs.length - 1].content, 'b'.repeat(600), 'newest group stays');
    assert.equal(v.pinnedUser, pinned);
    assert.ok((await v.measure(tools)) < before);
    assert.match(msgs[0].content, /## Evicted from this view[\s\S]*- seq 1–\d+: task: t \| state: s \| next: n/);
    // The span tiles from seq 1 and includes the pinned request's seq, which stays pinned.
    assert.ok(plan.toSeq > pinned);
  });

  test('the newest group is never evicted, and squeezing keeps the view within budget', async () => {
    const f = new EventFactory();
    const v = new WorkingView({ session: 's', systemPrompt: 'SYS', budget: 1_000, largeResultTokens: 2_000 });
    v.apply(f.make('user_message', 'go'));
    f.turn(v, 1, 'z'.repeat(20_000));
    assert.equal(await v.planEviction(tools), null, 'nothing evictable: the only group is the newest');
    const prepared = await v.prepare(tools);
    assert.ok(prepared.tokens <= 1000);
    assert.ok(prepared.squeeze > 0);
    assert.match(prepared.messages[prepared.messages.length - 1].content, /preview only/);
  });

  test('a budget too small for the pinned minimum is a clear error', async () => {
    const v = new WorkingView({ session: 's', systemPrompt: 'S'.repeat(8_000), budget: 500 });
    await assert.rejects(v.prepare(tools), (e: unknown) => e instanceof ViewBudgetError && /needs at least \d+ tokens .* budget is 500/.test((e as Error).message));
    assert.throws(() => new WorkingView({ session: 's', systemPrompt: '', budget: 0 }), ViewBudgetError);
    assert.throws(() => new WorkingView({ session: 's', systemPrompt: '', budget: 10, lowWater: 0.95, highWater: 0.9 }), /water marks/);
  });

  test('kernel variable digest: name, type, size and the seq it last changed at; dropped names leave', () => {
    const f = new EventFactory();
    const v = new WorkingView({ session: 's', systemPrompt: 'SYS', budget: 10_000 });
    v.apply(f.make('user_message', 'go'));
    const s1 = f.turn(v, 1, 'ok', { variables: [{ name: 'hits', type: 'Hits', size: '5 items' }, { name: 'n', type: 'int', size: '' }] });
    const s2 = f.turn(v, 2, 'ok', { variables: [{ name: 'hits', type: 'Hits', size: '9 items' }, { name: 'n', type: 'int', size: '' }] });
    assert.deepEqual(v.variableDigest(), [
      { name: 'hits', type: 'Hits', size: '9 items', seq: s2 },
      { name: 'n', type: 'int', size: '', seq: s1 },
    ]);
    assert.match(v.systemMessage(), /## Kernel variables[\s\S]*- hits: Hits, 9 items \(since seq \d+\)\n- n: int \(since seq \d+\)/);
    f.turn(v, 3, 'restarted', { variables: [] });
    assert.deepEqual(v.variableDigest(), []);
  });

  test('a tool call without a logged result still gets a tool message (valid conversation)', () => {
    const f = new EventFactory();
    const v = new WorkingView({ session: 's', systemPrompt: 'SYS', budget: 10_000 });
    v.apply(f.make('user_message', 'go'));
    v.apply(f.make('model_turn', '', { step: 1 }));
    v.apply(f.make('tool_call', '{"a":1}', { name: 'check', toolCallId: 'q', step: 1 }));
    const last = v.render().pop()!;
    assert.deepEqual(last, { role: 'tool', toolCallId: 'q', name: 'check', content: '[no result was logged for this call]' });
  });
});
