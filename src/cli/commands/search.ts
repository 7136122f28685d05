import type { EventLog } from '../../core/log/eventLog';
import type { SearchOptions, SearchResult } from '../../core/types';
import { InvalidInputError, errorMessage } from '../../core/errors';
import { UsageError, intOption, stringOption, writeJson, type Command, type CommandContext } from '../command';
import { readJsonLines } from '../jsonl';
import { openForReading } from '../openLog';
import { checkKindsAndRoles } from '../validate';

function filtersFrom(ctx: CommandContext): SearchOptions {
  const k = intOption(ctx.values, 'k');
  if (k !== undefined && k < 1) throw new UsageError('--k must be at least 1');
  return {
    k,
    kind: listOption(ctx, 'kind'),
    role: listOption(ctx, 'role'),
    session: stringOption(ctx.values, 'session'),
    name: stringOption(ctx.values, 'name'),
    seqFrom: intOption(ctx.values, 'seq-from'),
    seqTo: intOption(ctx.values, 'seq-to'),
    tsFrom: stringOption(ctx.values, 'ts-from'),
    tsTo: stringOption(ctx.values, 'ts-to'),
  };
}

/** `--kind tool_call,tool_result` → either kind. */
function listOption(ctx: CommandContext, name: string): string | string[] | undefined {
  const v = stringOption(ctx.values, name);
  if (v === undefined) return undefined;
  const parts = v.split(',').map((x) => x.trim()).filter(Boolean);
  if (parts.length === 0) throw new UsageError(`--${name} expects a value`);
  return parts.length === 1 ? parts[0] : parts;
}

interface BatchQuery {
  id: unknown;
  query: string;
  opts: SearchOptions;
}

async function readBatch(ctx: CommandContext, source: string): Promise<BatchQuery[]> {
  const out: BatchQuery[] = [];
  const label = source === '-' ? 'stdin' : source;
  for await (const { line, value } of readJsonLines(source, ctx.io.stdin, label)) {
    const where = `line ${line} of ${label}`;
    if (typeof value.query !== 'string') throw new InvalidInputError(`${where}: "query" is required and must be a string`);
    const k = value.k;
    if (k !== undefined && (typeof k !== 'number' || !Number.isSafeInteger(k) || k < 1)) throw new InvalidInputError(`${where}: "k" must be a positive integer`);
    for (const f of ['session', 'kind', 'role'] as const) {
      if (value[f] !== undefined && value[f] !== null && typeof value[f] !== 'string') throw new InvalidInputError(`${where}: "${f}" must be a string`);
    }
    out.push({
      id: value.id ?? null,
      query: value.query,
      opts: {
        k: k as number | undefined,
        session: (value.session as string | null) ?? undefined,
        kind: (value.kind as string | null) ?? undefined,
        role: (value.role as string | null) ?? undefined,
        snippet: false,
      },
    });
  }
  return out;
}

function runBatch(ctx: CommandContext, log: EventLog, queries: BatchQuery[], base: SearchOptions): void {
  const chunk: string[] = [];
  for (const q of queries) {
    const result = log.search(q.query, { ...base, ...stripUndefined(q.opts) });
    const line: Record<string, unknown> = { id: q.id, hits: result.hits.map((h) => ({ seq: h.seq, score: h.score })) };
    if (result.broadened) line.broadened = true;
    if (result.message) line.message = result.message;
    chunk.push(JSON.stringify(line));
    if (chunk.length >= 256) ctx.io.stdout(chunk.splice(0).join('\n') + '\n');
  }
  if (chunk.length) ctx.io.stdout(chunk.join('\n') + '\n');
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

const MATCH_MARK = { every: '', some: '  [some terms]', context: '  [next to a match]' } as const;

/**
 * The text form of a search: the same facts as --json, in words. Notes say only what is true of
 * the hits listed (a hit matching only some terms, a hit listed for its neighbour), the common
 * words the search ignored with their counts, and the hits in the order ranked (best first).
 */
export function textReport(result: SearchResult): string {
  const lines: string[] = [];
  for (const w of result.ignored ?? []) lines.push(`(ignored '${w.word}': it is in ${w.events} of ${w.of} events searched)`);
  if (result.hits.length === 0) {
    lines.push('no hits');
    return lines.join('\n') + '\n';
  }
  const some = result.hits.filter((h) => h.match === 'some').length;
  const context = result.hits.filter((h) => h.match === 'context').length;
  if (some) lines.push(`(${some} of ${result.hits.length} hits match only some of the terms: [some terms])`);
  if (context) lines.push(`(${context} of ${result.hits.length} hits are listed for a strong match next to them in their session: [next to a match])`);
  for (const h of result.hits) {
    lines.push(`#${h.seq}  ${h.score.toFixed(2)}  ${h.kind}/${h.role}  ${h.session}${MATCH_MARK[h.match ?? (h.broadened ? 'some' : 'every')]}`);
    lines.push(`    ${h.snippet.replace(/\s+/g, ' ').trim()}`);
  }
  return lines.join('\n') + '\n';
}

export const command: Command = {
  name: 'search',
  summary: 'full-text search (BM25) with filters; --batch for many queries',
  usage: `usage: scroll search QUERY [--k N] [--kind K[,K…]] [--role R[,R…]] [--session S] [--name N]
                     [--seq-from A] [--seq-to B] [--ts-from T] [--ts-to T] [--json] [--db P]
       scroll search --batch FILE.jsonl|-

Hits best first: {seq, score, kind, role, session, snippet}.
--batch: lines {"id", "query", "k"?, "session"?, "kind"?, "role"?}; prints one line per query
{"id", "hits": [{"seq", "score"}, ...]}.`,
  options: {
    k: { type: 'string' },
    kind: { type: 'string' },
    role: { type: 'string' },
    session: { type: 'string' },
    name: { type: 'string' },
    'seq-from': { type: 'string' },
    'seq-to': { type: 'string' },
    'ts-from': { type: 'string' },
    'ts-to': { type: 'string' },
    batch: { type: 'string' },
  },
  async run(ctx) {
    const batch = stringOption(ctx.values, 'batch');
    const filters = filtersFrom(ctx);
    checkKindsAndRoles(ctx, filters);
    if (batch !== undefined) {
      if (ctx.positionals.length) throw new UsageError('search --batch takes no QUERY argument');
      const queries = await readBatch(ctx, batch);
      const log = openForReading(ctx);
      try {
        runBatch(ctx, log, queries, filters);
      } finally {
        log.close();
      }
      return 0;
    }
    if (ctx.positionals.length === 0) throw new UsageError('search expects a QUERY (or --batch FILE)');
    const query = ctx.positionals.join(' ');
    const log = openForReading(ctx);
    try {
      let result;
      try {
        result = log.search(query, filters);
      } catch (e) {
        if (e instanceof Error && 'code' in e) throw e;
        throw new InvalidInputError(`search failed for ${JSON.stringify(query.slice(0, 80))}: ${errorMessage(e)}`);
      }
      const hits = result.hits.map((h) => ({ seq: h.seq, score: h.score, kind: h.kind, role: h.role, session: h.session, snippet: h.snippet, broadened: h.broadened, match: h.match }));
      if (ctx.json) {
        const out: Record<string, unknown> = { hits, broadened: result.broadened, terms: result.terms, pruned: result.pruned };
        if (result.ignored) out.ignored = result.ignored;
        if (result.message) out.message = result.message;
        writeJson(ctx.io, out);
        return 0;
      }
      if (result.message) ctx.io.stderr(`scroll search: ${result.message}\n`);
      ctx.io.stdout(textReport(result));
      return 0;
    } finally {
      log.close();
    }
  },
};
