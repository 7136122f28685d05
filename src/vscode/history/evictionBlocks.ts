/**
 * The eviction index of a session, rebuilt from its `eviction` events (the index is derived state).
 * Pure: no `vscode`, so it is unit-tested in plain Node.
 */
import { DEFAULT_INDEX_CAP, EvictionIndex, type IndexBlock, type IndexTitle } from '../../core/agent/evictionIndex';
import type { LogEvent } from '../../core/types';
import { inline } from './eventMarkdown';

export interface Level0Block {
  fromSeq: number;
  toSeq: number;
  title: IndexTitle;
  evictionSeq: number;
}

/** The level-0 block an `eviction` event recorded, or undefined when the event carries none. */
export function blockOfEvictionEvent(e: LogEvent): Level0Block | undefined {
  if (e.kind !== 'eviction') return undefined;
  const m = (e.meta ?? {}) as Record<string, any>;
  const src = m.block && typeof m.block === 'object' ? m.block : m;
  const from = num(src.fromSeq ?? src.from_seq ?? src.from ?? (Array.isArray(src.span) ? src.span[0] : undefined));
  const to = num(src.toSeq ?? src.to_seq ?? src.to ?? (Array.isArray(src.span) ? src.span[1] : undefined));
  if (from === undefined || to === undefined || to < from) return undefined;
  const t = (src.title && typeof src.title === 'object' ? src.title : {}) as Record<string, unknown>;
  const title: IndexTitle = {
    task: str(t.task) ?? e.headline ?? '—',
    state: str(t.state) ?? '—',
    next: str(t.next) ?? '—',
  };
  return { fromSeq: from, toSeq: to, title, evictionSeq: e.seq };
}

export function indexFromEvents(events: LogEvent[], cap = DEFAULT_INDEX_CAP): EvictionIndex {
  const blocks: Level0Block[] = [];
  for (const e of events) {
    const b = blockOfEvictionEvent(e);
    if (b) blocks.push(b);
  }
  return EvictionIndex.fromLevel0(blocks, Math.max(3, cap));
}

/** The index as Markdown, each block linked to its seq range (and its segment when level 0). */
export function renderIndexMarkdown(session: string, index: EvictionIndex, link: (b: IndexBlock) => string): string {
  const blocks = index.blocks();
  if (!blocks.length) return `# Eviction index of ${inline(session)}\n\nNothing has been evicted from this session's working view yet.\n`;
  // Titles are logged text (model-written): escaped, so they cannot carry links, images or command URIs.
  const lines = blocks.map((b) => {
    const range = b.fromSeq === b.toSeq ? `seq ${b.fromSeq}` : `seq ${b.fromSeq}–${b.toSeq}`;
    const span = b.level > 0 ? ` (L${b.level}, ${b.segments} segments)` : '';
    return `- [${range}](${link(b)})${span}: task: ${inline(b.title.task)} | state: ${inline(b.title.state)} | next: ${inline(b.title.next)}`;
  });
  return `# Eviction index of ${inline(session)}\n\n${index.segments} evicted segment${index.segments === 1 ? '' : 's'}, ${blocks.length} line${blocks.length === 1 ? '' : 's'}. Each line opens the events it covers.\n\n${lines.join('\n')}\n`;
}

function num(v: unknown): number | undefined {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v : undefined;
}
