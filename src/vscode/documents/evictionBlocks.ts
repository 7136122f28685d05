/**
 * The eviction index of a session, rebuilt from its `eviction` events (the index is derived state).
 * Pure: no `vscode`, so it is unit-tested in plain Node.
 */
import { DEFAULT_INDEX_CAP, EvictionIndex, type IndexBlock, type IndexTitle } from '../../core/agent/evictionIndex';
import { readEvictionMeta, type EvictionRow } from '../../core/log/eventMeta';
import type { LogEvent } from '../../core/types';
import { inline } from './eventMarkdown';

export interface Level0Block {
  fromSeq: number;
  toSeq: number;
  title: IndexTitle;
  evictionSeq: number;
}

/** The level-0 block an `eviction` event recorded (the one reader: `readEvictionMeta`), or undefined when it carries none. */
export function blockOfEvictionEvent(e: LogEvent): Level0Block | undefined {
  if (e.kind !== 'eviction') return undefined;
  const b = readEvictionMeta(e.meta);
  return b ? { fromSeq: b.fromSeq, toSeq: b.toSeq, title: b.title, evictionSeq: e.seq } : undefined;
}

export function indexFromEvents(events: LogEvent[], cap = DEFAULT_INDEX_CAP): EvictionIndex {
  return indexFromEvictions(events.filter((e) => e.kind === 'eviction'), cap);
}

/** The index from a session's eviction events (`evictions(log, session)` rows or events), oldest first. */
export function indexFromEvictions(rows: Iterable<EvictionRow>, cap = DEFAULT_INDEX_CAP): EvictionIndex {
  const blocks: Level0Block[] = [];
  for (const row of rows) {
    const b = readEvictionMeta(row.meta);
    if (b) blocks.push({ fromSeq: b.fromSeq, toSeq: b.toSeq, title: b.title, evictionSeq: row.seq });
  }
  return EvictionIndex.fromLevel0(blocks, Math.max(3, cap));
}

/** What the index's levels mean, said once where the index is shown. */
export const INDEX_LEVELS_NOTE =
  'Each line is one evicted segment (level 0); when the index outgrows its cap, neighbouring lines merge into one summary line a level up (L1, L2, …).';

/** The index as Markdown, each block linked to its seq range (and its segment when level 0). */
export function renderIndexMarkdown(session: string, index: EvictionIndex, link: (b: IndexBlock) => string): string {
  const blocks = index.blocks();
  if (!blocks.length) return `# Eviction index of ${inline(session)}\n\nNothing has been evicted from this session's working view yet.\n`;
  // Titles are logged text (model-written): escaped, so they cannot carry links, images or command URIs.
  const lines = blocks.map((b) => {
    const range = b.fromSeq === b.toSeq ? `seq ${b.fromSeq}` : `seq ${b.fromSeq}–${b.toSeq}`;
    const span = b.level > 0 ? ` (L${b.level}: a summary of ${b.segments} segments)` : '';
    return `- [${range}](${link(b)})${span}: task: ${inline(b.title.task)} | state: ${inline(b.title.state)} | next: ${inline(b.title.next)}`;
  });
  const merged = blocks.some((b) => b.level > 0) ? ` ${INDEX_LEVELS_NOTE}` : '';
  return `# Eviction index of ${inline(session)}\n\n${index.segments} evicted segment${index.segments === 1 ? '' : 's'}, ${blocks.length} line${blocks.length === 1 ? '' : 's'}. Each line opens the events it covers.${merged}\n\n${lines.join('\n')}\n`;
}

/**
 * For a session with nothing evicted: the sessions that have an index, most recent first, each
 * linked (`link`) to its index. Empty string when no session has evicted anything.
 */
export function renderEvictedSessions(sessions: Array<{ session: string; evictions: number }>, link: (session: string) => string, max = 10): string {
  if (!sessions.length) return 'No session in this workspace has evicted anything yet: the working view evicts once a long task fills its token budget.\n';
  const shown = sessions.slice(0, max).map((s) => `- [${inline(s.session)}](${link(s.session)}): ${s.evictions} eviction${s.evictions === 1 ? '' : 's'}`);
  const more = sessions.length > max ? `\n\n…and ${sessions.length - max} more (the history panel lists every session).` : '';
  return `Sessions with an eviction index:\n\n${shown.join('\n')}${more}\n`;
}
