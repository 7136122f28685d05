import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { fallbackTitle, modelTitle, parseTitle, segmentTranscript, type SegmentEvent } from '../../../src/core/agent/titles';
import { ScriptedModelClient } from '../../../src/core/agent/testing/scriptedModel';
import { TITLE_FIELD_MAX } from '../../../src/core/agent/evictionIndex';

const segment: SegmentEvent[] = [
  { seq: 10, kind: 'user_message', name: null, content: 'Fix the flaky retry test in net/retry.ts\nIt fails one run in ten.', step: 4 },
  { seq: 11, kind: 'model_turn', name: null, content: '', step: 5 },
  { seq: 12, kind: 'tool_call', name: 'read_file', content: '{"path":"net/retry.ts"}', step: 5 },
  { seq: 13, kind: 'tool_result', name: 'read_file', content: 'net/retry.ts (80 lines)\n1: import ...', step: 5 },
  { seq: 14, kind: 'model_turn', name: null, content: 'The backoff uses Math.random without a seed; next I will inject the clock.', step: 6 },
  { seq: 15, kind: 'tool_call', name: 'scroll_exec', content: '{"code":"print(1)"}', step: 6 },
  { seq: 16, kind: 'tool_result', name: 'scroll_exec', content: '1', step: 6 },
];

describe('eviction titles', () => {
  test('the fallback is built from the segment itself, deterministically', () => {
    const t = fallbackTitle(segment, 'an older request');
    assert.deepEqual(t, {
      task: 'Fix the flaky retry test in net/retry.ts',
      state: 'steps 4–6; tools read_file, scroll_exec; last result: 1',
      next: 'The backoff uses Math.random without a seed; next I will inject the clock.',
    });
    assert.deepEqual(fallbackTitle(segment, 'x'), t);
    // Without a user message in the segment, the task is the current request.
    assert.equal(fallbackTitle(segment.slice(1), 'Make CI green').task, 'Make CI green');
    for (const v of Object.values(fallbackTitle([{ seq: 1, kind: 'tool_result', name: 'x', content: 'y'.repeat(1000), step: 1 }], 'z'.repeat(1000)))) {
      assert.ok(v.length <= TITLE_FIELD_MAX);
    }
  });

  test('the model title comes from a JSON side request; bad answers are refused', async () => {
    const model = new ScriptedModelClient([], { onJson: (req) => {
      assert.equal(req.opts.json, true);
      assert.match(req.messages[1].content, /\[seq 14 model_turn\] The backoff/);
      return 'Here: {"task": "flaky retry test", "state": "cause: unseeded random", "next": "inject clock"}';
    } });
    assert.deepEqual(await modelTitle(model, segment, null), { task: 'flaky retry test', state: 'cause: unseeded random', next: 'inject clock' });
    assert.throws(() => parseTitle('no json'), /not a JSON object/);
    assert.throws(() => parseTitle('{"task": "t", "state": "s"}'), /lacks a "next" string/);
    assert.throws(() => parseTitle('{"task": 1, "state": "s", "next": "n"}'), /lacks a "task" string/);
  });

  test('the transcript sent for a title is capped, keeping head and tail', () => {
    const many: SegmentEvent[] = Array.from({ length: 500 }, (_, i) => ({ seq: i + 1, kind: 'tool_result', name: 't', content: `result ${i} ${'x'.repeat(300)}`, step: i }));
    const text = segmentTranscript(many, 'req');
    assert.ok(text.length < 7_000);
    assert.match(text, /\[seq 1 tool_result t\] result 0/);
    assert.match(text, /\[seq 500 tool_result t\] result 499/);
    assert.match(text, /characters left out/);
  });
});
