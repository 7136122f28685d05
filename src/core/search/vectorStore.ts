/**
 * The derived table of the optional hybrid search, `event_vectors` (schema 4): one unit-length
 * float32 vector per (seq, model). Derived like the FTS index: filled from the stored (redacted)
 * text by embedBackfill.ts, dropped and refilled at will (`scroll embed --rebuild`), never read by
 * anything that needs it to be complete.
 *
 * Nearest neighbours are found by a full scan (a dot product per stored vector) over a copy of one
 * model's vectors kept in memory per connection and extended as vectors are added: exact, simple,
 * and the log's size bounds it (no approximate index to keep in step with the log).
 */
import { createHash } from 'node:crypto';
import type { SearchDatabase } from './search';

/** The part of the Database contract the vectors need (writes go through the log's connection). */
export interface VectorDatabase extends SearchDatabase {
  prepare(sql: string): { get(...p: unknown[]): any; all(...p: unknown[]): any[]; run(...p: unknown[]): unknown };
  transaction?<T>(fn: () => T): T;
}

export interface StoredVector {
  seq: number;
  vector: Float32Array;
  /** sha256 (hex) of the text that was embedded. */
  textHash: string;
}

export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** False for a log of schema < 4 opened read-only (the migration adds the table on the next open for writing). */
export function hasVectorTable(db: SearchDatabase): boolean {
  return db.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'event_vectors'").get() !== undefined;
}

function toBlob(v: Float32Array): Buffer {
  const b = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) b.writeFloatLE(v[i], i * 4);
  return b;
}

function fromBlob(blob: Uint8Array, dims: number, into: Float32Array, at: number): void {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  for (let i = 0; i < dims; i++) into[at + i] = view.getFloat32(i * 4, true);
}

/** Stores (or replaces) vectors of one model. */
export function putVectors(db: VectorDatabase, model: string, rows: readonly StoredVector[]): void {
  if (rows.length === 0) return;
  const insert = db.prepare('INSERT OR REPLACE INTO event_vectors(model, seq, dims, vector, text_hash) VALUES (?, ?, ?, ?, ?)');
  const write = () => {
    for (const r of rows) insert.run(model, r.seq, r.vector.length, toBlob(r.vector), r.textHash);
  };
  if (db.transaction) db.transaction(write);
  else write();
  matrices.get(db)?.delete(model);
}

/** Drops the vectors of one model, or of every model; returns how many. */
export function dropVectors(db: VectorDatabase, model?: string): number {
  const n = Number((model === undefined ? db.prepare('SELECT count(*) AS n FROM event_vectors').get() : db.prepare('SELECT count(*) AS n FROM event_vectors WHERE model = ?').get(model)).n);
  if (model === undefined) db.prepare('DELETE FROM event_vectors').run();
  else db.prepare('DELETE FROM event_vectors WHERE model = ?').run(model);
  matrices.delete(db);
  return n;
}

/** How many events have a vector of this model, and of how many dimensions. */
export function vectorStats(db: SearchDatabase, model: string): { vectors: number; dims: number | null; events: number } {
  const v = db.prepare('SELECT count(*) AS n, max(dims) AS d FROM event_vectors WHERE model = ?').get(model);
  const e = db.prepare('SELECT count(*) AS n FROM events').get();
  return { vectors: Number(v.n), dims: v.d === null || v.d === undefined ? null : Number(v.d), events: Number(e.n) };
}

/** Events after `afterSeq` without a vector of this model, oldest first, with their stored text. */
export function eventsWithoutVector(db: SearchDatabase, model: string, afterSeq: number, limit: number): { seq: number; text: string }[] {
  const rows = db
    .prepare(
      'SELECT e.seq AS seq, e.content AS content FROM events e WHERE e.seq > ? AND NOT EXISTS ' +
        '(SELECT 1 FROM event_vectors v WHERE v.model = ? AND v.seq = e.seq) ORDER BY e.seq LIMIT ?',
    )
    .all(afterSeq, model, limit);
  return rows.map((r) => ({ seq: Number(r.seq), text: String(r.content ?? '') }));
}

/** One model's vectors in memory: row i is `seqs[i]`, at `data[i * dims …]`. */
interface Matrix {
  dims: number;
  count: number;
  seqs: Int32Array;
  data: Float32Array;
  /** Highest seq loaded: later vectors are read on top (the table only grows between drops). */
  maxSeq: number;
  /** PRAGMA data_version when last checked: another connection changed the file since when it differs. */
  dataVersion: number;
}
const matrices = new WeakMap<object, Map<string, Matrix>>();
const LOAD_PAGE = 2048;

function matrixOf(db: SearchDatabase, model: string): Matrix | undefined {
  let byModel = matrices.get(db);
  if (!byModel) matrices.set(db, (byModel = new Map()));
  const dataVersion = Number(db.prepare('PRAGMA data_version').get()?.data_version ?? 0);
  let m = byModel.get(model);
  if (m && m.dataVersion !== dataVersion) {
    // Another connection wrote: vectors may have been dropped or replaced (a purge, a rebuild).
    const now = db.prepare('SELECT count(*) AS n FROM event_vectors WHERE model = ? AND seq <= ?').get(model, m.maxSeq);
    if (Number(now.n) !== m.count) m = undefined;
  }
  if (!m) m = { dims: 0, count: 0, seqs: new Int32Array(0), data: new Float32Array(0), maxSeq: 0, dataVersion };
  m.dataVersion = dataVersion;
  // Read in pages, so the rows' blobs are never all held at once beside the copy.
  const first = m.count === 0 ? Number(db.prepare('SELECT count(*) AS n FROM event_vectors WHERE model = ?').get(model).n) : 0;
  const page = db.prepare(`SELECT seq, dims, vector FROM event_vectors WHERE model = ? AND seq > ? ORDER BY seq LIMIT ${LOAD_PAGE}`);
  for (let rows = page.all(model, m.maxSeq); rows.length > 0; rows = rows.length < LOAD_PAGE ? [] : page.all(model, m.maxSeq)) {
    for (const r of rows) {
      const dims = Number(r.dims);
      if (m.dims === 0) m.dims = dims;
      m.maxSeq = Math.max(m.maxSeq, Number(r.seq));
      if (dims !== m.dims) continue; // a model name reused for another model: its odd vectors are skipped
      if (m.count === m.seqs.length) {
        // The first load takes what is there (plus room for appends); later growth doubles.
        const size = m.count === 0 ? first + 1024 : m.seqs.length * 2;
        const seqs = new Int32Array(size);
        seqs.set(m.seqs);
        const data = new Float32Array(size * m.dims);
        data.set(m.data);
        m.seqs = seqs;
        m.data = data;
      }
      m.seqs[m.count] = Number(r.seq);
      fromBlob(r.vector as Uint8Array, dims, m.data, m.count * dims);
      m.count++;
    }
  }
  byModel.set(model, m);
  return m.count > 0 ? m : undefined;
}

/**
 * The seqs whose vectors are most similar to `query` (cosine), best first, at most `limit` of
 * those `passes` keeps (the search's filters). Vectors of another dimension than the query's are
 * never compared (a model name reused for another model).
 */
export function nearestSeqs(
  db: SearchDatabase,
  model: string,
  query: Float32Array,
  limit: number,
  passes: (seqs: number[]) => Set<number>,
): { seq: number; similarity: number }[] {
  const m = matrixOf(db, model);
  if (!m || m.dims !== query.length || limit <= 0) return [];
  const scores = new Float32Array(m.count);
  const { data, dims, count } = m;
  const tail = dims - (dims % 4);
  for (let i = 0, off = 0; i < count; i++, off += dims) {
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    let j = 0;
    for (; j < tail; j += 4) {
      s0 += data[off + j] * query[j];
      s1 += data[off + j + 1] * query[j + 1];
      s2 += data[off + j + 2] * query[j + 2];
      s3 += data[off + j + 3] * query[j + 3];
    }
    for (; j < dims; j++) s0 += data[off + j] * query[j];
    scores[i] = s0 + s1 + s2 + s3;
  }
  const out: { seq: number; similarity: number }[] = [];
  // The best `want` rows, best first (ties newest seq first, as the lexical ranking breaks them);
  // `want` doubles while the filters leave too few. Only those rows are sorted: the cut-off score
  // comes from a numeric sort of a copy of the scores (a typed array sorts natively).
  const sorted = Float32Array.from(scores).sort();
  const best = (want: number): number[] => {
    const cut = sorted[Math.max(0, sorted.length - want)];
    const rows: number[] = [];
    for (let i = 0; i < m.count; i++) if (scores[i] >= cut) rows.push(i);
    return rows.sort((a, b) => scores[b] - scores[a] || m.seqs[b] - m.seqs[a]);
  };
  let order: number[] = [];
  for (let from = 0, step = Math.max(limit * 2, 64); from < m.count && out.length < limit; from += step, step *= 2) {
    if (order.length < Math.min(m.count, from + step)) order = best(from + step);
    const chunk = order.slice(from, from + step);
    const kept = passes(chunk.map((i) => m.seqs[i]));
    for (const i of chunk) {
      if (out.length >= limit) break;
      if (kept.has(m.seqs[i])) out.push({ seq: m.seqs[i], similarity: scores[i] });
    }
  }
  return out;
}
