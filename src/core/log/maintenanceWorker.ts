/**
 * Worker-thread entry for the long maintenance jobs (full check, index rebuild, compaction), so the thread
 * that asked — the editor's extension host — stays responsive. The worker opens its own connection
 * to the log (read-only for the check) and never repairs or moves the file: opening for writing
 * and recovery stay with the EventLog that the caller already has. Loaded by maintenance.ts from
 * the file beside it (out/ or the dist/ bundle).
 * In: workerData {task, path, payloadDir, driver, stop}. Out: {type: 'opened' | 'progress' |
 * 'warning' | 'done' | 'error', ...}.
 */
import { existsSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase, type Database, type DriverName } from '../db';
import { DatabaseError } from '../errors';
import { PayloadStore } from './payloadStore';
import { rebuildSearchIndex } from './rebuildIndex';
import { compactSearchIndex } from './compactIndex';
import { verifyLog } from './verify';
import { purgeLog, type PurgeOptions } from './purge';
import { publishHead } from './recovery';
import { readMeta } from './chain';
import { toWorkerError } from './workerErrors';

export interface MaintenanceJob {
  task: 'verify' | 'rebuildIndex' | 'compactIndex' | 'purge';
  path: string;
  payloadDir: string;
  driver: DriverName;
  /** Int32Array view: set to 1 to ask a rebuild or a compaction to stop between steps. */
  stop: SharedArrayBuffer;
  /** The log's head files (`<db>.head.json`, then mirrors): compared by the check, written by a purge. */
  heads?: string[];
  /** Rebuild only when the index was built by another INDEX_VERSION (task 'rebuildIndex'). */
  onlyIfStale?: boolean;
  /** What to purge (task 'purge'); patterns as source strings. */
  purge?: Omit<PurgeOptions, 'headFiles' | 'patterns'> & { patterns?: string[] };
}

if (parentPort) {
  const port = parentPort;
  const job = workerData as MaintenanceJob;
  const stop = new Int32Array(job.stop);
  let db: Database | undefined;
  try {
    // Opening for writing would create a missing file: the log must be where the caller has it.
    if (!existsSync(job.path)) throw new DatabaseError(`no event log at ${job.path}`);
    const readonly = job.task === 'verify';
    db = openDatabase(job.path, { readonly, driver: job.driver });
    port.postMessage({ type: 'opened' });
    const payloads = new PayloadStore(job.payloadDir, readonly);
    const shouldStop = () => Atomics.load(stop, 0) !== 0;
    const result =
      job.task === 'verify'
        ? verifyLog(db, payloads, { headFiles: job.heads })
        : job.task === 'purge'
          ? purgeHere(db, payloads, job)
        : job.task === 'compactIndex'
          ? compactSearchIndex(db, { shouldStop })
          : rebuildSearchIndex(db, payloads, {
            onWarning: (message) => port.postMessage({ type: 'warning', message }),
            onProgress: (done, total) => port.postMessage({ type: 'progress', done, total }),
            shouldStop,
            onlyIfStale: job.onlyIfStale,
          });
    port.postMessage({ type: 'done', result });
  } catch (e) {
    port.postMessage({ type: 'error', error: toWorkerError(e) });
  } finally {
    db?.close();
  }
}

/** A purge on this worker's connection; the new head goes to the head files like an append's. */
function purgeHere(db: Database, payloads: PayloadStore, job: MaintenanceJob) {
  if (!job.purge) throw new DatabaseError('purge job without a request');
  const result = purgeLog(db, payloads, { ...job.purge, headFiles: job.heads });
  const logId = readMeta(db, 'log_id');
  if (logId) publishHead(job.heads ?? [], logId, result.head, (file, e) => result.warnings.push(`cannot record the log's head in ${file}: ${e instanceof Error ? e.message : String(e)}`));
  return result;
}
