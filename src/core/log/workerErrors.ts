/**
 * Errors across a worker-thread boundary. Structured clone keeps neither an error's class nor its
 * `code`, so the worker sends {name, message, code} and the caller rebuilds the class its name
 * says: the ingest worker (prepareWorker.ts) and the maintenance worker (maintenanceWorker.ts).
 */
import { CancelledError, DatabaseError, InvalidInputError, PayloadError, ReadonlyLogError, ScrollError } from '../errors';

export interface WorkerError {
  name: string;
  message: string;
  code?: unknown;
}

/** What the worker posts for `e`. */
export function toWorkerError(e: unknown): WorkerError {
  const err = e instanceof Error ? e : new Error(String(e));
  return { name: err.name, message: err.message, code: (err as { code?: unknown }).code };
}

/** The error again on the caller's side; `fallback` when the worker sent no message. */
export function fromWorkerError(e: WorkerError | undefined, fallback: string): Error {
  const message = e?.message ?? fallback;
  switch (e?.name) {
    case 'CancelledError':
      return new CancelledError(message);
    case 'DatabaseError':
      return new DatabaseError(message);
    case 'InvalidInputError':
      return new InvalidInputError(message);
    case 'PayloadError':
      return new PayloadError(message, '');
    case 'ReadonlyLogError':
      return new ReadonlyLogError(message);
    default:
      return new ScrollError(message, typeof e?.code === 'string' ? e.code : undefined);
  }
}
