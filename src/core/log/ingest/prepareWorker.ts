/**
 * Worker-thread entry for bulk ingest: prepares batches (EventPreparer) while the writer thread
 * inserts the previous one (messages: prepareMessages.ts). Loaded by PrepareWorkerClient from the
 * file beside it (out/ or the dist/ bundle).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EventPreparer, type PreparerConfig } from '../eventPreparer';
import { PayloadStore } from '../payloadStore';
import { Redactor } from '../redaction';
import { toWorkerError } from '../workerErrors';
import { SAME_BODY_AS_CONTENT, SAME_BODY_AS_STORED, SAME_STORED_AS_CONTENT, type Request } from './prepareMessages';

if (parentPort) {
  const port = parentPort;
  const config = workerData as PreparerConfig;
  const payloads = new PayloadStore(config.payloadDir);
  // The writer's redaction options, key included (or the log's key file): the identifier markers
  // (session, name, tool call id, meta keys) come out the same here as on the writer's thread.
  const preparer = new EventPreparer(new Redactor(config.redaction), payloads, config.payloadThreshold);
  port.on('message', (req: Request) => {
    if ('flush' in req) {
      // Each batch's files are queued for flushing right after its reply, and the queue flushes
      // in order: once it has drained this far, every file of every earlier batch is on disk. A
      // file that could not be flushed fails this and every later request, so the commit fails
      // and no event points at a payload that may not be on disk.
      payloads.syncPendingInOrder().then(
        () => port.postMessage({ id: req.id, flushed: true }),
        (e: unknown) => port.postMessage({ id: req.id, error: toWorkerError(e) }),
      );
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
    // is not sent, nor any string the writer has already: the content it sent, when redaction
    // left it as it was, and a body equal to `stored`.
    const same = new Uint8Array(batch.events.length);
    batch.events.forEach((p, i) => {
      const sent = req.events[i].content;
      const doc = batch.docs[i];
      p.content = '';
      p.meta = {};
      if (doc.body === sent) {
        same[i] |= SAME_BODY_AS_CONTENT;
        doc.body = '';
      } else if (doc.body === p.stored) {
        same[i] |= SAME_BODY_AS_STORED;
        doc.body = '';
      }
      if (p.stored === sent) {
        same[i] |= SAME_STORED_AS_CONTENT;
        p.stored = '';
      }
    });
    port.postMessage({ id: req.id, batch, same });
    // While the writer inserts this batch, its payload files go to disk off this thread, which
    // goes on with the next batch. The flush request above reports a failure.
    payloads.syncPendingInOrder().catch(() => undefined);
  });
}
