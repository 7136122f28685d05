/**
 * Worker-thread entry for bulk ingest: prepares batches (EventPreparer) while the writer thread
 * inserts the previous one. Messages in: {id, events, session}; out: {id, batch} or {id, error}.
 * Loaded by PrepareWorkerClient from the file beside it (out/ or the dist/ bundle).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EventPreparer, type PreparerConfig } from './eventPreparer';
import type { NewEvent } from '../types';

interface Request {
  id: number;
  events: NewEvent[];
  session: string;
}

if (parentPort) {
  const port = parentPort;
  const preparer = EventPreparer.fromConfig(workerData as PreparerConfig);
  port.on('message', (req: Request) => {
    try {
      // Payload files are written unsynced; the writer syncs them before the commit.
      const batch = preparer.prepare(req.events, req.session, true);
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
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      port.postMessage({ id: req.id, error: { name: err.name, message: err.message, code: (err as { code?: unknown }).code } });
    }
  });
}
