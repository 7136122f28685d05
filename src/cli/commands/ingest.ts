import { EventLog } from '../../core/log/eventLog';
import { InvalidInputError } from '../../core/errors';
import type { NewEvent } from '../../core/types';
import { UsageError, stringOption, writeJson, type Command } from '../command';
import { jsonToNewEvent } from '../eventJson';
import { readJsonLines } from '../jsonl';

/** Events per appendMany call: large enough to amortise per-call cost, small enough to stay lean. */
const BATCH = 5000;

export const command: Command = {
  name: 'ingest',
  summary: 'append events from a JSONL file (or - for stdin)',
  usage: `usage: scroll ingest FILE.jsonl|- [--db P] [--session S] [--no-redact]

One event per line: {"kind", "role", "content"} required; "session", "name", "ts", "meta",
"headline", "step", "tool_call_id", "parent_seq" optional ("seq", "bytes", "tokens", "payload"
from an export are ignored: they are assigned anew). The whole file is one transaction: a bad
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
    // Parse and validate the whole input first (streamed line by line), so a bad line anywhere
    // leaves the log untouched.
    const events: NewEvent[] = [];
    const lines: number[] = [];
    const unknown = new Set<string>();
    const label = source === '-' ? 'stdin' : source;
    for await (const { line, value } of readJsonLines(source, ctx.io.stdin, label)) {
      events.push(jsonToNewEvent(value, `line ${line} of ${label}`, unknown));
      lines.push(line);
    }
    if (unknown.size) ctx.io.stderr(`scroll ingest: ignored unknown field(s): ${[...unknown].sort().join(', ')}\n`);
    const log = EventLog.open({
      path: ctx.dbPath,
      session: stringOption(ctx.values, 'session'),
      redact: ctx.values['no-redact'] !== true,
      onWarning: (m) => ctx.io.stderr(`scroll: ${m}\n`),
    });
    try {
      let first: number | null = null;
      let last: number | null = null;
      log.database.transaction(() => {
        for (let i = 0; i < events.length; i += BATCH) {
          let appended;
          try {
            appended = log.appendMany(events.slice(i, i + BATCH));
          } catch (e) {
            // appendMany names "event N" of the batch; say which input line that was.
            if (e instanceof InvalidInputError) {
              const m = /^event(?: (\d+))?/.exec(e.message);
              const line = m ? lines[i + (m[1] ? Number(m[1]) - 1 : 0)] : undefined;
              if (line !== undefined) throw new InvalidInputError(`line ${line} of ${label}${e.message.slice(m![0].length)}`);
            }
            throw e;
          }
          if (appended.length) {
            first ??= appended[0].seq;
            last = appended[appended.length - 1].seq;
          }
        }
      });
      writeJson(ctx.io, { appended: events.length, first_seq: first, last_seq: last });
      return 0;
    } finally {
      log.close();
    }
  },
};
