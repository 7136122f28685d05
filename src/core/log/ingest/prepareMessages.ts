/**
 * Messages between the writer thread (prepareWorkerClient.ts) and the ingest worker
 * (prepareWorker.ts).
 */
import type { PreparedBatch } from '../eventPreparer';
import type { NewEvent } from '../../types';
import type { WorkerError } from '../workerErrors';

export type Request = { id: number; events: NewEvent[]; session: string } | { id: number; flush: true };

export interface Reply {
  id: number;
  /** Answer to flush(): every payload file of the batches before it is on disk. */
  flushed?: true;
  /**
   * Without each event's `content` and `meta` (the writer inserts `stored` and `metaJson`), and
   * without the strings `same` marks: the writer has them already.
   */
  batch?: PreparedBatch;
  /** Per event, SAME_* bits: which strings of the batch were left out, and what they equal. */
  same?: Uint8Array;
  error?: WorkerError;
}

/**
 * Strings a prepared event shares with what the writer thread already holds, so the worker does not
 * send them back: copying them between threads is the writer's time, and an event's row and index
 * body are most often exactly the content it was given (nothing redacted, no fenced code).
 */
export const SAME_STORED_AS_CONTENT = 1; // `stored` is the content the writer sent
export const SAME_BODY_AS_CONTENT = 2; // the document's body is the content the writer sent
export const SAME_BODY_AS_STORED = 4; // the document's body is `stored` (sent, or restored first)
