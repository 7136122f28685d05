/**
 * The shared eviction vectors (test/vectors/eviction-vectors.json) through every TypeScript reader
 * of eviction meta: the contract's reader and index functions, the host's ms.index(), the working
 * view's replay, the panel's tree and the editor's index and segment reads.
 * test/python/test_ms.py runs the same file's `index` answers against kernel/scroll_ms.py.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clampTitle, EvictionIndex } from '../../../src/core/agent/evictionIndex';
import { WorkingView } from '../../../src/core/agent/workingView';
import { EventLog } from '../../../src/core/log/eventLog';
import { indexFromBlocks, indexFromSnapshot, readEvictionMeta, type EvictionBlock, type IndexTitle } from '../../../src/core/log/eventMeta';
import { evictions, lastEviction } from '../../../src/core/log/historyQueries';
import { MemoryHost } from '../../../src/core/memory/memoryHost';
import type { NewEvent } from '../../../src/core/types';
import { blockOfEvictionEvent } from '../../../src/vscode/documents/evictionBlocks';
import { sessionIndex } from '../../../src/vscode/documents/historyQueries';
import { buildEvictionTree, readEvictionBlock } from '../../../src/vscode/panel/evictionTree';

const ROOT = join(__dirname, '..', '..', '..', '..');

interface Case {
  name: string;
  cap: number;
  events: NewEvent[];
  blocks: Array<{ seq: number; block: EvictionBlock | null }>;
  index: Array<{ session: string | null; expect: Array<Record<string, unknown>> }>;
}
const vectors = JSON.parse(readFileSync(join(ROOT, 'test', 'vectors', 'eviction-vectors.json'), 'utf8')) as { cases: Case[] };

interface Leaf {
  fromSeq: number;
  toSeq: number;
  title: IndexTitle;
  evictionSeq: number | null;
}

test('shared eviction vectors', async (t) => {
  assert.ok(vectors.cases.length >= 2);
  for (const c of vectors.cases) {
    await t.test(c.name, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'scroll-eviction-vectors-'));
      const log = EventLog.open({ path: join(dir, 'scroll.db'), redact: false });
      try {
        const appended = log.appendMany(c.events);
        assert.equal(appended[0].seq, 1);
        const all = log.range(1, log.maxSeq());

        // The contract's reader, on every eviction event of the log.
        const rows = evictions(log);
        assert.deepEqual(rows.map((r) => r.seq), c.blocks.map((b) => b.seq), 'the eviction events');
        for (const [i, row] of rows.entries()) assert.deepEqual(readEvictionMeta(row.meta), c.blocks[i].block, `block of eviction ${row.seq}`);

        // Every adapter reads the same blocks, session by session.
        const sessions = [...new Set(all.filter((e) => e.kind === 'eviction').map((e) => e.session))];
        for (const session of sessions) {
          const seqs = new Set(all.filter((e) => e.kind === 'eviction' && e.session === session).map((e) => e.seq));
          const expected: Leaf[] = c.blocks
            .filter((b) => seqs.has(b.seq) && b.block)
            .map((b) => ({ fromSeq: b.block!.fromSeq, toSeq: b.block!.toSeq, title: b.block!.title, evictionSeq: b.seq }));
          const clamped = expected.map((b) => ({ ...b, title: clampTitle(b.title) }));
          const rebuilt = EvictionIndex.fromLevel0(expected, c.cap);

          // The editor: one event's block, and the session's index.
          for (const b of c.blocks.filter((x) => seqs.has(x.seq))) {
            const got = blockOfEvictionEvent(log.get(b.seq)!);
            assert.deepEqual(got, b.block ? { fromSeq: b.block.fromSeq, toSeq: b.block.toSeq, title: b.block.title, evictionSeq: b.seq } : undefined);
          }
          assert.deepEqual(sessionIndex(log, session, c.cap).snapshot(), rebuilt.snapshot(), `editor index of ${session}`);

          // The panel: the tree and the block reader.
          const outline = all.filter((e) => seqs.has(e.seq)).map((e) => ({ seq: e.seq, kind: e.kind, step: e.step, ts: e.ts, meta: e.meta }));
          const tree = buildEvictionTree(outline, c.cap);
          assert.equal(tree.segments, expected.length);
          assert.deepEqual(tree.roots.map((n) => [n.level, n.from, n.to, n.title]), rebuilt.blocks().map((b) => [b.level, b.fromSeq, b.toSeq, b.title]));
          for (const [i, row] of outline.entries()) {
            const b = c.blocks.find((x) => x.seq === row.seq)!.block;
            assert.deepEqual(readEvictionBlock(outline[i]), b ? { from: b.fromSeq, to: b.toSeq, title: b.title } : null);
          }

          // The model: the working view replayed from the session's events.
          const view = new WorkingView({ session, systemPrompt: 'system', budget: 100_000, indexCap: c.cap });
          for (const e of all) view.apply(e);
          assert.deepEqual(view.index.leaves().map((l) => ({ fromSeq: l.fromSeq, toSeq: l.toSeq, title: l.title, evictionSeq: l.evictionSeq })), clamped);
          assert.deepEqual(view.index.snapshot(), rebuilt.snapshot(), `view index of ${session}`);

          // What the writer recorded on its last eviction is the index every reader rebuilds.
          const last = lastEviction(log, session)!;
          if (indexFromSnapshot(last)) assert.deepEqual(last.meta.index, rebuilt.snapshot(), `snapshot of ${session}`);
        }

        // ms.index(): the host, and the contract's functions it calls.
        for (const q of c.index) {
          const session = q.session ?? undefined;
          const last = lastEviction(log, session);
          const pure = last ? (indexFromSnapshot(last) ?? indexFromBlocks(evictions(log, session))) : [];
          assert.deepEqual(pure, q.expect, `index of ${q.session}`);
          const host = new MemoryHost({ log, session: q.session });
          try {
            assert.deepEqual(await host.call('index', {}), { blocks: q.expect }, `ms.index() of ${q.session}`);
          } finally {
            host.dispose();
          }
        }
      } finally {
        log.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
