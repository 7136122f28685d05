import { createWriteStream, type WriteStream } from 'node:fs';
import { InvalidInputError } from '../../core/errors';
import type { EventLog } from '../../core/log/eventLog';
import { exportEvent, exportHeader, type ExportSpan } from '../../core/log/sessionMarkdown';
import type { ReadEvent } from '../../core/log/eventLog';
import type { SessionInfo } from '../../core/types';
import { partialSummary } from './show';
import { UsageError, stringOption, type Command } from '../command';
import { eventToJson } from '../eventJson';
import { openForReading } from '../openLog';

/** Every event (of `session`), in seq order; one whose payload file cannot be read as its preview, marked. */
function* eventsOf(log: EventLog, session: string | undefined): Generator<ReadEvent> {
  if (session !== undefined) {
    yield* log.iterateSession(session, 500, { keepPreview: true });
    return;
  }
  const max = log.maxSeq();
  for (let from = 1; from <= max; from += 500) yield* log.range(from, Math.min(max, from + 499), { keepPreview: true });
}

/** The whole log's span, from its sessions; undefined when the log is empty. */
function spanOfAll(sessions: SessionInfo[]): ExportSpan | undefined {
  if (!sessions.length) return undefined;
  return sessions.reduce((a, s) => ({
    events: a.events + s.events,
    firstSeq: Math.min(a.firstSeq, s.firstSeq),
    lastSeq: Math.max(a.lastSeq, s.lastSeq),
    firstTs: s.firstTs < a.firstTs ? s.firstTs : a.firstTs,
    lastTs: s.lastTs > a.lastTs ? s.lastTs : a.lastTs,
  }), { events: 0, firstSeq: Infinity, lastSeq: 0, firstTs: sessions[0].firstTs, lastTs: sessions[0].lastTs });
}

export const command: Command = {
  name: 'export',
  summary: 'a session as a Markdown transcript or as JSONL that ingest reads back',
  usage: `usage: scroll export [--session S] --format md|jsonl [--out FILE] [--db P]

--format md     a readable Markdown transcript
--format jsonl  one event per line; \`scroll ingest\` reads it back identically
Without --session, every session is exported in seq order. An event whose payload file cannot be
read is exported from its stored preview, marked so (payload_error in jsonl); then the exit
status is 1.`,
  options: {
    session: { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string' },
  },
  async run(ctx) {
    if (ctx.positionals.length) throw new UsageError(`export takes no positional arguments (got "${ctx.positionals[0]}")`);
    const format = stringOption(ctx.values, 'format') ?? (ctx.json ? 'jsonl' : undefined);
    if (format !== 'md' && format !== 'jsonl') throw new UsageError('export needs --format md or --format jsonl');
    const session = stringOption(ctx.values, 'session');
    const outPath = stringOption(ctx.values, 'out');
    const log = openForReading(ctx);
    let file: WriteStream | undefined;
    try {
      if (session !== undefined && !log.sessions().some((s) => s.session === session)) {
        throw new InvalidInputError(`no session "${session}" in ${log.path}`);
      }
      // Collect in chunks and write through one sink, so --out and stdout behave alike.
      file = outPath ? createWriteStream(outPath) : undefined;
      const write = (t: string) => (file ? file.write(t) : ctx.io.stdout(t));
      // The editor's "Scroll: Export Session" writes the same Markdown (src/core/log/sessionMarkdown.ts).
      const all = session === undefined;
      if (format === 'md') {
        const sessions = log.sessions();
        const info = all ? undefined : sessions.find((s) => s.session === session);
        const span = all ? spanOfAll(sessions) : info;
        write(exportHeader(session, span));
      }
      const partial: number[] = [];
      for (const e of eventsOf(log, session)) {
        if (e.payloadError !== undefined) partial.push(e.seq);
        write(format === 'md' ? exportEvent(e, { withSession: all }) : JSON.stringify(eventToJson(e)) + '\n');
      }
      if (file) {
        const f = file;
        await new Promise<void>((ok, fail) => {
          f.once('error', fail);
          f.end(() => ok());
        });
      }
      if (partial.length) ctx.io.stderr(`scroll export: ${partialSummary(partial)}\n`);
      return partial.length ? 1 : 0;
    } finally {
      log.close();
    }
  },
};
