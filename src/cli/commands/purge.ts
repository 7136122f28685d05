import { UsageError, writeJson, type Command } from '../command';
import { openForWriting } from '../openLog';
import { shortHash } from '../../core/log/chain';
import { DEFAULT_REPLACEMENT } from '../../core/log/purge';
import { readSeqSpec } from '../../shared/seqSpec';

export const command: Command = {
  name: 'purge',
  summary: 'replace a secret in named events, their payloads and the index (recorded; the chain stays verifiable)',
  usage: `usage: scroll purge --seq 12,15[,20..25] (--text TEXT | --pattern REGEX)... [--replacement R] [--db P] [--json]

For a secret that got into the log anyway. Replaces every occurrence of each --text (exact) and
each --pattern (a JavaScript regular expression) in the named events: every stored field, the
payload file (rewritten under a new name, the old one removed unless another event still points at
it), and the search index (rebuilt, so its old words are gone). Then the chain is recomputed from
the first purged seq and a "purge" event records which seqs, how many replacements, a sha256 of
each text or pattern (never the text itself) and the chain's old and new heads, so \`scroll check\`
accepts the rewrite. The one sanctioned rewrite of the log; nothing the agent runs can reach it.
Default replacement "${DEFAULT_REPLACEMENT}". Refused when \`scroll check\` would find the log
already tampered with (a purge would hide it). Copies outside the live file (logs moved aside
after damage, backups) are named, not changed. --json prints the result.`,
  options: {
    seq: { type: 'string', multiple: true },
    text: { type: 'string', multiple: true },
    pattern: { type: 'string', multiple: true },
    replacement: { type: 'string' },
  },
  run(ctx) {
    if (ctx.positionals.length) throw new UsageError('purge takes no positional arguments (use --seq and --text or --pattern)');
    const list = (name: string): string[] => {
      const v = ctx.values[name];
      return v === undefined ? [] : (Array.isArray(v) ? v : [v]).map(String);
    };
    const seqs = list('seq').flatMap(parseSeqs);
    if (seqs.length === 0) throw new UsageError('purge needs --seq (the events to purge, e.g. --seq 12,15 or --seq 20..25)');
    const texts = list('text');
    const patterns = list('pattern');
    if (!texts.length && !patterns.length) throw new UsageError('purge needs --text TEXT or --pattern REGEX');
    const replacement = ctx.values.replacement === undefined ? undefined : String(ctx.values.replacement);
    const log = openForWriting(ctx);
    try {
      const r = log.purge({ seqs, texts, patterns, replacement });
      if (ctx.json) {
        writeJson(ctx.io, r);
      } else {
        const lines = [
          `purged     ${r.replacements} occurrence(s) in event(s) ${r.events.map((e) => e.seq).join(', ')}` + (r.unchanged.length ? ` (nothing matched in ${r.unchanged.join(', ')})` : ''),
          ...r.events.map((e) => `  seq ${e.seq}: ${e.replacements} in ${[...new Set(e.fields)].join(', ')}${e.payload ? `; payload ${shortHash(e.payload.from)} -> ${shortHash(e.payload.to)}` : ''}`),
          `chain      recomputed from seq ${r.rechainedFrom}; head ${r.oldHead ? `${r.oldHead.seq} ${shortHash(r.oldHead.hash)}` : 'none'} -> ${r.head.seq} ${shortHash(r.head.hash)}`,
          `recorded   purge event ${r.seq}`,
          `payloads   ${r.payloadsRemoved.length} old file(s) removed` + (r.payloadsKept.length ? `, ${r.payloadsKept.length} kept (still referenced)` : ''),
          ...r.warnings.map((w) => `warning    ${w}`),
        ];
        ctx.io.stdout(lines.join('\n') + '\n');
      }
      return 0;
    } finally {
      log.close();
    }
  },
};

/** "12,15,20..25" -> [12, 15, 20, 21, …, 25]: comma-separated seq specs (src/shared/seqSpec.ts). */
function parseSeqs(text: string): number[] {
  const out: number[] = [];
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const r = readSeqSpec(part);
    if (!r.ok) throw new UsageError(`--seq expects seqs and ranges like 12,15,20..25 (got "${part}")`);
    if (r.to < r.from) throw new UsageError(`--seq: the range "${part}" is written backwards (write ${r.to}..${r.from})`);
    if (r.from < 1 || r.to - r.from > 100_000) throw new UsageError(`--seq: bad range "${part}"`);
    for (let s = r.from; s <= r.to; s++) out.push(s);
  }
  return out;
}
