/**
 * The writer thread's side of prepareWorker.ts: posts batches, returns their preparation as
 * promises in submission order. When the worker file is absent (a bundle built without it) or
 * worker threads are unavailable, `start` returns undefined and the caller prepares in-thread.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ScrollError } from '../../errors';
import type { NewEvent } from '../../types';
import type { PreparedBatch, PreparerConfig } from '../eventPreparer';
import { SAME_BODY_AS_CONTENT, SAME_BODY_AS_STORED, SAME_STORED_AS_CONTENT, type Reply } from './prepareMessages';
import { fromWorkerError } from '../workerErrors';

export const PREPARE_WORKER_FILE = 'prepareWorker.js';

/** The batch could not be posted to the worker (structured clone refused a value in it). */
export class NotTransferableError extends Error {
  constructor(cause: unknown) {
    super(`events cannot be sent to the ingest worker: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

export class PrepareWorkerClient {
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (b: PreparedBatch | undefined) => void; reject: (e: Error) => void; contents?: unknown[] }
  >();
  private failure?: Error;

  private constructor(private readonly worker: Worker) {
    // Only a batch being prepared keeps the process alive: a bulk append left open (never
    // committed or rolled back) must not hang the process on an idle worker.
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const w = this.waiting.get(reply.id);
      if (!w) return;
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      if (reply.flushed) {
        w.resolve(undefined);
      } else if (reply.batch) {
        const { events, docs } = reply.batch;
        const contents = w.contents ?? [];
        reply.same?.forEach((same, i) => {
          // The worker compared with its copy of these very strings (a string cannot change).
          if (same & SAME_STORED_AS_CONTENT) events[i].stored = contents[i] as string;
          if (same & SAME_BODY_AS_CONTENT) docs[i].body = contents[i] as string;
          else if (same & SAME_BODY_AS_STORED) docs[i].body = events[i].stored;
        });
        w.resolve(reply.batch);
      } else {
        w.reject(fromWorkerError(reply.error, 'the ingest worker failed'));
      }
    });
    // A crashed worker fails everything it still owes; nothing it prepared was inserted yet.
    worker.on('error', (e) => this.fail(e));
    worker.on('exit', (code) => this.fail(new ScrollError(`the ingest worker stopped (exit code ${code})`)));
  }

  private fail(e: Error): void {
    this.failure ??= e;
    for (const w of this.waiting.values()) w.reject(this.failure);
    this.waiting.clear();
    this.worker.unref();
  }

  static start(config: PreparerConfig, dir = __dirname): PrepareWorkerClient | undefined {
    const file = join(dir, PREPARE_WORKER_FILE);
    if (!existsSync(file)) return undefined;
    try {
      return new PrepareWorkerClient(new Worker(file, { workerData: config }));
    } catch {
      return undefined;
    }
  }

  /**
   * Prepares a batch on the worker. The worker writes its payload files unsynced and flushes
   * them itself once the batch is handed over; `flush()` confirms they are on disk.
   */
  prepare(events: NewEvent[], session: string): Promise<PreparedBatch> {
    // The contents as posted now: the caller may change its event objects before the reply, and
    // what the worker leaves out of its reply is what it was sent. (Not an array: the worker
    // rejects it, as appendMany does.)
    const contents = Array.isArray(events) ? events.map((e) => (e as Partial<NewEvent> | null | undefined)?.content) : [];
    return this.request({ events, session }, contents) as Promise<PreparedBatch>;
  }

  /** Resolves once every payload file of every batch prepared so far is on disk. */
  async flush(): Promise<void> {
    await this.request({ flush: true });
  }

  private request(body: object, contents?: unknown[]): Promise<PreparedBatch | undefined> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<PreparedBatch | undefined>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, contents });
      this.worker.ref();
      try {
        this.worker.postMessage({ id, ...body });
      } catch (e) {
        // A value structured clone refuses (a function in meta): the caller prepares in-thread.
        this.waiting.delete(id);
        if (this.waiting.size === 0) this.worker.unref();
        reject(new NotTransferableError(e));
      }
    });
  }

  async close(): Promise<void> {
    this.fail(new ScrollError('the ingest worker was closed'));
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}
