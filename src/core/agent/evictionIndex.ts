/**
 * The eviction index: a map from short titles back to seq ranges of the log that left the working
 * view. Each eviction sweep adds one level-0 block; blocks merge like an odometer so the rendered
 * index stays at most about k·log_k(n) lines for n evicted segments.
 *
 * Odometer rule (cap k, default 8): when a level holds k blocks, all but the newest collapse into one
 * block one level up that spans their union and is titled from the first and the last; the newest
 * stays where it was. So a level never holds more than k-1 blocks after a sweep, and a level-L block
 * covers (k-1)^L segments: at most (k-1)·(⌊log_{k-1} n⌋+1) lines in all.
 *
 * The index is derived state: `EvictionIndex.fromLevel0(blocks)` rebuilt from the `eviction` events
 * of a session is identical to the one that wrote them.
 */
import { fill, template } from '../../prompts';
import type { IndexSnapshotEntry, IndexTitle } from '../log/eventMeta';

/** The title and snapshot shapes are the log's (eviction meta): src/core/log/eventMeta.ts. */
export type { IndexSnapshotEntry, IndexTitle } from '../log/eventMeta';

export interface IndexBlock {
  level: number;
  /** Inclusive seq span in the log. */
  fromSeq: number;
  toSeq: number;
  title: IndexTitle;
  /** Seq of the `eviction` event that recorded this block (level 0 only). */
  evictionSeq: number | null;
  /** Level-0 segments under this block. */
  segments: number;
  /** Blocks merged into this one, oldest first (empty for level 0). */
  children: IndexBlock[];
  /** Titles of the first and last level-0 segment under this block (a merged title joins these). */
  firstTitle: IndexTitle;
  lastTitle: IndexTitle;
}

export const DEFAULT_INDEX_CAP = 8;
/** Longest title field kept in the index (characters). */
export const TITLE_FIELD_MAX = 120;

export class EvictionIndex {
  /** levels[L] = blocks of level L, oldest first. */
  private readonly levels: IndexBlock[][] = [];
  /** Every level-0 block ever added, oldest first (what the log's eviction events hold). */
  private readonly leafBlocks: IndexBlock[] = [];

  constructor(readonly cap: number = DEFAULT_INDEX_CAP) {
    if (!Number.isInteger(cap) || cap < 3) throw new RangeError(`eviction index cap must be an integer ≥ 3 (got ${cap})`);
  }

  static fromLevel0(
    blocks: Iterable<{ fromSeq: number; toSeq: number; title: IndexTitle; evictionSeq: number | null }>,
    cap = DEFAULT_INDEX_CAP,
  ): EvictionIndex {
    const index = new EvictionIndex(cap);
    for (const b of blocks) index.add(b);
    return index;
  }

  /** Adds one level-0 block (one eviction sweep) and carries the odometer. */
  add(block: { fromSeq: number; toSeq: number; title: IndexTitle; evictionSeq: number | null }): void {
    if (block.toSeq < block.fromSeq) throw new RangeError(`eviction block span ${block.fromSeq}–${block.toSeq} is reversed`);
    const title = clampTitle(block.title);
    const leaf: IndexBlock = {
      level: 0,
      fromSeq: block.fromSeq,
      toSeq: block.toSeq,
      title,
      evictionSeq: block.evictionSeq,
      segments: 1,
      children: [],
      firstTitle: title,
      lastTitle: title,
    };
    this.leafBlocks.push(leaf);
    this.level(0).push(leaf);
    for (let level = 0; this.level(level).length >= this.cap; level++) {
      const row = this.level(level);
      const merged = row.splice(0, row.length - 1);
      this.level(level + 1).push(mergeBlocks(merged, level + 1));
    }
  }

  /** Number of level-0 segments added. */
  get segments(): number {
    let n = 0;
    for (const row of this.levels) for (const b of row) n += b.segments;
    return n;
  }

  /** Level-0 blocks in the order they were added to this instance. */
  leaves(): IndexBlock[] {
    return [...this.leafBlocks];
  }

  /**
   * A copy of this index with one more level-0 block (what the index will be after a sweep).
   * Copies only the level rows (O(k·log n)); `leaves()` of the copy holds just the new block.
   */
  withBlock(block: { fromSeq: number; toSeq: number; title: IndexTitle; evictionSeq: number | null }): EvictionIndex {
    const copy = new EvictionIndex(this.cap);
    for (const row of this.levels) copy.levels.push([...row]);
    copy.add(block);
    return copy;
  }

  /** All current blocks, oldest span first (highest levels hold the oldest spans). */
  blocks(): IndexBlock[] {
    const out: IndexBlock[] = [];
    for (let level = this.levels.length - 1; level >= 0; level--) out.push(...this.levels[level]);
    return out;
  }

  get size(): number {
    let n = 0;
    for (const row of this.levels) n += row.length;
    return n;
  }

  /** One line per block, each with its seq range so the model can `ms.range(a, b)` into it. */
  render(): string[] {
    return this.blocks().map(renderBlockLine);
  }

  /** Plain snapshot (no children) for the `eviction` event's meta and for comparisons. */
  snapshot(): IndexSnapshotEntry[] {
    return this.blocks().map((b) => ({
      level: b.level,
      from_seq: b.fromSeq,
      to_seq: b.toSeq,
      segments: b.segments,
      title: { ...b.title },
    }));
  }

  private level(n: number): IndexBlock[] {
    while (this.levels.length <= n) this.levels.push([]);
    return this.levels[n];
  }
}

/** Upper bound on index lines for n segments with cap k (see the module comment). */
export function indexLineBound(segments: number, cap: number): number {
  if (segments <= 0) return 0;
  const base = cap - 1;
  let levels = 1;
  for (let span = base; span <= segments; span *= base) levels++;
  return base * levels;
}

const LINE = {
  level0: template('view', 'index-line'),
  merged: template('view', 'index-line-merged'),
  seqOne: template('view', 'seq-one'),
  seqSpan: template('view', 'seq-span'),
};

/** The block's line in the model's memory section (templates in src/prompts/view.md). */
export function renderBlockLine(b: IndexBlock): string {
  const range = fill(b.fromSeq === b.toSeq ? LINE.seqOne : LINE.seqSpan, { from: b.fromSeq, to: b.toSeq });
  return fill(b.level > 0 ? LINE.merged : LINE.level0, { range, level: b.level, segments: b.segments, ...b.title });
}

function mergeBlocks(blocks: IndexBlock[], level: number): IndexBlock {
  const first = blocks[0];
  const last = blocks[blocks.length - 1];
  return {
    level,
    fromSeq: Math.min(...blocks.map((b) => b.fromSeq)),
    toSeq: Math.max(...blocks.map((b) => b.toSeq)),
    // From the first and the last segment, not from merged titles: no "a … b … c … d" chains.
    title: mergeTitles(first.firstTitle, last.lastTitle),
    evictionSeq: null,
    segments: blocks.reduce((n, b) => n + b.segments, 0),
    children: blocks,
    firstTitle: first.firstTitle,
    lastTitle: last.lastTitle,
  };
}

/** "first … last" per field (one value when both ends agree), clamped to the field limit. */
export function mergeTitles(first: IndexTitle, last: IndexTitle): IndexTitle {
  const join = (a: string, b: string) => (a === b ? a : `${a} … ${b}`);
  return clampTitle({ task: join(first.task, last.task), state: join(first.state, last.state), next: last.next });
}

export function clampTitle(t: IndexTitle): IndexTitle {
  return { task: clampField(t.task), state: clampField(t.state), next: clampField(t.next) };
}

function clampField(s: string): string {
  const one = String(s ?? '').replace(/\s+/g, ' ').trim() || '—';
  if (one.length <= TITLE_FIELD_MAX) return one;
  // Keep both ends: merged titles carry the first and the last segment's words.
  const half = Math.floor((TITLE_FIELD_MAX - 1) / 2);
  return `${one.slice(0, half)}…${one.slice(one.length - half)}`;
}
