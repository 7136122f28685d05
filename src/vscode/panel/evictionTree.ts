/**
 * Rebuilds a session's eviction index as a tree from its `eviction` events. Each event records one
 * level-0 block (a seq span and a {task, state, next} title); merges are implicit, so we replay the
 * odometer: when a level holds `levelCap` blocks, all but the newest collapse into one block a level
 * up that spans their union, titled from the first and the last. Unlike the flat index the model
 * reads, the tree keeps the merged blocks as children, so a person can open any segment.
 */
import type { IndexNode, IndexTitle } from '../../shared/panelProtocol';
import type { OutlineRow } from './panelDataSource';

export const DEFAULT_LEVEL_CAP = 8;

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
 * Reads the level-0 block an `eviction` event records. Accepts the block at the top of `meta` or
 * under `meta.block`, the span as `from`/`to`, `seqFrom`/`seqTo` or `span: [from, to]`. Returns
 * null for an event that does not describe a block (it is skipped, not fatal).
 */
export function readEvictionBlock(row: OutlineRow): { from: number; to: number; title: IndexTitle; levelCap?: number } | null {
  const meta = row.meta ?? {};
  const block = (meta.block && typeof meta.block === 'object' ? meta.block : meta) as Record<string, unknown>;
  const span = Array.isArray(block.span) ? block.span : Array.isArray(meta.span) ? meta.span : undefined;
  const from = num(block.from) ?? num(block.seqFrom) ?? num(span?.[0]);
  const to = num(block.to) ?? num(block.seqTo) ?? num(span?.[1]);
  if (from === undefined || to === undefined || to < from) return null;
  const levelCap = num(meta.levelCap) ?? num(block.levelCap);
  return { from, to, title: toTitle(block.title ?? meta.title), levelCap };
}

function mergedTitle(first: IndexTitle, last: IndexTitle): IndexTitle {
  const join = (a: string, b: string) => (a === b || !b ? a : !a ? b : `${a} – ${b}`);
  return { task: join(first.task, last.task), state: last.state, next: last.next };
}

/** Replays the odometer over the session's eviction events (in seq order). */
export function buildEvictionTree(evictions: OutlineRow[], levelCap = DEFAULT_LEVEL_CAP): { roots: IndexNode[]; segments: number } {
  const levels: IndexNode[][] = [];
  let segments = 0;
  for (const row of evictions) {
    const block = readEvictionBlock(row);
    if (!block) continue;
    const cap = Math.max(2, block.levelCap ?? levelCap);
    segments++;
    (levels[0] ??= []).push({ level: 0, from: block.from, to: block.to, title: block.title, evictionSeq: row.seq, children: [] });
    for (let l = 0; l < levels.length; l++) {
      const level = levels[l];
      if (level.length < cap) break;
      const merged = level.slice(0, -1);
      const newest = level[level.length - 1];
      const first = merged[0];
      const last = merged[merged.length - 1];
      const parent: IndexNode = {
        level: l + 1,
        from: Math.min(...merged.map((b) => b.from)),
        to: Math.max(...merged.map((b) => b.to)),
        title: mergedTitle(first.title, last.title),
        evictionSeq: null,
        children: merged,
      };
      levels[l] = [newest];
      (levels[l + 1] ??= []).push(parent);
    }
  }
  // Oldest first: higher levels hold older spans.
  const roots: IndexNode[] = [];
  for (let l = levels.length - 1; l >= 0; l--) roots.push(...(levels[l] ?? []));
  roots.sort((a, b) => a.from - b.from);
  return { roots, segments };
}
