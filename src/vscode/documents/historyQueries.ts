/** Session-scoped reads the editor needs beyond `EventLog`'s own API. Pure (no `vscode`). */
import type { EventLog, ReadEvent } from '../../core/log/eventLog';
import { evictions, latestSession, sessionSeqs, sessionsWithEvictions, type EvictedSession } from '../../core/log/historyQueries';
import type { LogEvent } from '../../core/types';
import { blockOfEvictionEvent, indexFromEvictions } from './evictionBlocks';
import type { EvictionIndex } from '../../core/agent/evictionIndex';

export { latestSession, sessionSeqs, sessionsWithEvictions, type EvictedSession };

export function sessionEvents(log: EventLog, session: string, kinds?: string[]): ReadEvent[] {
  const seqs = sessionSeqs(log, session, kinds);
  return seqs.length ? log.expand(seqs, { keepPreview: true }) : [];
}

/** The session's eviction index, rebuilt from its eviction events' meta (no contents read). */
export function sessionIndex(log: EventLog, session: string, cap: number): EvictionIndex {
  return indexFromEvictions(evictions(log, session), cap);
}

/** The events an index segment covers: from its `eviction` event's span, this session's only. */
export function segmentEvents(log: EventLog, evictionSeq: number): { eviction: LogEvent; events: ReadEvent[] } | undefined {
  const eviction = log.get(evictionSeq);
  const block = eviction && blockOfEvictionEvent(eviction);
  if (!eviction || !block) return undefined;
  return { eviction, events: log.range(block.fromSeq, block.toSeq, { keepPreview: true }).filter((e) => e.session === eviction.session) };
}
