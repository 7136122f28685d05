/**
 * Purging a secret that got into the log anyway: the one sanctioned rewrite of an append-only log.
 * User-initiated only (`scroll purge`, the editor's purge command); no agent tool offers it and the
 * kernel never holds the database.
 *
 * In one transaction: the text is replaced in every stored field of the named events and in their
 * payload files (the new content is written as a new payload, the event points at it, the old file
 * is removed after the commit unless another event still references it), the search index is
 * rebuilt (its old segments, which hold the words, are dropped), the append-only triggers are
 * lifted and restored, the chain is recomputed from the first purged seq, and a `purge` event
 * records which seqs, how many replacements, a sha256 of each purged text or pattern (never the
 * text) and the chain's old and new heads, so `scroll check` accepts the rewrite. A marker in
 * scroll_meta is set first and cleared last: if the work were ever committed half-done, `check`
 * says so (and the missing triggers, and the events that no longer verify).
 *
 * `secure_delete` is on meanwhile, so SQLite zeroes the space the old text occupied, and the WAL
 * is checkpointed and truncated afterwards. Copies outside the live file (a damaged log moved
 * aside earlier, backups) are named in the result, not touched.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Database } from '../db';
import { InvalidInputError, ScrollError, errorMessage } from '../errors';
import { estimateTokens } from '../types';
import {
  CHAINED_COLUMNS, appendRecord, chainHash, chainTip, classifyHead, hashBefore, headIsDamage, readHeadFile, readMeta,
  rowColumns, shortHash, triggerState, triggersOk, describeTriggers, writeMeta, type ChainHead, type Row,
} from './chain';
import { cutPreview } from './eventPreparer';
import type { PayloadStore } from './payloadStore';
import { rebuildSearchIndex } from './rebuildIndex';
import { APPEND_ONLY_TRIGGERS } from './schema';

export const DEFAULT_REPLACEMENT = '[PURGED]';

export interface PurgeOptions {
  /** The events to purge (each must exist). */
  seqs: number[];
  /** Exact texts to replace. */
  texts?: string[];
  /** Regular expressions (source strings, or RegExp) to replace; every match is replaced. */
  patterns?: (string | RegExp)[];
  /** What replaces each match; default `[PURGED]`. */
  replacement?: string;
  /** Head files (beside the log first): a purge refuses to run when they say the log was tampered with. */
  headFiles?: string[];
}

export interface PurgedEvent {
  seq: number;
  replacements: number;
  /** Columns that changed (`payload` when the payload file was rewritten). */
  fields: string[];
  payload?: { from: string; to: string };
}

export interface PurgeResult {
  /** Seq of the `purge` event. */
  seq: number;
  replacements: number;
  events: PurgedEvent[];
  /** Named events in which nothing matched. */
  unchanged: number[];
  rechainedFrom: number | null;
  oldHead: ChainHead | null;
  /** The head after the purge event. */
  head: ChainHead;
  payloadsRemoved: string[];
  /** Old payload files kept because an event not named still points at them (it holds the same text). */
  payloadsKept: { handle: string; seq: number }[];
  /** Whether the WAL was checkpointed and emptied (readers can hold it). */
  walCleared: boolean;
  warnings: string[];
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Matcher {
  re: RegExp;
  /** sha256 of the text or the pattern's source; recorded instead of it. */
  hash: string;
  kind: 'text' | 'pattern';
}

function matchers(opts: PurgeOptions, replacement: string): Matcher[] {
  const out: Matcher[] = [];
  for (const t of opts.texts ?? []) {
    if (typeof t !== 'string' || t.length === 0) throw new InvalidInputError('purge: a text to purge must be a non-empty string');
    out.push({ re: new RegExp(escapeRegExp(t), 'g'), hash: sha256(t), kind: 'text' });
  }
  for (const p of opts.patterns ?? []) {
    let re: RegExp;
    try {
      re = typeof p === 'string' ? new RegExp(p, 'g') : new RegExp(p.source, p.flags.includes('g') ? p.flags : p.flags + 'g');
    } catch (e) {
      throw new InvalidInputError(`purge: not a regular expression: ${errorMessage(e)}`);
    }
    if (new RegExp(re.source, re.flags.replace('g', '')).test('')) throw new InvalidInputError('purge: a pattern must not match the empty text');
    out.push({ re, hash: sha256(re.source), kind: 'pattern' });
  }
  if (out.length === 0) throw new InvalidInputError('purge: name the text to purge (--text) or a pattern (--pattern)');
  for (const m of out) {
    m.re.lastIndex = 0;
    if (m.re.test(replacement)) throw new InvalidInputError('purge: the replacement contains the text it replaces');
    m.re.lastIndex = 0;
  }
  return out;
}

/** Replaces every match of every matcher in `s`; the count of replacements. */
function replaceIn(s: string, ms: Matcher[], replacement: string): [string, number] {
  let n = 0;
  for (const m of ms) {
    m.re.lastIndex = 0;
    s = s.replace(m.re, () => {
      n++;
      return replacement;
    });
  }
  return [s, n];
}

/** Replaces in every string of a JSON value, keys included. */
function replaceInJson(v: unknown, ms: Matcher[], replacement: string, count: { n: number }): unknown {
  if (typeof v === 'string') {
    const [r, n] = replaceIn(v, ms, replacement);
    count.n += n;
    return r;
  }
  if (Array.isArray(v)) return v.map((x) => replaceInJson(x, ms, replacement, count));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const [key, n] = replaceIn(k, ms, replacement);
      count.n += n;
      out[key] = replaceInJson(x, ms, replacement, count);
    }
    return out;
  }
  return v;
}

/** Columns never searched for the text: the payload handle (a hash) and the chain hash. */
const NOT_TEXT = new Set(['payload', 'hash', 'seq']);

/** Purges on `db` (opened for writing). See the module comment. */
export function purgeLog(db: Database, payloads: PayloadStore, opts: PurgeOptions): PurgeResult {
  const replacement = opts.replacement ?? DEFAULT_REPLACEMENT;
  if (typeof replacement !== 'string') throw new InvalidInputError('purge: the replacement must be a string');
  if (!Array.isArray(opts.seqs) || opts.seqs.length === 0) throw new InvalidInputError('purge: name the events to purge (--seq 12,15)');
  for (const s of opts.seqs) if (!Number.isSafeInteger(s) || s < 1) throw new InvalidInputError(`purge: not a seq: ${String(s)}`);
  const seqs = [...new Set(opts.seqs)].sort((a, b) => a - b);
  const ms = matchers(opts, replacement);
  const warnings: string[] = [];

  const secureWas = Number((db.prepare('PRAGMA secure_delete').get() as { secure_delete: number }).secure_delete);
  db.exec('PRAGMA secure_delete = ON');
  let result: Omit<PurgeResult, 'payloadsRemoved' | 'payloadsKept' | 'walCleared'>;
  const oldPayloads: { handle: string; seq: number }[] = [];
  try {
    result = db.transaction(() => {
      const tip = chainTip(db);
      const oldHead = tip.last;
      // Refuse to launder tampering: the triggers, the head files and the part of the chain that
      // will be recomputed must verify first.
      const triggers = triggerState(db);
      if (!triggersOk(triggers)) throw new ScrollError(`purge refused: ${describeTriggers(triggers).join('; ')} — open the log for writing once (it restores them and records it), then purge`, 'PURGE_REFUSED');
      const logId = readMeta(db, 'log_id');
      for (const file of opts.headFiles ?? []) {
        const f = classifyHead(db, readHeadFile(file), logId, oldHead);
        if (headIsDamage(f, false)) {
          throw new ScrollError(`purge refused: ${f.message} — a purge would rewrite the chain over it; run scroll check`, 'PURGE_REFUSED');
        }
      }
      const rows = new Map<number, Row>();
      const one = db.prepare('SELECT * FROM events WHERE seq = ?');
      for (const s of seqs) {
        const r = one.get(s) as Row | undefined;
        if (!r) throw new InvalidInputError(`purge: no event with seq ${s}`);
        rows.set(s, r);
      }
      const first = seqs[0];
      const chainStart = Number(readMeta(db, 'chain_start') ?? 1);
      verifyTail(db, first, chainStart);

      // The new rows.
      const events: PurgedEvent[] = [];
      const changedRows = new Map<number, Row>();
      let total = 0;
      for (const [seq, r] of rows) {
        const next: Row = { ...r };
        const fields: string[] = [];
        let n = 0;
        for (const col of rowColumns(r)) {
          const v = r[col];
          if (NOT_TEXT.has(col) || typeof v !== 'string') continue;
          if (col === 'content' && typeof r.payload === 'string') continue; // below, from the full text
          let replaced: string;
          let k: number;
          if (col === 'meta') {
            try {
              const count = { n: 0 };
              const value = replaceInJson(JSON.parse(v), ms, replacement, count);
              [replaced, k] = count.n ? [JSON.stringify(value), count.n] : [v, 0];
            } catch {
              [replaced, k] = replaceIn(v, ms, replacement);
            }
          } else {
            [replaced, k] = replaceIn(v, ms, replacement);
          }
          if (k) {
            next[col] = replaced;
            fields.push(col);
            n += k;
            if (col === 'content') {
              next.bytes = Buffer.byteLength(replaced, 'utf8');
              next.tokens = estimateTokens(replaced);
            }
          }
        }
        let payload: PurgedEvent['payload'];
        if (typeof r.payload === 'string') {
          let full: string | undefined;
          try {
            full = payloads.read(r.payload);
          } catch (e) {
            warnings.push(`event ${seq}: its payload could not be read (${errorMessage(e)}); only the preview in the row was purged`);
          }
          if (full !== undefined) {
            const [text, k] = replaceIn(full, ms, replacement);
            if (k) {
              const put = payloads.put(text); // fsynced before the commit that points at it
              next.payload = put.handle;
              next.content = cutPreview(text);
              next.bytes = put.bytes;
              next.tokens = estimateTokens(text);
              fields.push('content', 'payload');
              n += k;
              payload = { from: r.payload, to: put.handle };
              oldPayloads.push({ handle: r.payload, seq });
            }
          } else {
            const [preview, k] = replaceIn(String(r.content), ms, replacement);
            if (k) {
              next.content = preview;
              fields.push('content');
              n += k;
            }
          }
        }
        if (n === 0) continue;
        total += n;
        changedRows.set(seq, next);
        events.push({ seq, replacements: n, fields, ...(payload ? { payload } : {}) });
      }
      if (total === 0) throw new InvalidInputError(`purge: the text was not found in event${seqs.length > 1 ? 's' : ''} ${seqs.join(', ')}; nothing was changed`);
      const rechainFrom = Math.min(...changedRows.keys());

      // The rewrite: marker first, triggers lifted, rows, chain, triggers back, index, marker off.
      const started = new Date().toISOString();
      writeMeta(db, 'purge_in_progress', JSON.stringify({ started, seqs: [...changedRows.keys()] }));
      for (const name of Object.keys(APPEND_ONLY_TRIGGERS)) db.exec(`DROP TRIGGER IF EXISTS ${name}`);
      const setCols = CHAINED_COLUMNS.filter((c) => c !== 'seq');
      const update = db.prepare(`UPDATE events SET ${setCols.map((c) => `${c} = ?`).join(', ')} WHERE seq = ?`);
      for (const [seq, r] of changedRows) update.run(...setCols.map((c) => r[c] ?? null), seq);
      const setHash = db.prepare('UPDATE events SET hash = ? WHERE seq = ?');
      const page = db.prepare('SELECT * FROM events WHERE seq >= ? ORDER BY seq LIMIT 1000');
      let prev = hashBefore(db, rechainFrom);
      let after = rechainFrom;
      let newHead: ChainHead | null = null;
      for (;;) {
        const batch = page.all(after) as Row[];
        if (batch.length === 0) break;
        for (const r of batch) {
          const h = chainHash(prev, r, CHAINED_COLUMNS);
          if (h !== r.hash) setHash.run(h, r.seq);
          prev = h;
          newHead = { seq: Number(r.seq), hash: h };
        }
        after = Number(batch[batch.length - 1].seq) + 1;
      }
      restoreAppendOnly(db);
      rebuildSearchIndex(db, payloads, { onWarning: (m) => warnings.push(m) });
      // Vectors are derived from the old text: dropped, so hybrid search re-embeds the purged text.
      const dropVectors = db.prepare('DELETE FROM event_vectors WHERE seq = ?');
      for (const seq of changedRows.keys()) dropVectors.run(seq);
      db.prepare("DELETE FROM scroll_meta WHERE key = 'purge_in_progress'").run();
      const textHashes = ms.filter((m) => m.kind === 'text').map((m) => m.hash);
      const patternHashes = ms.filter((m) => m.kind === 'pattern').map((m) => m.hash);
      const list = events.map((e) => e.seq).join(', ');
      const head = appendRecord(db, {
        kind: 'purge',
        content:
          `Purged ${total} occurrence${total === 1 ? '' : 's'} of ${ms.length === 1 ? 'a text' : `${ms.length} texts`} from event${events.length === 1 ? '' : 's'} ${list} ` +
          `(replaced by ${JSON.stringify(replacement)}; sha256 ${ms.map((m) => shortHash(m.hash)).join(', ')}), at the user's request, ${started}. ` +
          `The chain was recomputed from seq ${rechainFrom}: head before ${oldHead ? `${oldHead.seq} ${shortHash(oldHead.hash)}` : 'none'}, ` +
          `after ${newHead ? `${newHead.seq} ${shortHash(newHead.hash)}` : 'none'}.`,
        meta: {
          action: 'purge',
          at: started,
          seqs: events.map((e) => e.seq),
          replacements: total,
          events: events.map((e) => ({ seq: e.seq, replacements: e.replacements, fields: e.fields, ...(e.payload ? { payload: e.payload } : {}) })),
          textSha256: textHashes,
          patternSha256: patternHashes,
          replacement,
          removedPayloads: [...new Set(oldPayloads.map((p) => p.handle))],
          chain: { oldHead, newHead, rechainedFrom: rechainFrom },
        },
      });
      return {
        seq: head.seq,
        replacements: total,
        events,
        unchanged: seqs.filter((s) => !changedRows.has(s)),
        rechainedFrom: rechainFrom,
        oldHead,
        head,
        warnings,
      };
    });
  } finally {
    db.exec(`PRAGMA secure_delete = ${secureWas ? 'ON' : 'OFF'}`);
  }

  // After the commit: the old payload files go, unless an event still points at one.
  const payloadsRemoved: string[] = [];
  const payloadsKept: { handle: string; seq: number }[] = [];
  const user = db.prepare('SELECT seq FROM events WHERE payload = ? LIMIT 1');
  for (const handle of new Set(oldPayloads.map((p) => p.handle))) {
    const still = user.get(handle) as { seq: number } | undefined;
    if (still) {
      payloadsKept.push({ handle, seq: Number(still.seq) });
      warnings.push(`the old payload ${shortHash(handle)} is kept: event ${still.seq}, not named, has the same content — purge it too`);
      continue;
    }
    try {
      unlinkSync(payloads.pathFor(handle));
      payloadsRemoved.push(handle);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') payloadsRemoved.push(handle);
      else warnings.push(`could not remove the old payload file ${payloads.pathFor(handle)}: ${errorMessage(e)} — it still holds the purged text`);
    }
  }
  let walCleared = false;
  try {
    const r = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as { busy: number; log: number; checkpointed: number };
    walCleared = Number(r.busy) === 0;
  } catch {
    walCleared = false;
  }
  if (!walCleared) warnings.push('the write-ahead log could not be emptied now (another connection is reading); the old text leaves it at its next checkpoint');
  const dir = dirname(db.path);
  const copies = existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith(`${basename(db.path)}.corrupt-`) && !/-(wal|shm|journal)$/.test(f)) : [];
  if (copies.length) warnings.push(`copies of the log moved aside earlier still hold the old text: ${copies.map((f) => join(dir, f)).join(', ')}`);
  return { ...result!, payloadsRemoved, payloadsKept, walCleared };
}

/** The chain from `first` to the end verifies as stored (else a purge would hide the damage). */
function verifyTail(db: Database, first: number, chainStart: number): void {
  const page = db.prepare('SELECT * FROM events WHERE seq >= ? ORDER BY seq LIMIT 1000');
  let prev = hashBefore(db, first);
  let after = first;
  for (;;) {
    const batch = page.all(after) as Row[];
    if (batch.length === 0) return;
    for (const r of batch) {
      const expected = chainHash(prev, r);
      const stored = r.hash as string | null;
      if (stored === null && Number(r.seq) >= chainStart) {
        throw new ScrollError(`purge refused: seq ${r.seq} has no chain hash — the chain is already broken there (scroll check); a purge would hide it`, 'PURGE_REFUSED');
      }
      if (stored !== null && stored !== expected) {
        throw new ScrollError(`purge refused: seq ${r.seq} does not match its chain hash — the log was changed there (scroll check); a purge would hide it`, 'PURGE_REFUSED');
      }
      prev = stored ?? expected;
    }
    after = Number(batch[batch.length - 1].seq) + 1;
  }
}

function restoreAppendOnly(db: Database): void {
  for (const name of triggerState(db).missing) db.exec(APPEND_ONLY_TRIGGERS[name]);
}
