/**
 * Integrity checks of an event log. Two depths:
 *  - `tableProblems`: `quick_check` of every ordinary table (every b-tree page: the events, their
 *    indexes, the FTS5 storage tables). Cheap: it reads only the b-tree pages; `EventLog.open` runs it.
 *  - `verifyLog`: everything — the unrestricted `quick_check` (adds whole-file page accounting and
 *    FTS5's own index check, which reads every posting list and is far slower) and every payload file read back against its hash.
 *    `scroll check` runs it on demand.
 */
import type { Database } from '../db';
import type { PayloadStore } from './payloadStore';
import { errorMessage } from '../errors';
import { isCorruptionError } from '../db/sqliteErrors';
import { verifyChain, type ChainVerification } from './chain';
import { payloadHygiene, type PayloadHygiene } from './payloadGc';

/** Problems `quick_check` finds in the ordinary tables (virtual tables have no pages of their own). */
export function tableProblems(db: Database): string[] {
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name")
    .all() as { name: string }[];
  const problems: string[] = [];
  for (const { name } of tables) {
    try {
      const check = db.prepare(`PRAGMA quick_check("${name.replace(/"/g, '""')}")`).all() as { quick_check: string }[];
      for (const r of check) if (r.quick_check !== 'ok') problems.push(r.quick_check);
    } catch (e) {
      // A page damaged badly enough stops the check itself: that is a finding too.
      if (!isCorruptionError(e)) throw e;
      problems.push(`${name}: ${errorMessage(e)}`);
    }
  }
  return problems;
}

export interface LogVerification {
  ok: boolean;
  /** Damage in the log's own pages (events, their indexes, page accounting). */
  database: string[];
  /** Damage only the full-text index has: `scroll reindex` repairs it. */
  index: string[];
  payloads: { checked: number; missing: number[]; damaged: number[] };
  /** What to do about it, one sentence; empty when ok. */
  advice: string;
  /** The hash chain, seq continuity, the append-only triggers, the head files (chain.ts). */
  chain: ChainVerification;
  /**
   * Orphan payload files (no event references them) and stray temp files: a warning, not damage
   * (`ok` stays true; `scroll gc` removes them). Absent when there are none. See payloadGc.ts.
   */
  hygiene?: PayloadHygiene;
}

/** The full check. Reads only; `db` may be a read-only connection. */
export function verifyLog(db: Database, payloads: PayloadStore, opts: VerifyOptions = {}): LogVerification {
  // What opening for writing judges (any finding there moves the file aside): the log is damaged.
  const pages = tableProblems(db);
  // Only on pages it passes does the unrestricted check add anything: page accounting, and FTS5's
  // own index check, whose findings name FTS5 or its table and which reindex repairs.
  let extra: string[] = [];
  if (pages.length === 0) {
    try {
      extra = (db.prepare('PRAGMA quick_check').all() as { quick_check: string }[]).map((r) => r.quick_check).filter((m) => m !== 'ok');
    } catch (e) {
      // Every table's pages passed, so what stops the check is FTS5's pass reading its index.
      if (!isCorruptionError(e)) throw e;
      extra = [`fts5 index check stopped: ${errorMessage(e)}`];
    }
  }
  const isIndex = (m: string) => /fts5|events_fts/i.test(m);
  const database = [...pages, ...extra.filter((m) => !isIndex(m))];
  const index = extra.filter(isIndex);

  const missing: number[] = [];
  const damaged: number[] = [];
  const seen = new Map<string, 'ok' | 'missing' | 'damaged'>();
  for (const row of db.prepare('SELECT seq, payload FROM events WHERE payload IS NOT NULL ORDER BY seq').all() as { seq: number; payload: string }[]) {
    let state = seen.get(row.payload);
    if (state === undefined) {
      try {
        if (!payloads.has(row.payload)) state = 'missing';
        else {
          payloads.readBuffer(row.payload); // recomputes the sha256
          state = 'ok';
        }
      } catch {
        state = 'damaged'; // unreadable, altered, or not a handle at all
      }
      seen.set(row.payload, state);
    }
    if (state === 'missing') missing.push(Number(row.seq));
    else if (state === 'damaged') damaged.push(Number(row.seq));
  }

  const advice: string[] = [];
  if (database.length) advice.push('the log file itself is damaged: the next time it is opened for writing it is moved aside (kept, not deleted) and a fresh log starts');
  else if (index.length) advice.push('only the search index is damaged: `scroll reindex` rebuilds it from the events');
  if (missing.length || damaged.length) advice.push('events whose payload file is missing or damaged show their preview; the rest of the log is unaffected');
  const ok = !database.length && !index.length && !missing.length && !damaged.length;
  return withChain(db, opts, { ok, database, index, payloads: { checked: seen.size, missing, damaged }, advice: advice.join('; '), ...orphanReport(db, payloads) }, payloads);
}

/**
 * Orphan payload files and stray temp files (payloadGc.ts); never fails the check. Only when there
 * is something to say (an orphan, a temp file, a moved-aside log, a scan that could not run).
 */
function orphanReport(db: Database, payloads: PayloadStore): { hygiene?: PayloadHygiene } {
  const h = payloadHygiene(db, payloads.dir);
  const clean = !h.error && !h.orphans.files && !h.temps.files && !h.keptForMovedAsideLogs.files && !h.movedAside.length;
  return clean ? {} : { hygiene: h };
}

export interface VerifyOptions {
  /** Head files to compare with the file (`<db>.head.json` first, then mirrors): EventLog.headFiles. */
  headFiles?: string[];
}

/** Adds the chain's verdict (tamper evidence, chain.ts) to the rest of the check. */
function withChain<T extends Omit<LogVerification, 'chain'>>(db: Database, opts: VerifyOptions, r: T, payloads?: PayloadStore): T & { chain: ChainVerification } {
  let chain: ChainVerification;
  try {
    chain = verifyChain(db, { headFiles: opts.headFiles });
    if (payloads) {
      const left = purgeLeftovers(db, payloads);
      if (left.length) chain = { ...chain, ok: false, problems: [...chain.problems, ...left] };
    }
  } catch (e) {
    if (!isCorruptionError(e)) throw e;
    // Damaged pages (reported above) stop the chain's walk too.
    const text = `the chain could not be read to the end: ${errorMessage(e)}`;
    chain = {
      ok: false, chained: true, events: 0, chainStart: null, head: null, firstBad: null, badSeqs: [],
      holes: { declared: [], undeclared: [] }, triggers: { missing: [], altered: [], unexpected: [] }, heads: [], recorded: [], problems: [text],
    };
  }
  if (chain.ok) return { ...r, chain };
  const first = chain.firstBad !== null ? ` (first bad seq: ${chain.firstBad})` : '';
  const advice = `tamper evidence${first}: ${chain.problems[0]}${chain.problems.length > 1 ? ` (and ${chain.problems.length - 1} more)` : ''}; events that do not verify cannot be vouched for`;
  return { ...r, ok: false, advice: r.advice ? `${r.advice}; ${advice}` : advice, chain };
}

/**
 * Payload files a purge replaced that are still on disk (the purge was stopped between its commit
 * and removing them): they still hold the purged text. Referenced again since? Then not a leftover.
 */
function purgeLeftovers(db: Database, payloads: PayloadStore): string[] {
  const out: string[] = [];
  const used = db.prepare('SELECT 1 FROM events WHERE payload = ? LIMIT 1');
  for (const r of db.prepare("SELECT seq, meta FROM events WHERE kind = 'purge' ORDER BY seq").all() as { seq: number; meta: string }[]) {
    let handles: unknown;
    try {
      handles = (JSON.parse(r.meta) as { removedPayloads?: unknown }).removedPayloads;
    } catch {
      continue;
    }
    if (!Array.isArray(handles)) continue;
    for (const h of handles) {
      if (typeof h !== 'string' || !/^[0-9a-f]{64}$/.test(h) || !payloads.has(h) || used.get(h)) continue;
      out.push(`the purge at seq ${r.seq} replaced payload ${payloads.pathFor(h)}, which is still there and still holds the purged text: remove it (scroll gc --grace 0 does)`);
    }
  }
  return out;
}
