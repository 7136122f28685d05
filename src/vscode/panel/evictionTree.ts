/**
 * A session's eviction index as a tree, rebuilt from its `eviction` events with the agent's own
 * `EvictionIndex` (same odometer, same merged titles as the index the model reads). Unlike the
 * flat index the model reads, the tree keeps merged blocks' children, so a person can open any
 * segment.
 */
import { DEFAULT_INDEX_CAP, EvictionIndex, type IndexBlock } from '../../core/agent/evictionIndex';
import type { IndexNode, IndexTitle } from '../../shared/panelProtocol';
import type { OutlineRow } from './panelDataSource';

export const DEFAULT_LEVEL_CAP = DEFAULT_INDEX_CAP;
function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

function toTitle(raw: unknown): IndexTitle {
  if (typeof raw === 'string') return { task: raw, state: '', next: '' };
  if (raw && typeof raw === 'object') {
    const t = raw as Record<string, unknown>;
    return { task: str(t.task), state: str(t.state), next: str(t.next) };
  }
  return { task: '', state: '', next: '' };
}

/**
 * Reads the level-0 block an `eviction` event records: `meta.from_seq`, `meta.to_seq`, `meta.title`
 * (what the agent loop writes; also accepted under `meta.block`, or as `from`/`to`). Returns
 * null for an event that does not describe a block (it is skipped, not fatal).
 */
export function readEvictionBlock(row: OutlineRow): { from: number; to: number; title: IndexTitle; levelCap?: number } | null {
  const meta = row.meta ?? {};
  const block = (meta.block && typeof meta.block === 'object' ? meta.block : meta) as Record<string, unknown>;
  const span = Array.isArray(block.span) ? block.span : Array.isArray(meta.span) ? meta.span : undefined;
  const from = num(block.from_seq) ?? num(block.from) ?? num(block.fromSeq) ?? num(span?.[0]);
  const to = num(block.to_seq) ?? num(block.to) ?? num(block.toSeq) ?? num(span?.[1]);
  if (from === undefined || to === undefined || to < from) return null;
  const levelCap = num(meta.cap) ?? num(meta.index_cap) ?? num(meta.levelCap);
  return { from, to, title: toTitle(block.title ?? meta.title), levelCap };
}

function toNode(b: IndexBlock): IndexNode {
  return { level: b.level, from: b.fromSeq, to: b.toSeq, title: { ...b.title }, evictionSeq: b.evictionSeq, children: b.children.map(toNode) };
}

/** Replays the session's eviction events (in seq order) into the index; roots oldest first. */
export function buildEvictionTree(evictions: OutlineRow[], levelCap = DEFAULT_LEVEL_CAP): { roots: IndexNode[]; segments: number } {
  const blocks: { fromSeq: number; toSeq: number; title: IndexTitle; evictionSeq: number }[] = [];
  let cap = levelCap;
  for (const row of evictions) {
    const b = readEvictionBlock(row);
    if (!b) continue;
    if (b.levelCap !== undefined) cap = b.levelCap;
    blocks.push({ fromSeq: b.from, toSeq: b.to, title: b.title, evictionSeq: row.seq });
  }
  const index = EvictionIndex.fromLevel0(blocks, Math.max(3, cap));
  return { roots: index.blocks().map(toNode), segments: index.segments };
}
