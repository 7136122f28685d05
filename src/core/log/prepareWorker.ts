/**
 * Worker-thread entry for bulk ingest: prepares batches (EventPreparer) while the writer thread
 * inserts the previous one. Messages in: {id, events, session} or {id, flush}; out: {id, batch},
 * {id, flushed} or {id, error}. Loaded by PrepareWorkerClient from the file beside it (out/ or
 * the dist/ bundle).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EventPreparer, type PreparerConfig } from './eventPreparer';
import { PayloadStore } from './payloadStore';
import { Redactor } from './redaction';
import type { NewEvent } from '../types';
import { toWorkerError } from './workerErrors';

type Request = { id: number; events: NewEvent[]; session: string } | { id: number; flush: true };

if (parentPort) {
  const port = parentPort;
  const config = workerData as PreparerConfig;
  const payloads = new PayloadStore(config.payloadDir);
  const preparer = new EventPreparer(new Redactor(config.redaction), payloads, config.payloadThreshold);
  // The first payload file that could not be flushed; every later flush request reports it, so
  // the commit fails and no event points at a payload that may not be on disk.
  let syncFailure: unknown;
  port.on('message', (req: Request) => {
    if ('flush' in req) {
      // Messages are handled in order and each batch's files are flushed right after its reply,
      // so by now every file of every batch before this request is on disk (or syncFailure says why).
      port.postMessage(syncFailure === undefined ? { id: req.id, flushed: true } : { id: req.id, error: toWorkerError(syncFailure) });
      return;
    }
    let batch;
    try {
      // Payload files are written unsynced and flushed below, after the writer has the batch.
      batch = preparer.prepare(req.events, req.session, true);
    } catch (e) {
      port.postMessage({ id: req.id, error: toWorkerError(e) });
      return;
    }
    // The writer needs the rows and the index text only. Copying strings between threads costs
    // the writer's thread time, so the full content (the row's `stored`, or in the payload file)
    // and a body equal to `stored` are not sent twice.
    const bodyIsStored = new Uint8Array(batch.events.length);
    batch.events.forEach((p, i) => {
      p.content = '';
      p.meta = {};
      if (batch.docs[i].body === p.stored) {
        bodyIsStored[i] = 1;
        batch.docs[i].body = '';
      }
    });
    port.postMessage({ id: req.id, batch, bodyIsStored });
    // While the writer inserts this batch, its payload files go to disk on this thread.
    if (syncFailure === undefined) {
      try {
        payloads.syncPendingNow();
      } catch (e) {
        syncFailure = e;
      }
    }
  });
}
