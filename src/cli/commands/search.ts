import type { EventLog } from '../../core/log/eventLog';
import type { SearchOptions, SearchResult } from '../../core/types';
import { InvalidInputError, errorMessage } from '../../core/errors';
import { UsageError, intOption, stringOption, writeJson, type Command, type CommandContext } from '../command';
import { readJsonLines } from '../jsonl';
import { openForReading } from '../openLog';
import { checkKindsAndRoles } from '../validate';
import { nearestName } from '../nearestName';
import { CAPTURE_SOURCES } from '../../core/capture/types';
import { EMBEDDINGS_OPTIONS, EMBEDDINGS_USAGE, embeddingClientFrom } from '../embeddingsConfig';
import { HybridSearch } from '../../core/search/hybrid';
import { hasVectorTable, vectorStats } from '../../core/search/vectorStore';

/** How a query is searched: the log's BM25 search, or hybrid (--hybrid) over the same connection. */
type Searcher = (log: EventLog, query: string, opts: SearchOptions) => SearchResult | Promise<SearchResult>;

const lexical: Searcher = (log, query, opts) => log.search(query, opts);

/** --hybrid: BM25 fused with the embeddings' ranking; every fallback is said once on stderr, not per query. */
function hybridSearcher(ctx: CommandContext, log: EventLog): Searcher {
  const client = embeddingClientFrom(ctx, 'scroll search --hybrid');
  const stats = hasVectorTable(log.database) ? vectorStats(log.database, client.model) : { vectors: 0, events: 0 };
  if (stats.vectors === 0) {
    ctx.io.stderr(`scroll search: no event has a ${client.model} vector yet (\`scroll embed\` fills them): searching with BM25 only\n`);
    return lexical;
  }
  if (stats.vectors < stats.events) ctx.io.stderr(`scroll search: ${stats.events - stats.vectors} of ${stats.events} events have no ${client.model} vector yet (\`scroll embed\` fills them)\n`);
  const hybrid = new HybridSearch(client, { onNote: (m) => ctx.io.stderr(`scroll search: ${m}\n`), retryAfterMs: Number.POSITIVE_INFINITY });
  return (l, query, opts) => hybrid.search(l.database, query, opts);
}

function filtersFrom(ctx: CommandContext): SearchOptions {
  const k = intOption(ctx.values, 'k');
  if (k !== undefined && k < 1) throw new UsageError('--k must be at least 1');
  return {
    k,
    kind: listOption(ctx, 'kind'),
    role: listOption(ctx, 'role'),
    session: stringOption(ctx.values, 'session'),
    source: sourceOption(ctx),
    name: stringOption(ctx.values, 'name'),
    seqFrom: intOption(ctx.values, 'seq-from'),
    seqTo: intOption(ctx.values, 'seq-to'),
    tsFrom: stringOption(ctx.values, 'ts-from'),
    tsTo: stringOption(ctx.values, 'ts-to'),
  };
}

/** `--source claude-code`: events captured from that agent (meta.source); a mistyped name is a usage error. */
function sourceOption(ctx: CommandContext): string | undefined {
  const v = stringOption(ctx.values, 'source');
  if (v === undefined) return undefined;
  const bad = unknownSource(v);
  if (bad) throw new UsageError(`unknown --source ${bad}`);
  return v;
}

/** Undefined for a source Scroll captures; else the value with the nearest valid one and the list. */
function unknownSource(v: string): string | undefined {
  if ((CAPTURE_SOURCES as readonly string[]).includes(v)) return undefined;
  const nearest = nearestName(v, CAPTURE_SOURCES);
  return `${v}${nearest ? ` (did you mean ${nearest}?)` : ''}: sources are ${CAPTURE_SOURCES.join(', ')}`;
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
    for (const f of ['session', 'kind', 'role', 'source'] as const) {
      if (value[f] !== undefined && value[f] !== null && typeof value[f] !== 'string') throw new InvalidInputError(`${where}: "${f}" must be a string`);
    }
    if (typeof value.source === 'string' && unknownSource(value.source)) throw new InvalidInputError(`${where}: unknown "source" ${unknownSource(value.source)}`);
    out.push({
      id: value.id ?? null,
      query: value.query,
      opts: {
        k: k as number | undefined,
        session: (value.session as string | null) ?? undefined,
        kind: (value.kind as string | null) ?? undefined,
        role: (value.role as string | null) ?? undefined,
        source: (value.source as string | null) ?? undefined,
        snippet: false,
      },
    });
  }
  return out;
}

async function runBatch(ctx: CommandContext, log: EventLog, queries: BatchQuery[], base: SearchOptions, search: Searcher): Promise<void> {
  const chunk: string[] = [];
  for (const q of queries) {
    const result = await search(log, q.query, { ...base, ...stripUndefined(q.opts) });
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

const MATCH_MARK = { every: '', some: '  [some terms]', context: '  [next to a match]', similar: '  [similar meaning]' } as const;

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
  if (result.hybrid) lines.push(`(hybrid: BM25 fused with ${result.hybrid.model} vectors${result.hybrid.similarOnly ? `; ${result.hybrid.similarOnly} of ${result.hits.length} hits are listed for their meaning alone: [similar meaning]` : ''})`);
  for (const h of result.hits) {
    lines.push(`#${h.seq}  ${h.score.toFixed(2)}  ${h.kind}/${h.role}  ${h.session}${MATCH_MARK[h.match ?? (h.broadened ? 'some' : 'every')]}`);
    lines.push(`    ${h.snippet.replace(/\s+/g, ' ').trim()}`);
  }
  return lines.join('\n') + '\n';
}

export const command: Command = {
  name: 'search',
  summary: 'full-text search (BM25) with filters; --batch for many queries',
  usage: `usage: scroll search QUERY [--k N] [--kind K[,K…]] [--role R[,R…]] [--session S] [--source A] [--name N]
                     [--seq-from A] [--seq-to B] [--ts-from T] [--ts-to T] [--hybrid] [--json] [--db P]
       scroll search --batch FILE.jsonl|- [--hybrid]

Hits best first: {seq, score, kind, role, session, snippet}.
--source A: only events captured from agent A (${CAPTURE_SOURCES.join(', ')}; scroll import).
--batch: lines {"id", "query", "k"?, "session"?, "kind"?, "role"?, "source"?}; prints one line per query
{"id", "hits": [{"seq", "score"}, ...]}.
--hybrid (opt-in): fuse BM25 with the vectors \`scroll embed\` stored (reciprocal rank fusion); the query
is sent to the endpoint. When it does not answer, the search is BM25's, said once on stderr.

${EMBEDDINGS_USAGE}`,
  options: {
    k: { type: 'string' },
    kind: { type: 'string' },
    role: { type: 'string' },
    session: { type: 'string' },
    source: { type: 'string' },
    name: { type: 'string' },
    'seq-from': { type: 'string' },
    'seq-to': { type: 'string' },
    'ts-from': { type: 'string' },
    'ts-to': { type: 'string' },
    batch: { type: 'string' },
    hybrid: { type: 'boolean' },
    ...EMBEDDINGS_OPTIONS,
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
        await runBatch(ctx, log, queries, filters, ctx.values.hybrid === true ? hybridSearcher(ctx, log) : lexical);
      } finally {
        log.close();
      }
      return 0;
    }
    if (ctx.positionals.length === 0) throw new UsageError('search expects a QUERY (or --batch FILE)');
    const query = ctx.positionals.join(' ');
    const log = openForReading(ctx);
    try {
      const search = ctx.values.hybrid === true ? hybridSearcher(ctx, log) : lexical;
      let result;
      try {
        result = await search(log, query, filters);
      } catch (e) {
        if (e instanceof Error && 'code' in e) throw e;
        throw new InvalidInputError(`search failed for ${JSON.stringify(query.slice(0, 80))}: ${errorMessage(e)}`);
      }
      const hits = result.hits.map((h) => ({ seq: h.seq, score: h.score, kind: h.kind, role: h.role, session: h.session, snippet: h.snippet, broadened: h.broadened, match: h.match }));
      if (ctx.json) {
        const out: Record<string, unknown> = { hits, broadened: result.broadened, terms: result.terms, pruned: result.pruned };
        if (result.ignored) out.ignored = result.ignored;
        if (result.hybrid) out.hybrid = result.hybrid;
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
