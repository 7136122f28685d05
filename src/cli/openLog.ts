import { EventLog, type EventLogOptions } from '../core/log/eventLog';
import type { CommandContext } from './command';

/** Readers open the log read-only: SQLite itself refuses writes, and nothing is created. */
export function openForReading(ctx: CommandContext): EventLog {
  return EventLog.open({ path: ctx.dbPath, readonly: true, onWarning: warnOn(ctx) });
}

/** Writers open (or create) the log at --db; the log's warnings go to stderr. */
export function openForWriting(ctx: CommandContext, opts: Omit<EventLogOptions, 'path' | 'readonly' | 'onWarning'> = {}): EventLog {
  return EventLog.open({ ...opts, path: ctx.dbPath, onWarning: warnOn(ctx) });
}

const warnOn = (ctx: CommandContext) => (m: string) => ctx.io.stderr(`scroll: ${m}\n`);
