import { createWriteStream, type WriteStream } from 'node:fs';
import { InvalidInputError } from '../../core/errors';
import type { EventLog } from '../../core/log/eventLog';
import type { LogEvent } from '../../core/types';
import { UsageError, stringOption, type Command } from '../command';
import { eventToJson } from '../eventJson';
import { openForReading } from '../openLog';

/** A code fence longer than any backtick run inside `text`, so the content cannot close it. */
function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

const VERBATIM_KINDS = new Set(['tool_call', 'tool_result', 'kernel_exec', 'kernel_output']);

export function eventToMarkdown(e: LogEvent): string {
  const title = [`#${e.seq}`, e.role, e.kind.replace(/_/g, ' ')];
  if (e.name) title.push(`\`${e.name}\``);
  const out = [`### ${title.join(' · ')}`, `<sub>${e.ts}</sub>`, ''];
  if (e.headline) out.push(`> **${e.headline}**`, '');
  if (VERBATIM_KINDS.has(e.kind)) {
    const fence = fenceFor(e.content);
    const lang = e.kind === 'kernel_exec' ? 'python' : 'text';
    out.push(`${fence}${lang}`, e.content, fence);
  } else {
    out.push(e.content);
  }
  out.push('');
  return out.join('\n') + '\n';
}

function* eventsOf(log: EventLog, session: string | undefined): Generator<LogEvent> {
  if (session !== undefined) {
    yield* log.iterateSession(session);
    return;
  }
  const max = log.maxSeq();
  for (let from = 1; from <= max; from += 500) yield* log.range(from, Math.min(max, from + 499));
}

export const command: Command = {
  name: 'export',
  summary: 'a session as a Markdown transcript or as JSONL that ingest reads back',
  usage: `usage: scroll export [--session S] --format md|jsonl [--out FILE] [--db P]

--format md     a readable Markdown transcript
--format jsonl  one event per line; \`scroll ingest\` reads it back identically
Without --session, every session is exported in seq order.`,
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
      if (format === 'md') {
        const info = session === undefined ? undefined : log.sessions().find((s) => s.session === session);
        write(`# Scroll transcript${session === undefined ? '' : `: \`${session}\``}\n\n`);
        if (info) write(`${info.events} events, seq ${info.firstSeq}..${info.lastSeq}, ${info.firstTs} – ${info.lastTs}\n\n`);
      }
      for (const e of eventsOf(log, session)) {
        write(format === 'md' ? eventToMarkdown(e) : JSON.stringify(eventToJson(e)) + '\n');
      }
      if (file) {
        const f = file;
        await new Promise<void>((ok, fail) => {
          f.once('error', fail);
          f.end(() => ok());
        });
      }
      return 0;
    } finally {
      log.close();
    }
  },
};
