/**
 * Checks of option values shared by the commands: a mistyped `--kind tool_reslt` is an error that
 * names the valid kinds, not an empty result that reads like "nothing happened".
 */
import { EVENT_KINDS } from '../core/types';
import type { EventLog } from '../core/log/eventLog';
import { UsageError, type CommandContext } from './command';
import { nearestName } from './nearestName';
import { openForReading } from './openLog';

/** The roles the core itself writes (EventRole in src/core/types.ts). */
const CORE_ROLES: readonly string[] = ['user', 'assistant', 'tool', 'system', 'kernel'];

export interface KindRoleFilter {
  kind?: string | string[];
  role?: string | string[];
}

/**
 * Throws a UsageError (exit 2) when a --kind or --role value is neither one the core writes nor present
 * in the log, listing the valid ones and the nearest. The log is opened only for a value the core does
 * not know (a kind or role an importer or another tool wrote), so the usual case costs nothing.
 */
export function checkKindsAndRoles(ctx: CommandContext, filter: KindRoleFilter): void {
  const kinds = asList(filter.kind).filter((k) => !(EVENT_KINDS as readonly string[]).includes(k));
  const roles = asList(filter.role).filter((r) => !CORE_ROLES.includes(r));
  if (kinds.length === 0 && roles.length === 0) return;
  const log = openForReading(ctx);
  try {
    const db = log.database;
    const kindIn = db.prepare('SELECT 1 FROM events WHERE kind = ? LIMIT 1');
    const badKind = kinds.find((k) => kindIn.get(k) === undefined);
    if (badKind !== undefined) throw new UsageError(unknownValueMessage('kind', badKind, EVENT_KINDS, kindsInLog(log)));
    const roleIn = db.prepare('SELECT 1 FROM events WHERE role = ? LIMIT 1');
    const badRole = roles.find((r) => roleIn.get(r) === undefined);
    if (badRole !== undefined) throw new UsageError(unknownValueMessage('role', badRole, CORE_ROLES, rolesInLog(log)));
  } finally {
    log.close();
  }
}

function unknownValueMessage(option: string, value: string, core: readonly string[], inLog: string[]): string {
  const extra = inLog.filter((v) => !core.includes(v));
  const valid = [...core, ...extra];
  const nearest = nearestName(value, valid);
  return `unknown --${option} ${value}${nearest ? ` (did you mean ${nearest}?)` : ''}: ${option}s are ${core.join(', ')}${extra.length ? `; also in this log: ${extra.join(', ')}` : ''}`;
}

/** Distinct kinds, one index probe each (MIN over the (kind, seq) index), not a scan of the events. */
function kindsInLog(log: EventLog): string[] {
  const next = log.database.prepare('SELECT MIN(kind) AS kind FROM events WHERE kind > ?');
  const out: string[] = [];
  for (let row = next.get(''); row && row.kind !== null && row.kind !== undefined; row = next.get(row.kind)) out.push(String(row.kind));
  return out;
}

/** Distinct roles (no index on role: a scan, only on the error path). */
function rolesInLog(log: EventLog): string[] {
  return log.database.prepare('SELECT DISTINCT role FROM events ORDER BY role').all().map((r) => String(r.role));
}

function asList(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}
