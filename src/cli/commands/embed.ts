import { UsageError, intOption, writeJson, type Command } from '../command';
import { EMBEDDINGS_OPTIONS, EMBEDDINGS_USAGE, embeddingClientFrom } from '../embeddingsConfig';
import { openForWriting } from '../openLog';
import { VectorBackfill } from '../../core/search/embedBackfill';
import { dropVectors, vectorStats } from '../../core/search/vectorStore';

export const command: Command = {
  name: 'embed',
  summary: 'fill the vectors of the optional hybrid search from an embeddings endpoint (opt-in)',
  usage: `usage: scroll embed --embeddings-url URL --embeddings-model NAME [--rebuild] [--batch N] [--db P] [--json]

Embeds every event that has no vector of the model yet (oldest first, --batch texts per request,
default 32) and stores the vectors in the log's derived table event_vectors, keyed by (seq, model).
What is sent is the text the log stores, after redaction. Run it again after new events: it only
embeds what is missing. --rebuild drops every stored vector (of every model) first.
Then \`scroll search --hybrid\` fuses BM25 with these vectors. Prints {"embedded", "vectors", "events", "model"}.

${EMBEDDINGS_USAGE}`,
  options: { ...EMBEDDINGS_OPTIONS, rebuild: { type: 'boolean' }, batch: { type: 'string' } },
  async run(ctx) {
    if (ctx.positionals.length) throw new UsageError('embed takes no arguments');
    const batchSize = intOption(ctx.values, 'batch');
    if (batchSize !== undefined && batchSize < 1) throw new UsageError('--batch must be at least 1');
    const client = embeddingClientFrom(ctx, 'scroll embed');
    const log = openForWriting(ctx);
    try {
      if (ctx.values.rebuild === true) {
        const dropped = dropVectors(log.database);
        ctx.io.stderr(`scroll embed: dropped ${dropped} stored vectors\n`);
      }
      const fill = new VectorBackfill(log.database, client, { batchSize });
      let told = 0;
      const result = await fill.fill({
        onProgress: (p) => {
          if (Date.now() - told < 2000) return;
          told = Date.now();
          ctx.io.stderr(`scroll embed: ${p.embedded} of ${p.missing} events embedded\n`);
        },
      });
      const s = vectorStats(log.database, client.model);
      const out = { embedded: result.embedded, vectors: s.vectors, events: s.events, model: client.model, dims: s.dims };
      if (ctx.json) writeJson(ctx.io, out);
      else ctx.io.stdout(`embedded ${out.embedded} events with ${out.model}; ${out.vectors} of ${out.events} events have a vector of it\n`);
      return 0;
    } finally {
      log.close();
    }
  },
};
