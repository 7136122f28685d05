import type { BulkAppend } from '../../core/log/eventLog';
import { InvalidInputError } from '../../core/errors';
import type { NewEvent } from '../../core/types';
import { UsageError, stringOption, writeJson, type Command } from '../command';
import { jsonToNewEvent } from '../eventJson';
import { readJsonLines } from '../jsonl';
import { openForWriting } from '../openLog';

/** Events per batch: large enough to amortise per-batch cost, small enough to pipeline. */
const BATCH = 1000;
/**
 * Batches submitted but not yet inserted, beyond the one inserting: two held by the worker, and
 * two more that this thread prepares itself when their turn comes before the worker reaches them.
 */
const IN_FLIGHT = 4;

export const command: Command = {
  name: 'ingest',
  summary: 'append events from a JSONL file (or - for stdin)',
  usage: `usage: scroll ingest FILE.jsonl|- [--db P] [--session S] [--no-redact]

One event per line: {"kind", "role", "content"} required; "session", "name", "ts", "meta",
"headline", "step", "tool_call_id", "parent_seq" optional ("seq", "bytes", "tokens", "payload"
from an export are ignored: they are assigned anew). The whole input is one transaction: a bad
line aborts the ingest with an error naming it, and nothing is written.
Prints {"appended", "first_seq", "last_seq"}.
  --session S   session for lines that do not name one (default: a new session id)
  --no-redact   store secrets as given (redaction is on by default)`,
  options: {
    session: { type: 'string' },
    'no-redact': { type: 'boolean' },
  },
  async run(ctx) {
    if (ctx.positionals.length !== 1) throw new UsageError('ingest expects one FILE.jsonl (or - for stdin)');
    const source = ctx.positionals[0];
    const label = source === '-' ? 'stdin' : source;
    const lines = readJsonLines(source, ctx.io.stdin, label);
    // Read the first line before opening the log: a missing or unreadable file creates nothing.
    const firstLine = await lines.next();
    const log = openForWriting(ctx, {
      session: stringOption(ctx.values, 'session'),
      redact: ctx.values['no-redact'] !== true,
    });
    let bulk: BulkAppend | undefined;
    try {
      const unknown = new Set<string>();
      let batch: NewEvent[] = [];
      let batchLines: number[] = [];
      let appended = 0;
      let first: number | null = null;
      let last: number | null = null;
      // Batches are prepared on a worker thread while earlier ones are inserted; at most
      // IN_FLIGHT wait at once, so memory stays bounded however long the input.
      const inFlight: Promise<void>[] = [];
      const flush = () => {
        if (batch.length === 0) return;
        bulk ??= log.beginBulk();
        const lineOf = batchLines;
        const done = bulk.submit(batch).then(
          (seqs) => {
            first ??= seqs[0];
            last = seqs[seqs.length - 1];
            appended += seqs.length;
          },
          (e: unknown) => {
            // The preparer names "event N" of the batch; say which input line that was.
            const m = e instanceof InvalidInputError ? /^event(?: (\d+))?/.exec(e.message) : null;
            if (m) throw new InvalidInputError(`line ${lineOf[m[1] ? Number(m[1]) - 1 : 0]} of ${label}${e instanceof Error ? e.message.slice(m[0].length) : ''}`);
            throw e;
          },
        );
        done.catch(() => undefined); // awaited below, in order
        inFlight.push(done);
        batch = [];
        batchLines = [];
      };
      // Lines stream in; each batch joins the one transaction.
      for (let next = firstLine; !next.done; next = await lines.next()) {
        const { line, value } = next.value;
        batch.push(jsonToNewEvent(value, `line ${line} of ${label}`, unknown));
        batchLines.push(line);
        if (batch.length >= BATCH) {
          flush();
          if (inFlight.length > IN_FLIGHT) await inFlight.shift();
        }
      }
      flush();
      for (const done of inFlight) await done;
      await bulk?.commit();
      if (unknown.size) ctx.io.stderr(`scroll ingest: ignored unknown field(s): ${[...unknown].sort().join(', ')}\n`);
      writeJson(ctx.io, { appended, first_seq: first, last_seq: last });
      return 0;
    } catch (e) {
      bulk?.rollback();
      throw e;
    } finally {
      log.close();
    }
  },
};
