import { InvalidInputError } from '../../core/errors';
import type { LogEvent } from '../../core/types';
import { readSeqSpec } from '../../shared/seqSpec';
import { UsageError, type Command, type CliIO } from '../command';
import { eventToJson } from '../eventJson';
import { openForReading } from '../openLog';

/** `12` → [12, 12]; `3..7` → [3, 7]; every form of `readSeqSpec` (`#12`, `3-7`, `3 to 7`, …). */
export function parseSeqSpec(spec: string): { from: number; to: number; single: boolean } {
  const r = readSeqSpec(spec);
  if (!r.ok) throw new UsageError(r.reason === 'range' ? `seq out of range: "${spec}"` : `expected SEQ or A..B (got "${spec}")`);
  if (r.to < r.from) throw new UsageError(`empty range ${r.from}..${r.to} (the end is before the start)`);
  return { from: r.from, to: r.to, single: r.single };
}

function printEvent(io: CliIO, e: LogEvent): void {
  const head = [`#${e.seq}`, e.ts, e.session, `${e.kind}/${e.role}`];
  if (e.name) head.push(e.name);
  io.stdout(`── ${head.join('  ')}\n`);
  if (e.headline) io.stdout(`headline: ${e.headline}\n`);
  io.stdout(e.content.endsWith('\n') ? e.content : e.content + '\n');
}

export const command: Command = {
  name: 'show',
  summary: 'print full events (payloads resolved): SEQ or A..B',
  usage: `usage: scroll show SEQ | A..B [--db P] [--json]

Prints the exact, untruncated events. --json prints one JSON array of events.`,
  options: {},
  run(ctx) {
    if (ctx.positionals.length !== 1) throw new UsageError('show expects one SEQ or A..B');
    const { from, to, single } = parseSeqSpec(ctx.positionals[0]);
    const log = openForReading(ctx);
    try {
      const events = single ? log.expand(from) : log.range(from, to);
      if (events.length === 0) {
        const max = log.maxSeq();
        throw new InvalidInputError(`no events in ${from}..${to} (the log holds ${max ? `1..${max}` : 'no events'})`);
      }
      if (ctx.json) ctx.io.stdout(JSON.stringify(events.map(eventToJson)) + '\n');
      else for (const e of events) printEvent(ctx.io, e);
      return 0;
    } finally {
      log.close();
    }
  },
};
