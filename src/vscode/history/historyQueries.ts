/** Session-scoped reads the editor needs beyond `EventLog`'s own API. Pure (no `vscode`). */
import type { EventLog } from '../../core/log/eventLog';
import type { LogEvent } from '../../core/types';
import { blockOfEvictionEvent, indexFromEvents } from './evictionBlocks';
import type { EvictionIndex } from '../../core/agent/evictionIndex';

/** Seqs of a session's events, optionally of some kinds, in order. */
export function sessionSeqs(log: EventLog, session: string, kinds?: string[]): number[] {
  const where = kinds?.length ? ` AND kind IN (${kinds.map(() => '?').join(',')})` : '';
  return log.database
    .prepare(`SELECT seq FROM events WHERE session = ?${where} ORDER BY seq`)
    .all(session, ...(kinds ?? []))
    .map((r) => Number(r.seq));
}

export function sessionEvents(log: EventLog, session: string, kinds?: string[]): LogEvent[] {
  const seqs = sessionSeqs(log, session, kinds);
  return seqs.length ? log.expand(seqs) : [];
}

export function sessionIndex(log: EventLog, session: string, cap: number): EvictionIndex {
  return indexFromEvents(sessionEvents(log, session, ['eviction']), cap);
}

/** The events an index segment covers: from its `eviction` event's span, this session's only. */
export function segmentEvents(log: EventLog, evictionSeq: number): { eviction: LogEvent; events: LogEvent[] } | undefined {
  const eviction = log.get(evictionSeq);
  const block = eviction && blockOfEvictionEvent(eviction);
  if (!eviction || !block) return undefined;
  return { eviction, events: log.range(block.fromSeq, block.toSeq).filter((e) => e.session === eviction.session) };
}

/** The newest session in the log, when there is one. */
export function latestSession(log: EventLog): string | undefined {
  const row = log.database.prepare('SELECT session FROM events ORDER BY seq DESC LIMIT 1').get();
  return row ? String(row.session) : undefined;
}
