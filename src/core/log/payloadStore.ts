/**
 * Content-addressed payload store: large event contents live in files named by their sha256,
 * `<dir>/<aa>/<sha256>`. Writes are atomic (temp file + rename) so a reader never sees half a
 * payload; reads recompute the hash so a damaged file is reported, never returned.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, promises as fsp, readdirSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { PayloadError, ReadonlyLogError, errorMessage } from '../errors';

const HANDLE = /^[0-9a-f]{64}$/;

export interface PayloadPut {
  handle: string;
  bytes: number;
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Writes `length` bytes of `data` from `offset` to `fd`; returns how many it wrote (like `fs.writeSync`). */
export type PayloadWrite = (fd: number, data: Buffer, offset: number, length: number) => number;

const realWrite: PayloadWrite = (fd, data, offset, length) => writeSync(fd, data, offset, length);
let payloadWrite: PayloadWrite = realWrite;

/**
 * TEST SEAM, for fault injection in tests only (e.g. a write failing with ENOSPC past a quota, to
 * simulate a full disk): every payload byte this thread's stores write goes through `write`.
 * `undefined` restores the real `fs.writeSync`. Worker threads keep their own (real) writer.
 */
export function setPayloadWriteForTests(write: PayloadWrite | undefined): void {
  payloadWrite = write ?? realWrite;
}

/** Prefix of the temp files `put` writes before renaming them into place (`<shard>/.tmp-…`). */
export const PAYLOAD_TEMP_PREFIX = '.tmp-';

export class PayloadStore {
  /** Files written with `deferSync` whose bytes may not be on disk yet (see `syncPending`). */
  private readonly unsynced = new Set<string>();
  /** Deferred files whose flush `syncSoon` started. */
  private readonly syncing = new Map<string, Promise<void>>();
  /** Shard folders known to exist. */
  private readonly shards = new Set<string>();
  /** The chain of syncPendingInOrder() flushes. */
  private inOrder: Promise<void> = Promise.resolve();

  constructor(readonly dir: string, private readonly readonly = false) {}

  static isHandle(handle: string): boolean {
    return HANDLE.test(handle);
  }

  pathFor(handle: string): string {
    if (!HANDLE.test(handle)) throw new PayloadError(`not a payload handle: "${handle}" (expected 64 hex digits)`, handle);
    return join(this.dir, handle.slice(0, 2), handle);
  }

  has(handle: string): boolean {
    return existsSync(this.pathFor(handle));
  }

  /**
   * Stores `content` (UTF-8) and returns its handle. Idempotent: same content, same file.
   * The file is fsynced before returning, unless `deferSync`: then `syncPending()` must run
   * before any event pointing at it commits (bulk appends sync all their files in parallel,
   * much faster than one by one).
   */
  put(content: string | Buffer, opts: { deferSync?: boolean } = {}): PayloadPut {
    if (this.readonly) throw new ReadonlyLogError('the payload store was opened read-only');
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const handle = sha256Hex(data);
    const target = this.pathFor(handle);
    if (this.claimQuietly(handle) && this.verifies(target, handle)) {
      // Already stored, but perhaps by a bulk append that rolled back before flushing it (its
      // files stay as harmless orphans): flushed like a new file, so the event that now points
      // here never commits ahead of it. Flushing a file that is already on disk is cheap.
      // claim() marked it in use first, so a concurrent `scroll gc` leaves it (payloadGc.ts).
      if (opts.deferSync) this.unsynced.add(target);
      else fsyncPath(target);
      return { handle, bytes: data.length };
    }
    const shard = join(this.dir, handle.slice(0, 2));
    // 256 shard folders: made once per store, not once per payload (mkdir is a syscall per level).
    if (!this.shards.has(shard)) {
      mkdirSync(shard, { recursive: true });
      this.shards.add(shard);
    }
    const tmp = join(shard, `${PAYLOAD_TEMP_PREFIX}${handle.slice(0, 16)}-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      let fd: number;
      try {
        fd = openSync(tmp, 'wx', 0o600);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        mkdirSync(shard, { recursive: true }); // the folder was removed since we made it
        fd = openSync(tmp, 'wx', 0o600);
      }
      try {
        let off = 0;
        while (off < data.length) off += payloadWrite(fd, data, off, data.length - off);
        // The event that points here commits right after; the bytes must be on disk first.
        if (!opts.deferSync) fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, target);
      if (opts.deferSync) this.unsynced.add(target);
    } catch (e) {
      try {
        unlinkSync(tmp);
      } catch {
        // temp file never created or already renamed
      }
      const code = (e as NodeJS.ErrnoException).code;
      const full = code === 'ENOSPC' || code === 'EDQUOT' ? DISK_FULL_HINT : '';
      throw new PayloadError(`cannot write payload ${handle} to ${target}: ${errorMessage(e)}${full}`, handle, { cause: e });
    }
    return { handle, bytes: data.length };
  }

  /**
   * Marks an existing payload file as in use now, before an event that points at it commits:
   * `scroll gc` never removes a file marked within its grace period, and re-checks the mark after
   * taking a file out of place (payloadGc.ts). Whoever makes a new event point at a payload file
   * it did not write itself (put() reusing a file, a salvage copying old rows) calls this first.
   * The mark is the access time; the modification time, which says when the bytes were written,
   * is kept. Returns false when there is no such file (then write it anew).
   */
  claim(handle: string): boolean {
    if (this.readonly) throw new ReadonlyLogError('the payload store was opened read-only');
    const target = this.pathFor(handle);
    let mtime: Date;
    try {
      mtime = statSync(target).mtime;
      utimesSync(target, new Date(), mtime);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw new PayloadError(`cannot mark payload ${handle} as in use (${target}): ${errorMessage(e)}`, handle, { cause: e });
    }
    return true;
  }

  /** claim(), with a file that cannot be marked (permissions) treated as absent: put() writes it anew. */
  private claimQuietly(handle: string): boolean {
    try {
      return this.claim(handle);
    } catch {
      return false;
    }
  }

  /** Flushes every file written with `deferSync` to disk, in parallel; waits for `syncSoon`'s. */
  async syncPending(): Promise<void> {
    const paths = [...this.unsynced];
    const started = [...this.syncing.values()];
    await Promise.all([
      ...paths.map(async (path) => {
        await fsyncFile(path);
        this.unsynced.delete(path);
      }),
      ...started,
    ]);
    this.syncing.clear();
  }

  /**
   * Starts flushing every file written with `deferSync` so far, one file after another on the
   * thread pool, after those of earlier calls; resolves when all of them are on disk. The ingest
   * worker calls it after handing each batch to the writer: the flushes then wait on the disk
   * beside the next batch's preparation instead of on the worker's thread. One at a time, because concurrent flushes slowed this machine's file creation.
   * A failure rejects this call and every later one.
   */
  syncPendingInOrder(): Promise<void> {
    const paths = [...this.unsynced];
    this.unsynced.clear();
    this.inOrder = this.inOrder.then(async () => {
      for (const path of paths) await fsyncFile(path);
    });
    return this.inOrder;
  }

  /**
   * Starts flushing a file written with `deferSync` (here or by another thread) now, on the
   * thread pool, so that `syncPending` at the commit finds it done instead of starting it then.
   * A failure is reported by `syncPending`.
   */
  syncSoon(handle: string): void {
    const path = this.pathFor(handle);
    if (this.syncing.has(path)) return;
    this.unsynced.delete(path);
    const done = fsyncFile(path);
    done.catch(() => undefined); // awaited by syncPending, or dropped with the rollback
    this.syncing.set(path, done);
  }

  /** Forgets deferred files (their events were rolled back; the files are harmless orphans). */
  dropPending(): void {
    this.unsynced.clear();
    this.syncing.clear();
  }

  /** The exact bytes stored under `handle`, after checking they still hash to it. */
  readBuffer(handle: string): Buffer {
    const path = this.pathFor(handle);
    let data: Buffer;
    try {
      data = readFileSync(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new PayloadError(`payload ${handle} is missing (expected at ${path})`, handle, { cause: e });
      throw new PayloadError(`cannot read payload ${handle} at ${path}: ${errorMessage(e)}`, handle, { cause: e });
    }
    const actual = sha256Hex(data);
    if (actual !== handle) {
      throw new PayloadError(`payload ${handle} is damaged: ${path} now hashes to ${actual.slice(0, 12)}… (${data.length} bytes)`, handle);
    }
    return data;
  }

  read(handle: string): string {
    return this.readBuffer(handle).toString('utf8');
  }

  /** Number of payload files and their total size. */
  stats(): { count: number; bytes: number } {
    let count = 0;
    let bytes = 0;
    if (!existsSync(this.dir)) return { count, bytes };
    for (const shard of readdirSync(this.dir)) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const f of readdirSync(join(this.dir, shard))) {
        if (!HANDLE.test(f)) continue;
        count++;
        bytes += statSync(join(this.dir, shard, f)).size;
      }
    }
    return { count, bytes };
  }

  private verifies(path: string, handle: string): boolean {
    try {
      return sha256Hex(readFileSync(path)) === handle;
    } catch {
      return false;
    }
  }
}

async function fsyncFile(path: string): Promise<void> {
  try {
    const handle = await fsp.open(path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (e) {
    throw flushError(path, e);
  }
}

/** fsync by path, on this thread; a failure is a PayloadError naming the payload. */
function fsyncPath(path: string): void {
  try {
    const fd = openSync(path, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw flushError(path, e);
  }
}

const DISK_FULL_HINT =
  ' — the disk is full; `scroll gc` (or "Scroll: Remove Unreferenced Payload Files") removes payload files no event references';

function flushError(path: string, cause: unknown): PayloadError {
  const handle = basename(path);
  const code = (cause as NodeJS.ErrnoException).code;
  const full = code === 'ENOSPC' || code === 'EDQUOT' ? DISK_FULL_HINT : '';
  return new PayloadError(`cannot flush payload ${handle} to disk (${path}): ${errorMessage(cause)}${full}`, handle, { cause });
}
