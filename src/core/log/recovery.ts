/**
 * What opening a log for writing does when the file is damaged or was changed behind Scroll's back.
 *
 *  - `recoverDamagedLog`: the file fails its check (EventLog.open). It is moved aside as found, every
 *    event that can still be read is carried into a fresh log with its original seq (read by seq
 *    ranges, halved around whatever errors), new events are numbered after the highest seq ever
 *    handed out (the file's own high-water mark, and the head recorded beside it, which survives
 *    even when the damaged tail cannot be read), and a `recovery` event says what was moved,
 *    salvaged and lost. The holes it declares are the only ones `scroll check` accepts.
 *  - `repairOnOpen`: the file is sound, but a trigger is missing, or the head recorded outside it
 *    says its tail was cut or its chain rewritten. Restores what can be restored and records what
 *    it found (an `integrity` event, or a `recovery` event when seqs were lost). Nothing is written
 *    when nothing was found.
 */
import { closeSync, copyFileSync, existsSync, openSync, readSync, renameSync, rmSync, statSync, truncateSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { isBusyError, openDatabase, type Database, type DriverChoice } from '../db';
import { buildIndexDocument } from '../search/indexText';
import {
  CHAINED_COLUMNS, GENESIS, appendRecord, chainHash, chainTip, classifyHead, describeTriggers, ensureChainStart, headIsDamage,
  highestSeqUsed, mergeRanges, rangesCount, rangesText, readHeadFile, readMeta, restoreTriggers, shortHash, toRanges, triggerState, triggersOk,
  writeHeadFile, writeMeta, type ChainExplanation, type ChainHead, type HeadFinding, type HeadRead, type Row,
} from './chain';
import { PayloadStore } from './payloadStore';
import { sleepSync } from '../db/sqliteErrors';

export interface RecoveryReport {
  /** Why the file was judged damaged. */
  reason: string;
  /** Where the damaged file now is (with its -wal/-shm). */
  movedTo: string;
  salvaged: number;
  salvagedRanges: [number, number][];
  /** Seqs that were handed out and could not be read back (holes declared by earlier recoveries excluded). */
  lost: number;
  lostRanges: [number, number][];
  /** The highest seq ever handed out before the recovery; new events follow the recovery event. */
  highWater: number;
  /** The seq of the `recovery` event. */
  recoverySeq: number;
  /** What the user is told (onWarning). */
  message: string;
}

/** Renames the database and its -wal/-shm to `<path>.corrupt-<time>[-wal|-shm]`; returns the new db name. */
export function moveAside(path: string): string {
  const target = corruptName(path);
  renameSync(path, target);
  for (const suffix of ['-wal', '-shm', '-journal']) {
    if (existsSync(path + suffix)) renameSync(path + suffix, target + suffix);
  }
  return target;
}

/** A name for the moved-aside corrupt file that says what it is and when, never an existing name. */
function corruptName(path: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let candidate = `${path}.corrupt-${stamp}`;
  for (let i = 1; existsSync(candidate) || existsSync(`${candidate}-wal`); i++) candidate = `${path}.corrupt-${stamp}-${i}`;
  return candidate;
}

/** The temporary file a salvage builds before it takes the log's place. */
export const salvageFile = (path: string) => `${path}.salvage`;

/** A padded copy of a cut-short damaged file, read instead of it (see readableCopy). */
const salvageSource = (path: string) => `${path}.salvage-src`;

const removeFiles = (base: string) => {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(base + suffix, { force: true });
};

/** Removes the files of a recovery that was interrupted (the salvage never took the log's place). */
export function removeStaleSalvage(path: string): void {
  removeFiles(salvageFile(path));
  removeFiles(salvageSource(path));
}

/**
 * The file to salvage from. SQLite refuses to read any page of a file shorter than its header
 * says (cut short: "database disk image is malformed" before the first row); a copy padded with
 * zero pages to the size the header gives reads everywhere but in the missing part. The moved-aside
 * file itself stays exactly as found.
 */
function readableCopy(file: string, copy: string): string {
  let header: Buffer;
  try {
    header = Buffer.alloc(100);
    const fd = openSync(file, 'r');
    try {
      if (readSync(fd, header, 0, 100, 0) < 100) return file;
    } finally {
      closeSync(fd);
    }
  } catch {
    return file;
  }
  if (header.toString('latin1', 0, 16) !== 'SQLite format 3\0') return file;
  const raw = header.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const pages = header.readUInt32BE(28);
  const size = statSync(file).size;
  if (pageSize < 512 || pages === 0 || pages * pageSize <= size) return file;
  try {
    copyFileSync(file, copy);
    if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
    truncateSync(copy, pages * pageSize);
    return copy;
  } catch {
    removeFiles(copy);
    return file;
  }
}

export interface RecoveryOptions {
  driver?: DriverChoice;
  /** Head files: beside the log first, then mirrors. Read for the high-water mark; rewritten after. */
  headFiles: string[];
  payloadDir: string;
  /** Opens (creating) a log for writing: schema and migrations, as EventLog does. */
  openWritable: (path: string) => Database;
}

/** Probes that may fail before the rest of a damaged range is counted lost unread. */
const FAILED_PROBE_BUDGET = 200_000;
/** Seqs per read when the pages are sound. */
const SALVAGE_CHUNK = 1000;

/**
 * Moves the damaged log at `path` aside and puts a fresh log in its place holding every event that
 * could be read, with its seq, and a `recovery` event. The new log is built beside it and renamed
 * into place when complete, so an interruption leaves either the damaged file's copy aside and no
 * log (the next open starts one, numbering after the head recorded beside it) or the whole result.
 */
export function recoverDamagedLog(path: string, reason: string, opts: RecoveryOptions): RecoveryReport {
  const heads = opts.headFiles.map((f) => readHeadFile(f));
  const movedTo = moveAside(path);
  removeStaleSalvage(path);

  let src: Database | undefined;
  const source = readableCopy(movedTo, salvageSource(path));
  try {
    src = openDatabase(source, { readonly: true, driver: opts.driver });
  } catch {
    src = undefined; // nothing readable: a fresh log that still numbers after the recorded head
  }
  const attempt = <T>(fn: () => T): T | undefined => {
    try {
      return src ? fn() : undefined;
    } catch {
      return undefined;
    }
  };
  const oldLogId = attempt(() => readMeta(src!, 'log_id'));
  const headRecords = heads.filter((h): h is Extract<HeadRead, { state: 'read' }> => h.state === 'read').map((h) => h.record);
  const logId = oldLogId ?? headRecords[0]?.log ?? randomBytes(16).toString('hex');
  const sameLog = headRecords.filter((r) => r.log === logId);
  const recordedHead = sameLog.reduce<ChainHead | null>((best, r) => (!best || r.seq > best.seq ? { seq: r.seq, hash: r.hash } : best), null);
  const oldUsed = attempt(() => highestSeqUsed(src!)) ?? 0;
  const oldMax = attempt(() => Number((src!.prepare('SELECT coalesce(max(seq), 0) AS m FROM events').get() as { m: number }).m)) ?? 0;
  // The indexes and the search index's size table hold every seq too, on pages of their own: they
  // tell how far the events went when the table's own right edge cannot be read.
  const indexMax = (sql: string) => attempt(() => Number((src!.prepare(sql).get() as { m: number | null }).m ?? 0)) ?? 0;
  const seenInIndexes = Math.max(
    indexMax('SELECT max(seq) AS m FROM events INDEXED BY events_session_seq'),
    indexMax('SELECT max(seq) AS m FROM events INDEXED BY events_kind_seq'),
    indexMax('SELECT max(id) AS m FROM events_fts_docsize'),
  );
  let upper = Math.max(oldUsed, oldMax, seenInIndexes, recordedHead?.seq ?? 0);

  const tmp = salvageFile(path);
  const db = opts.openWritable(tmp);
  const payloads = new PayloadStore(opts.payloadDir, true);
  let report: RecoveryReport;
  try {
    writeMeta(db, 'log_id', logId);
    const insert = db.prepare(`INSERT INTO events(${CHAINED_COLUMNS.join(', ')}, hash) VALUES (${CHAINED_COLUMNS.map(() => '?').join(', ')}, ?)`);
    const insertFts = db.prepare('INSERT INTO events_fts(rowid, body, code, parts, headline) VALUES (?, ?, ?, ?, ?)');
    const salvaged: number[] = [];
    const previouslyDeclared: [number, number][] = [];
    let prev = GENESIS;
    let rechainedFrom: number | undefined;
    let oldPrev: string | null = null;
    let oldLast: ChainHead | null = null;
    let lastSalvaged = 0;
    const oldChainBroken: number[] = [];
    // A scan over a damaged page can return cells of zeros as rows (seq 0, every column NULL).
    const plausible = (r: Row, a: number, b: number) => {
      const seq = Number(r.seq);
      return Number.isSafeInteger(seq) && seq >= a && seq <= b && seq > lastSalvaged &&
        ['session', 'kind', 'role', 'content', 'ts'].every((c) => typeof r[c] === 'string') &&
        typeof r.bytes === 'number' && typeof r.tokens === 'number';
    };
    const take = (r: Row) => {
      const seq = Number(r.seq);
      const row: Row = {};
      for (const c of CHAINED_COLUMNS) row[c] = r[c] ?? null;
      if (row.meta === null) row.meta = '{}';
      const oldHash = typeof r.hash === 'string' ? r.hash : null;
      // The old chain, where it can still be followed (from the previous salvaged event, no gap).
      if (oldHash && oldPrev !== null && seq === lastSalvaged + 1 && chainHash(oldPrev, row, CHAINED_COLUMNS) !== oldHash && oldChainBroken.length < 20) oldChainBroken.push(seq);
      const hash = chainHash(prev, row, CHAINED_COLUMNS);
      if (rechainedFrom === undefined && hash !== oldHash) rechainedFrom = seq;
      insert.run(...CHAINED_COLUMNS.map((c) => row[c]), hash);
      let text = String(row.content);
      if (typeof row.payload === 'string') {
        try {
          text = payloads.read(row.payload);
        } catch {
          // indexed from its preview, as a rebuild would
        }
      }
      const d = buildIndexDocument(text, row.headline as string | null);
      insertFts.run(seq, d.body, d.code, d.parts, d.headline);
      if (row.kind === 'recovery') {
        try {
          const holes = (JSON.parse(String(row.meta)) as { holes?: [number, number][] }).holes;
          if (Array.isArray(holes)) for (const h of holes) if (Array.isArray(h) && h[1] < seq) previouslyDeclared.push([Number(h[0]), Number(h[1])]);
        } catch {
          // declares nothing
        }
      }
      salvaged.push(seq);
      prev = hash;
      oldPrev = oldHash ?? chainHash(oldPrev ?? GENESIS, row, CHAINED_COLUMNS);
      oldLast = { seq, hash: oldPrev };
      lastSalvaged = seq;
    };

    db.transaction(() => {
      if (src) {
        const read = src.prepare('SELECT * FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq');
        let failures = 0;
        // Depth-first over [a, b]: a range that reads is taken whole, one that errors is halved.
        const salvageRange = (a: number, b: number) => {
          if (failures >= FAILED_PROBE_BUDGET) return;
          let rows: Row[] | undefined;
          try {
            rows = read.all(a, b) as Row[];
          } catch {
            failures++;
          }
          if (rows) {
            for (const r of rows) if (plausible(r, a, b)) take(r);
            return;
          }
          if (a === b) return; // this seq cannot be read: lost
          const mid = Math.floor((a + b) / 2);
          salvageRange(a, mid);
          salvageRange(mid + 1, b);
        };
        const top = upper;
        for (let a = 1; a <= top; a += SALVAGE_CHUNK) salvageRange(a, Math.min(top, a + SALVAGE_CHUNK - 1));
        // Past the highest seq known the file may still hold events (when no high-water mark, no
        // max(seq) and no head could be read): read on while ranges still yield events.
        for (let a = top + 1; failures < FAILED_PROBE_BUDGET; a += SALVAGE_CHUNK) {
          const before = salvaged.length;
          salvageRange(a, a + SALVAGE_CHUNK - 1);
          if (salvaged.length === before) break;
        }
        upper = Math.max(upper, lastSalvaged);
      }
      // salvaged is in ascending order (ranges are read in order, depth first)
      const holes: [number, number][] = [];
      let next = 1;
      for (const s of salvaged) {
        if (s > next) holes.push([next, s - 1]);
        next = s + 1;
      }
      if (upper >= next) holes.push([next, upper]);
      const lostRanges = holes.flatMap(([a, b]) => subtractRanges(a, b, mergeRanges(previouslyDeclared)));
      const lost = rangesCount(lostRanges);
      const salvagedRanges = toRanges(salvaged);
      const chain: ChainExplanation = { oldHead: recordedHead ?? oldLast, rechainedFrom: minDefined(rechainedFrom, holes[0]?.[0]) };
      const content =
        `Recovered from a damaged log file (${reason}). The file was moved aside to ${movedTo} (with its -wal/-shm files, nothing deleted). ` +
        `Salvaged ${salvaged.length} event${salvaged.length === 1 ? '' : 's'} with their seqs${salvaged.length ? ` (${rangesText(salvagedRanges)})` : ''}; ` +
        `lost ${lost}${lost ? ` (seq ${rangesText(lostRanges)})` : ''}. ` +
        `New events continue after seq ${upper}` +
        (recordedHead ? `; the head recorded beside the log was seq ${recordedHead.seq} (hash ${shortHash(recordedHead.hash)})` : '') + '.';
      const at = upper + 1;
      appendRecord(db, {
        kind: 'recovery',
        content,
        meta: {
          action: 'salvage', reason, movedTo,
          salvaged: { events: salvaged.length, ranges: salvagedRanges },
          lost: { events: lost, ranges: lostRanges },
          holes, highWater: upper, oldFileHead: oldLast, oldChainBroken, chain,
        },
      }, at);
      writeMeta(db, 'chain_start', String(salvaged[0] ?? at));
      const message =
        `the event log at ${path} was damaged (${reason}); moved it aside to ${movedTo} (with its -wal/-shm files, nothing deleted); ` +
        `salvaged ${salvaged.length} event${salvaged.length === 1 ? '' : 's'} into a fresh log with their seqs${salvaged.length ? ` (${rangesText(salvagedRanges, 4)})` : ''}; ` +
        `lost ${lost === 0 ? 'none' : `${lost} (seq ${rangesText(lostRanges, 4)})`}; new events continue at seq ${at + 1} (the recovery is event ${at})`;
      report = { reason, movedTo, salvaged: salvaged.length, salvagedRanges, lost, lostRanges, highWater: upper, recoverySeq: at, message };
    });
  } catch (e) {
    db.close();
    src?.close();
    removeStaleSalvage(path);
    throw e;
  }
  const head = chainTip(db).last;
  db.close();
  src?.close();
  removeFiles(salvageSource(path));
  renameSync(tmp, path);
  for (const suffix of ['-wal', '-shm']) if (existsSync(tmp + suffix)) renameSync(tmp + suffix, path + suffix);
  if (head) publishHead(opts.headFiles, logId, head, () => undefined);
  return report!;
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** [a, b] minus `ranges` (sorted, merged), as ranges. */
function subtractRanges(a: number, b: number, ranges: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  let from = a;
  for (const [x, y] of ranges) {
    if (y < from) continue;
    if (x > b) break;
    if (x > from) out.push([from, Math.min(b, x - 1)]);
    from = Math.max(from, y + 1);
    if (from > b) break;
  }
  if (from <= b) out.push([from, b]);
  return out;
}

/** Writes the head to every head file; a failure is reported once per file, never thrown. */
export function publishHead(files: string[], logId: string, head: ChainHead, warn: (file: string, error: unknown) => void): void {
  const record = { format: 1 as const, log: logId, seq: head.seq, hash: head.hash, ts: new Date().toISOString() };
  for (const f of files) {
    try {
      writeHeadFile(f, record);
    } catch (e) {
      warn(f, e);
    }
  }
}

// --- repairs on a sound file ---------------------------------------------------------------------

export interface OpenRepair {
  /** The seq of the event that records the repair. */
  seq: number;
  kind: 'integrity' | 'recovery';
  findings: string[];
  /** What the user is told. */
  message: string;
}

interface Findings {
  texts: string[];
  triggers: ReturnType<typeof triggerState>;
  purgeMarker?: string;
  chainStartMissing: boolean;
  heads: HeadFinding[];
  /** Seqs handed out past the last event (the file's high-water mark, or a head file's). */
  highWater: number;
  last: ChainHead | null;
  /** A new, empty file where a log was before (the head beside it names it): it continues that log. */
  adoptLogId?: string;
}

function inspect(db: Database, headFiles: string[]): Findings {
  const triggers = triggerState(db);
  const texts = describeTriggers(triggers);
  const purgeMarker = readMeta(db, 'purge_in_progress');
  if (purgeMarker !== undefined) texts.push(`a purge began and did not finish (${purgeMarker})`);
  const start = readMeta(db, 'chain_start');
  const chainStartMissing = start === undefined;
  if (chainStartMissing) texts.push('the chain had no recorded start');
  const tip = chainTip(db);
  const last = tip.last;
  let highWater = tip.next - 1;
  if (last && highWater > last.seq) texts.push(`the log's tail was cut after seq ${last.seq}: seqs up to ${highWater} were handed out (sqlite_sequence)`);
  const logId = readMeta(db, 'log_id');
  // A file without a single event or seq handed out, where the head beside it names a log: the file
  // was deleted (or a recovery was interrupted before its result took the log's place). It continues
  // that log, so none of its seqs is handed out again.
  let adoptLogId: string | undefined;
  if (!last && highWater === 0 && headFiles.length) {
    const beside = readHeadFile(headFiles[0]);
    if (beside.state === 'read' && beside.record.log !== logId && beside.record.seq > 0) adoptLogId = beside.record.log;
  }
  const heads: HeadFinding[] = [];
  headFiles.forEach((file, i) => {
    const f = classifyHead(db, readHeadFile(file), adoptLogId ?? logId, last);
    const required = i === 0 && !chainStartMissing && last !== null && last.seq >= Number(start);
    if (!headIsDamage(f, required)) return;
    heads.push(f);
    texts.push(f.state === 'missing' ? `the head beside the log (${file}) was missing` : f.message);
    if (f.state === 'cut' && f.head) highWater = Math.max(highWater, f.head.seq);
  });
  if (adoptLogId) texts.push(`the log file was missing or empty: this new file continues log ${adoptLogId}`);
  return { texts, triggers, purgeMarker, chainStartMissing, heads, highWater, last, adoptLogId };
}

/**
 * The cheap checks of a log opened for writing (a few lookups, no lock) and, only when one found
 * something, the repair under the write lock: the append-only triggers restored (foreign ones
 * dropped), the seqs a cut tail took declared lost so they are never handed out again, and an
 * event recording what was found. Returns undefined when all was well.
 */
export function repairOnOpen(db: Database, headFiles: string[], opts: { wait?: boolean } = {}): OpenRepair | 'busy' | undefined {
  let first = inspect(db, headFiles);
  if (first.texts.length === 0) return undefined;
  // An open never waits for another writer (a long ingest): the repair then runs before this
  // connection's first append, which waits for the lock anyway.
  if (opts.wait === false && !writeLockFree(db)) return 'busy';
  // Another writer that has just committed writes its head file right after the commit: a head
  // that is missing or behind only for that moment is given one before it counts as a finding.
  if (first.heads.length > 0) {
    sleepSync(50);
    first = inspect(db, headFiles);
    if (first.texts.length === 0) return undefined;
  }
  return db.transaction(() => {
    // Again under the write lock: another connection may have repaired it meanwhile.
    const found = inspect(db, headFiles);
    if (found.texts.length === 0) return undefined;
    if (!triggersOk(found.triggers)) restoreTriggers(db, found.triggers);
    if (found.purgeMarker !== undefined) db.prepare("DELETE FROM scroll_meta WHERE key = 'purge_in_progress'").run();
    if (found.chainStartMissing) ensureChainStart(db, { fromVersion: 2, toVersion: 2 });
    if (found.adoptLogId) writeMeta(db, 'log_id', found.adoptLogId);
    const lastSeq = chainTip(db).last?.seq ?? 0;
    const holes: [number, number][] = found.highWater > lastSeq ? [[lastSeq + 1, found.highWater]] : [];
    const rewritten = found.heads.filter((h) => h.state === 'rewritten');
    const cut = found.heads.filter((h) => h.state === 'cut');
    const otherLogs = found.heads.filter((h) => h.state === 'other-log');
    const chain: ChainExplanation = {};
    const oldHead = [...rewritten, ...cut][0]?.head;
    if (oldHead) chain.oldHead = oldHead;
    if (rewritten.length) chain.rechainedFrom = 1; // where the rewrite began cannot be known
    else if (holes.length) chain.rechainedFrom = holes[0][0];
    const ids = otherLogs.map((h) => readOtherLog(h.file)).filter((x): x is string => !!x);
    if (ids.length) chain.otherLogs = ids;
    const kind = holes.length ? 'recovery' : 'integrity';
    const content =
      `Found when the log was opened for writing: ${found.texts.join('; ')}. ` +
      [
        !triggersOk(found.triggers) ? 'The append-only triggers were restored.' : '',
        holes.length ? `Seqs ${rangesText(holes)} are declared lost and will not be handed out again.` : '',
        rewritten.length ? 'The chain in the file continues from its own head; events up to the recorded head cannot be vouched for.' : '',
      ].filter(Boolean).join(' ');
    const head = appendRecord(db, {
      kind,
      content: content.trim(),
      meta: { action: 'repair-on-open', findings: found.texts, triggers: found.triggers, ...(holes.length ? { holes, highWater: found.highWater } : {}), chain },
    }, holes.length ? found.highWater + 1 : undefined);
    return {
      seq: head.seq,
      kind,
      findings: found.texts,
      message: `the event log ${db.path} needed attention when opened: ${found.texts.join('; ')}; repaired what could be and recorded it as event ${head.seq} (${kind})`,
    } satisfies OpenRepair;
  });
}

/** Whether the write lock can be had right now (taken and released at once; never waits). */
export function writeLockFree(db: Database): boolean {
  const wait = Number((db.prepare('PRAGMA busy_timeout').get() as { timeout: number }).timeout);
  db.exec('PRAGMA busy_timeout = 0');
  try {
    db.exec('BEGIN IMMEDIATE');
    db.exec('ROLLBACK');
    return true;
  } catch (e) {
    if (isBusyError(e)) return false;
    throw e;
  } finally {
    db.exec(`PRAGMA busy_timeout = ${wait}`);
  }
}

function readOtherLog(file: string): string | undefined {
  const r = readHeadFile(file);
  return r.state === 'read' ? r.record.log : undefined;
}
