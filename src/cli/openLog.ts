import { EventLog } from '../core/log/eventLog';
import type { CommandContext } from './command';

/** Readers open the log read-only: SQLite itself refuses writes, and nothing is created. */
export function openForReading(ctx: CommandContext): EventLog {
  return EventLog.open({ path: ctx.dbPath, readonly: true, onWarning: (m) => ctx.io.stderr(`scroll: ${m}\n`) });
}
