/**
 * The full check, the index rebuild and the index compaction without blocking the caller's thread:
 * at 10M tokens the check takes about a second and the rebuild about five, which in the editor
 * would freeze every extension and the chat for that long. They run on a worker thread with its own connection
 * (maintenanceWorker.ts). Where no worker can run (the worker file is not beside this bundle,
 * worker threads or the driver unavailable there), they run on this thread with the same result.
 *
 * While a rebuild holds the write lock, appends from other connections wait for it (busy_timeout
 * and retry), as they do for any writer.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CancelledError, ReadonlyLogError, ScrollError } from '../errors';
import type { EventLog } from './eventLog';
import type { MaintenanceJob } from './maintenanceWorker';
import { REBUILD_CANCELLED } from './rebuildIndex';
import type { LogVerification } from './verify';
import type { CompactResult } from './compactIndex';
import type { PurgeOptions, PurgeResult } from './purge';
import { fromWorkerError, type WorkerError } from './workerErrors';


export const MAINTENANCE_WORKER_FILE = 'maintenanceWorker.js';

/** `workerOnly` was asked and no worker could run the job (nothing was done). */
export class NoWorkerError extends ScrollError {
  constructor(task: string) {
    super(`no worker thread could run ${task} here; it was not run`, 'NO_WORKER');
  }
}

export interface BackgroundOptions {
  /** Events indexed so far and the total (rebuild only). */
  onProgress?: (done: number, total: number) => void;
  /** Each event indexed from its preview only (rebuild only); default: the log's warning channel. */
  onWarning?: (message: string) => void;
  /** Aborting ends the job with a `CancelledError`: a rebuild rolls back, a check stops. */
  signal?: AbortSignal;
  /** Told where the job runs, once it has started: on a worker, or here (the fallback). */
  onStarted?: (where: 'worker' | 'this thread') => void;
  /**
   * Only on a worker: when none can run, fail (`NoWorkerError`) instead of doing the job on this
   * thread (for optional background work that must never hold the caller's thread).
   */
  workerOnly?: boolean;
  /** Where the worker file is looked for (tests); default beside this module. */
  workerDir?: string;
  /** Rebuild only: only when the index was built by another INDEX_VERSION (resolves -1 when it was current). */
  onlyIfStale?: boolean;
}

/** `EventLog.verify()` off this thread. */
export function verifyInBackground(log: EventLog, opts: BackgroundOptions = {}): Promise<LogVerification> {
  return runJob(log, 'verify', opts, () => log.verify()) as Promise<LogVerification>;
}

/** `EventLog.rebuildIndex()` off this thread; resolves to the number of events indexed. */
export async function rebuildIndexInBackground(log: EventLog, opts: BackgroundOptions = {}): Promise<number> {
  if (log.readonly) throw new ReadonlyLogError();
  const indexed = (await runJob(
    log,
    'rebuildIndex',
    opts,
    () => log.rebuildIndex({ onWarning: opts.onWarning, onProgress: opts.onProgress, shouldStop: () => opts.signal?.aborted === true, onlyIfStale: opts.onlyIfStale }),
    { onlyIfStale: opts.onlyIfStale === true },
  )) as number;
  log.indexChanged();
  log.indexStale = false;
  return indexed;
}

/**
 * `EventLog.compactIndex()` off this thread. Aborting ends it between two steps and resolves with
 * what was merged so far (`stopped: true`): a partly compacted index is a valid one.
 */
export async function compactIndexInBackground(log: EventLog, opts: Omit<BackgroundOptions, 'onProgress' | 'onWarning'> = {}): Promise<CompactResult> {
  if (log.readonly) throw new ReadonlyLogError();
  return (await runJob(log, 'compactIndex', opts, () => log.compactIndex({ shouldStop: () => opts.signal?.aborted === true }))) as CompactResult;
}

/**
 * `EventLog.purge()` off this thread (the editor's purge command): the purge rebuilds the search
 * index, seconds at 10M tokens. Patterns as source strings. Not cancellable once it runs (it is
 * one transaction: an abort before it starts ends it with a CancelledError, nothing changed).
 */
export async function purgeInBackground(
  log: EventLog,
  request: Omit<PurgeOptions, 'headFiles' | 'patterns'> & { patterns?: string[] },
  opts: Omit<BackgroundOptions, 'onProgress' | 'onWarning'> = {},
): Promise<PurgeResult> {
  if (log.readonly) throw new ReadonlyLogError();
  const result = (await runJob(log, 'purge', opts, () => log.purge(request), { purge: request })) as PurgeResult;
  log.indexChanged();
  return result;
}

const CANCELLED: Record<MaintenanceJob['task'], string> = {
  verify: 'the history check was cancelled',
  purge: 'the purge was cancelled before it began; nothing was changed',
  rebuildIndex: REBUILD_CANCELLED,
  compactIndex: 'the search index compaction was cancelled before it began',
};
const cancelled = (task: MaintenanceJob['task']) => new CancelledError(CANCELLED[task]);

async function runJob(log: EventLog, task: MaintenanceJob['task'], opts: BackgroundOptions, inThread: () => unknown, extra: Partial<MaintenanceJob> = {}): Promise<unknown> {
  if (opts.signal?.aborted) throw cancelled(task);
  const file = join(opts.workerDir ?? __dirname, MAINTENANCE_WORKER_FILE);
  const job: MaintenanceJob = {
    task, path: log.path, payloadDir: log.payloads.dir, driver: log.driver as MaintenanceJob['driver'], stop: new SharedArrayBuffer(4),
    heads: log.headFiles, ...extra,
  };
  const outcome = existsSync(file) ? await runOnWorker(file, job, opts, log) : { ranOn: 'nowhere' as const };
  if (outcome.ranOn === 'worker') return outcome.result;
  // The worker could not start or open the log (no worker file, no worker threads, a driver that
  // loads here but not there): the same job here. A real problem with the log shows up here too.
  if (opts.signal?.aborted) throw cancelled(task);
  if (opts.workerOnly) throw new NoWorkerError(task);
  opts.onStarted?.('this thread');
  return inThread();
}

type Outcome = { ranOn: 'worker'; result: unknown } | { ranOn: 'nowhere' };

function runOnWorker(file: string, job: MaintenanceJob, opts: BackgroundOptions, log: EventLog): Promise<Outcome> {
  return new Promise<Outcome>((resolve, reject) => {
    let worker: Worker;
    try {
      worker = new Worker(file, { workerData: job });
    } catch {
      resolve({ ranOn: 'nowhere' });
      return;
    }
    let opened = false;
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      if (job.task === 'purge' && opened) {
        return; // one transaction, already running: it finishes
      } else if (job.task !== 'verify' && opened) {
        // Between two steps the worker sees this: a rebuild rolls back and reports a CancelledError,
        // a compaction ends with what it merged so far.
        Atomics.store(new Int32Array(job.stop), 0, 1);
      } else {
        // A check only reads: ending the thread is enough.
        void worker.terminate();
        settle(() => reject(cancelled(job.task)));
      }
    };
    opts.signal?.addEventListener('abort', onAbort);
    worker.on('message', (m: { type: string; done?: number; total?: number; message?: string; result?: unknown; error?: WorkerError }) => {
      if (m.type === 'opened') {
        opened = true;
        opts.onStarted?.('worker');
      }
      else if (m.type === 'progress') opts.onProgress?.(m.done ?? 0, m.total ?? 0);
      else if (m.type === 'warning') (opts.onWarning ?? log.warn.bind(log))(m.message ?? '');
      else if (m.type === 'done') settle(() => resolve({ ranOn: 'worker', result: m.result }));
      else if (m.type === 'error') settle(() => (opened ? reject(fromWorkerError(m.error, 'the maintenance worker failed')) : resolve({ ranOn: 'nowhere' })));
    });
    worker.on('error', (e) => settle(() => (opened ? reject(e) : resolve({ ranOn: 'nowhere' }))));
    worker.on('exit', (code) =>
      settle(() => (opened ? reject(new ScrollError(`the maintenance worker stopped before finishing (exit code ${code})`)) : resolve({ ranOn: 'nowhere' }))),
    );
  });
}
