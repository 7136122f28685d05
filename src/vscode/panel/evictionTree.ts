/**
 * A session's eviction index as a tree, rebuilt from its `eviction` events with the agent's own
 * `EvictionIndex` (same odometer, same merged titles as the index the model reads). Unlike the
 * flat index the model reads, the tree keeps merged blocks' children, so a person can open any
 * segment.
 */
import { DEFAULT_INDEX_CAP, EvictionIndex, type IndexBlock } from '../../core/agent/evictionIndex';
import { readEvictionMeta } from '../../core/log/eventMeta';
import type { IndexNode, IndexTitle } from '../../shared/panelProtocol';
import type { OutlineRow } from './panelDataSource';

export const DEFAULT_LEVEL_CAP = DEFAULT_INDEX_CAP;

/**
 * The level-0 block an `eviction` event records (the one reader: `readEvictionMeta` in
 * src/core/log/eventMeta.ts). Null for an event that does not describe a block (it is skipped, not fatal).
 */
export function readEvictionBlock(row: OutlineRow): { from: number; to: number; title: IndexTitle } | null {
  const b = readEvictionMeta(row.meta);
  return b ? { from: b.fromSeq, to: b.toSeq, title: b.title } : null;
}

function toNode(b: IndexBlock): IndexNode {
  return { level: b.level, from: b.fromSeq, to: b.toSeq, title: { ...b.title }, evictionSeq: b.evictionSeq, children: b.children.map(toNode) };
}

/** Replays the session's eviction events (in seq order) into the index; roots oldest first. */
export function buildEvictionTree(evictions: OutlineRow[], levelCap = DEFAULT_LEVEL_CAP): { roots: IndexNode[]; segments: number } {
  const blocks: { fromSeq: number; toSeq: number; title: IndexTitle; evictionSeq: number }[] = [];
  for (const row of evictions) {
    const b = readEvictionMeta(row.meta);
    if (b) blocks.push({ fromSeq: b.fromSeq, toSeq: b.toSeq, title: b.title, evictionSeq: row.seq });
  }
  const index = EvictionIndex.fromLevel0(blocks, Math.max(3, levelCap));
  return { roots: index.blocks().map(toNode), segments: index.segments };
}
