import { InvalidInputError } from '../../core/errors';
import type { ReadEvent } from '../../core/log/eventLog';
import { previewOnlyNote, previewOnlySeqs } from '../../core/log/previewOnly';
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

function printEvent(io: CliIO, e: ReadEvent): void {
  const head = [`#${e.seq}`, e.ts, e.session, `${e.kind}/${e.role}`];
  if (e.name) head.push(e.name);
  io.stdout(`── ${head.join('  ')}\n`);
  if (e.headline) io.stdout(`headline: ${e.headline}\n`);
  const note = previewOnlyNote(e);
  if (note) io.stdout(`[${note}]\n`);
  io.stdout(e.content.endsWith('\n') ? e.content : e.content + '\n');
}

/** One line on stderr for the events a command could give only as their preview. */
export function partialSummary(seqs: number[]): string {
  const list = seqs.slice(0, 20).join(', ') + (seqs.length > 20 ? ', …' : '');
  return `${seqs.length} event(s) given from their stored preview only, their payload file missing or damaged (seq ${list}); scroll check lists them all`;
}

export const command: Command = {
  name: 'show',
  summary: 'print full events (payloads resolved): SEQ or A..B',
  usage: `usage: scroll show SEQ | A..B [--db P] [--json]

Prints the exact, untruncated events. --json prints one JSON array of events.
An event whose payload file cannot be read is printed from its stored preview, marked so
(payload_error in --json); then the exit status is 1.`,
  options: {},
  run(ctx) {
    if (ctx.positionals.length !== 1) throw new UsageError('show expects one SEQ or A..B');
    const { from, to, single } = parseSeqSpec(ctx.positionals[0]);
    const log = openForReading(ctx);
    try {
      const events = single ? log.expand(from, { keepPreview: true }) : log.range(from, to, { keepPreview: true });
      if (events.length === 0) {
        const max = log.maxSeq();
        throw new InvalidInputError(`no events in ${from}..${to} (the log holds ${max ? `1..${max}` : 'no events'})`);
      }
      if (ctx.json) ctx.io.stdout(JSON.stringify(events.map(eventToJson)) + '\n');
      else for (const e of events) printEvent(ctx.io, e);
      const partial = previewOnlySeqs(events);
      if (partial.length) ctx.io.stderr(`scroll show: ${partialSummary(partial)}\n`);
      return partial.length ? 1 : 0;
    } finally {
      log.close();
    }
  },
};
