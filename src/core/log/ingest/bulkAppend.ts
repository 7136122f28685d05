/**
 * Bulk ingest: one transaction spanning async steps, whose batches are prepared (validated,
 * redacted, payload files written, index text built) on a worker thread while earlier batches are
 * inserted. The one entry point is `beginBulkAppend`, which `EventLog.beginBulk()` calls with the
 * parts of the log it needs (`BulkTarget`); the worker (prepareWorker.ts), its client and the
 * messages between them live beside it.
 */
import { availableParallelism } from 'node:os';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Database } from '../../db';
import { InvalidInputError } from '../../errors';
import type { LogEvent, NewEvent } from '../../types';
import type { EventPreparer, PreparedBatch, PreparerConfig } from '../eventPreparer';
import type { PayloadStore } from '../payloadStore';
import { NotTransferableError, PrepareWorkerClient } from './prepareWorkerClient';

export interface BulkAppend {
  append(events: NewEvent[]): LogEvent[];
  /**
   * Appends a batch whose preparation (validation, redaction, payload files, index text) runs on
   * a worker thread while earlier batches are inserted: the way to ingest many events. Batches
   * land in submission order; resolves to their seqs. A failed batch fails every later one and
   * the commit. Await each promise (or `commit()`) before appending synchronously.
   */
  submit(events: NewEvent[]): Promise<number[]>;
  /** Where submitted batches are prepared: a worker thread, or this thread when none could start. */
  readonly preparedOn: 'worker' | 'this thread' | 'nothing submitted yet';
  /**
   * Submitted batches prepared so far, by where: the first is prepared here, and so is any batch
   * whose turn to insert comes while the worker has not reached it (the worker is the slower side).
   */
  readonly prepared: { worker: number; here: number };
  /** Flushes the payload files written meanwhile, then commits. */
  commit(): Promise<void>;
  /** Discards everything appended since `beginBulk()`. Safe to call after a failed commit. */
  rollback(): void;
}


/** A submitted batch on its way to insertion (beginBulk). */
interface BulkJob {
  events: NewEvent[];
  session: string;
  prepared: Promise<PreparedBatch>;
  settle(batch: PreparedBatch | Error): void;
  settled: boolean;
  /** Prepared by the worker, which flushes its payload files itself. */
  onWorker: boolean;
}

/**
 * Batches the ingest worker holds at once: the one it prepares and two more, so it does not run
 * dry while this thread's event loop is blocked by an insert and cannot hand it the next
 * (docs/PERFORMANCE.md: 3 against 2, bulk ingest at 10M tokens).
 */
const AT_WORKER = 3;

/** What a bulk append needs of the log it appends to (EventLog passes its own parts). */
export interface BulkTarget {
  readonly db: Database;
  readonly preparer: EventPreparer;
  readonly preparerConfig: PreparerConfig;
  readonly payloads: PayloadStore;
  /** The session of events that name none. */
  session(): string;
  /** Inside a bulk append, payload files are synced together at commit instead of one by one. */
  setInBulk(on: boolean): void;
  appendMany(events: NewEvent[]): LogEvent[];
  /** Inserts a prepared batch's rows into the open transaction (no savepoint). */
  insertRows(batch: PreparedBatch): number[];
  /** Forgets the chain head of the inserts a rollback discarded. */
  dropPendingHead(): void;
  /** Writes the committed head to the head files. */
  publishHead(): void;
}

/**
 * A bulk append spanning async steps (e.g. a streamed file): every `append` or `submit` joins
 * one transaction that `commit()` makes durable and `rollback()` discards, so a failure midway
 * leaves the log as it was. Holds the write lock until then: other writers wait.
 * `worker`: prepare submitted batches on a worker thread (default: when there is more than one core).
 * `workerDir`: where the worker file is (default: beside this module; tests pass a wrapper).
 */
export function beginBulkAppend(target: BulkTarget, opts: { worker?: boolean; workerDir?: string } = {}): BulkAppend {
  target.db.begin();
  target.setInBulk(true);
  let open = true; // the transaction is active
  let accepting = true; // no commit() or rollback() called yet
  let worker: PrepareWorkerClient | undefined;
  // A worker only helps when it gets a core of its own; on one core it only adds the copying.
  // `worker: true` or `false` decides regardless (tests, benchmarks).
  let workerTried = !(opts.worker ?? availableParallelism() > 1);
  let submitted = false;
  let usedWorker = false;
  // Inserts of submitted batches run one after another, in submission order. `tail` never
  // rejects (a rejected promise nobody awaits would crash Node); the first failure is kept.
  let tail: Promise<void> = Promise.resolve();
  let failure: unknown;
  let inFlight = 0;
  const ensureOpen = () => {
    if (!accepting) throw new InvalidInputError('this bulk append is already committed or rolled back');
  };
  // Batches not yet being prepared, in submission order. The worker is given the earliest of
  // them whenever it holds fewer than AT_WORKER (so it never waits for this thread's event loop,
  // which is blocked while a batch inserts); a batch due for insertion whose turn the worker has
  // not reached is prepared here instead.
  const waiting: BulkJob[] = [];
  let atWorker = 0;
  const counts = { worker: 0, here: 0 };
  const newJob = (events: NewEvent[], session: string): BulkJob => {
    const job = { events, session, settled: false, onWorker: false } as BulkJob;
    job.prepared = new Promise<PreparedBatch>((ok, fail) => {
      job.settle = (batch) => {
        if (job.settled) return;
        job.settled = true;
        if (batch instanceof Error) fail(batch);
        else ok(batch);
      };
    });
    job.prepared.catch(() => undefined); // handled in order, by the insert that awaits it
    return job;
  };
  const prepareHere = (job: BulkJob) => {
    const at = waiting.indexOf(job);
    if (at >= 0) waiting.splice(at, 1);
    counts.here++;
    try {
      job.settle(target.preparer.prepare(job.events, job.session, true));
    } catch (e) {
      job.settle(e instanceof Error ? e : new Error(String(e)));
    }
  };
  const dispatch = () => {
    while (worker && atWorker < AT_WORKER && waiting.length > 0) {
      const job = waiting.shift()!;
      atWorker++;
      worker.prepare(job.events, job.session).then(
        (batch) => {
          counts.worker++;
          job.onWorker = true;
          job.settle(batch);
        },
        (e: unknown) => {
          // Values a thread cannot receive (a function in meta) are prepared here, as appendMany would.
          if (e instanceof NotTransferableError) prepareHere(job);
          else job.settle(e instanceof Error ? e : new Error(String(e)));
        },
      ).finally(() => {
        atWorker--;
        dispatch();
      });
    }
  };
  const finish = () => {
    open = false;
    target.setInBulk(false);
    const w = worker;
    worker = undefined;
    return w?.close();
  };
  const discard = () => {
    target.payloads.dropPending();
    target.dropPendingHead();
    target.db.rollback();
  };
  return {
    prepared: counts,
    get preparedOn() {
      return !submitted ? 'nothing submitted yet' : usedWorker ? 'worker' : 'this thread';
    },
    append: (events) => {
      ensureOpen();
      if (inFlight > 0) throw new InvalidInputError('await the submitted batches before appending synchronously');
      return target.appendMany(events);
    },
    submit: (events) => {
      ensureOpen();
      const job = newJob(events, target.session());
      // The first batch is prepared here: a bulk append of one batch never pays for a worker,
      // and nothing could be inserted before that batch anyway. The worker boots for the second,
      // while the first is inserted.
      if (submitted && !workerTried) {
        workerTried = true;
        worker = PrepareWorkerClient.start(target.preparerConfig, opts.workerDir);
        usedWorker = worker !== undefined;
      }
      if (!submitted || !worker) void Promise.resolve().then(() => prepareHere(job));
      else {
        waiting.push(job);
        dispatch();
      }
      submitted = true;
      inFlight++;
      const done = tail.then(async () => {
        if (failure !== undefined) throw failure;
        // A rollback meanwhile ended the transaction: inserting now would autocommit.
        const rolledBack = () => new InvalidInputError('this bulk append was rolled back');
        if (!open) throw rolledBack();
        // While this batch is still on the worker, prepare the next waiting ones here instead of
        // idling: on two cores the worker is often the slower side (see ARCHITECTURE.md). The
        // worker's replies arrive as messages, so the event loop turns before each check.
        for (;;) {
          if (!job.settled) await yieldToEventLoop();
          if (!open) throw rolledBack();
          if (job.settled || waiting.length === 0) break;
          prepareHere(waiting[0]); // the earliest waiting batch: this one, once its turn comes
        }
        const batch = await job.prepared;
        if (!open) throw rolledBack();
        // Flushing its payload files starts now, beside the inserts; commit() waits for it. The
        // worker flushes the files of the batches it prepared (commit() asks it to confirm).
        if (!job.onWorker) for (const p of batch.events) if (p.payload) target.payloads.syncSoon(p.payload);
        return target.insertRows(batch);
      });
      tail = done.then(
        () => { inFlight--; },
        (e: unknown) => {
          inFlight--;
          failure ??= e;
        },
      );
      done.catch(() => undefined); // the caller awaits it; commit() reports it too
      return done;
    },
    commit: async () => {
      ensureOpen();
      accepting = false;
      await tail; // batches submitted before commit() still land
      try {
        if (failure !== undefined) throw failure;
        // FTS5 writes out the postings it buffers (up to INDEX_BUFFER_BYTES) at a savepoint.
        // Done before waiting for the payload files, so both go on at once (both take
        // time on a large ingest); COMMIT would otherwise do it after.
        target.db.transaction(() => undefined);
        // An event never becomes durable before its payload file.
        await worker?.flush();
        await target.payloads.syncPending();
      } catch (e) {
        await finish();
        discard();
        throw e;
      }
      // The worker has nothing left to do: it stops while COMMIT runs.
      const closed = finish();
      try {
        target.db.commit();
      } catch (e) {
        target.dropPendingHead();
        throw e;
      } finally {
        await closed;
      }
      target.publishHead();
    },
    rollback: () => {
      if (!open) return;
      accepting = false;
      void finish();
      discard();
    },
  };
}
