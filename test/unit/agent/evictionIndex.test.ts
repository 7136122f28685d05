import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { EvictionIndex, indexLineBound, mergeTitles, TITLE_FIELD_MAX } from '../../../src/core/agent/evictionIndex';

const title = (i: number) => ({ task: `task ${i}`, state: `state ${i}`, next: `next ${i}` });

function fill(n: number, cap: number): EvictionIndex {
  const idx = new EvictionIndex(cap);
  for (let i = 0; i < n; i++) idx.add({ fromSeq: i * 10 + 1, toSeq: i * 10 + 9, title: title(i), evictionSeq: i * 10 + 10 });
  return idx;
}

describe('EvictionIndex (odometer)', () => {
  test('a level that reaches k blocks collapses all but the newest into one block a level up', () => {
    const idx = fill(8, 8);
    const blocks = idx.blocks();
    assert.equal(blocks.length, 2);
    assert.equal(blocks[0].level, 1);
    assert.equal(blocks[0].fromSeq, 1);
    assert.equal(blocks[0].toSeq, 69);
    assert.equal(blocks[0].segments, 7);
    assert.equal(blocks[0].children.length, 7);
    assert.deepEqual(blocks[0].title, { task: 'task 0 … task 6', state: 'state 0 … state 6', next: 'next 6' });
    assert.equal(blocks[1].level, 0);
    assert.equal(blocks[1].fromSeq, 71);
    assert.equal(blocks[1].evictionSeq, 80);
  });

  test('blocks tile the evicted spans in order, with no gaps or overlaps, at every size', () => {
    for (const cap of [3, 4, 8]) {
      for (let n = 1; n <= 400; n++) {
        const blocks = fill(n, cap).blocks();
        assert.equal(blocks[0].fromSeq, 1);
        assert.equal(blocks[blocks.length - 1].toSeq, (n - 1) * 10 + 9);
        for (let i = 1; i < blocks.length; i++) assert.equal(blocks[i].fromSeq, blocks[i - 1].toSeq + 2, `cap ${cap} n ${n}`);
        assert.equal(blocks.reduce((s, b) => s + b.segments, 0), n);
      }
    }
  });

  test('rendered lines stay within (k-1)(⌊log_{k-1} n⌋+1) ≤ k(log_k n + 1), each with its seq range', () => {
    for (const cap of [4, 8]) {
      for (const n of [1, 7, 8, 50, 343, 500, 1000, 5000]) {
        const idx = fill(n, cap);
        const lines = idx.render();
        assert.ok(lines.length <= indexLineBound(n, cap), `cap ${cap} n ${n}: ${lines.length} > ${indexLineBound(n, cap)}`);
        assert.ok(lines.length <= cap * (Math.log(n) / Math.log(cap) + 1), `cap ${cap} n ${n}`);
        for (const l of lines) assert.match(l, /^- seq \d+(–\d+)?/);
      }
    }
  });

  test('fromLevel0 rebuilds the same index; withBlock previews the next one without changing this', () => {
    const a = fill(123, 8);
    const b = EvictionIndex.fromLevel0(a.leaves(), 8);
    assert.deepEqual(b.snapshot(), a.snapshot());
    assert.deepEqual(b.render(), a.render());
    const next = a.withBlock({ fromSeq: 2000, toSeq: 2005, title: title(999), evictionSeq: 2006 });
    assert.equal(a.segments, 123);
    assert.equal(next.segments, 124);
    a.add({ fromSeq: 2000, toSeq: 2005, title: title(999), evictionSeq: 2006 });
    assert.deepEqual(next.snapshot(), a.snapshot());
  });

  test('titles are one line and clamped, keeping both ends of merged titles', () => {
    const long = 'x'.repeat(300);
    const m = mergeTitles({ task: `alpha ${long}`, state: 's', next: 'n' }, { task: `${long} omega`, state: 's', next: 'n2' });
    assert.ok(m.task.length <= TITLE_FIELD_MAX);
    assert.ok(m.task.startsWith('alpha'));
    assert.ok(m.task.endsWith('omega'));
    assert.equal(m.state, 's');
    assert.equal(m.next, 'n2');
    const idx = new EvictionIndex(3);
    idx.add({ fromSeq: 1, toSeq: 1, title: { task: 'a\nb', state: '', next: '  ' }, evictionSeq: 2 });
    assert.deepEqual(idx.blocks()[0].title, { task: 'a b', state: '—', next: '—' });
  });

  test('bad input is refused clearly', () => {
    assert.throws(() => new EvictionIndex(2), /cap must be an integer ≥ 3/);
    assert.throws(() => new EvictionIndex(8).add({ fromSeq: 5, toSeq: 4, title: title(0), evictionSeq: null }), /reversed/);
  });
});
