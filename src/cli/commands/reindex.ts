import { UsageError, writeJson, type Command } from '../command';
import { openForWriting } from '../openLog';

export const command: Command = {
  name: 'reindex',
  summary: 'rebuild the search index from the events (after an upgrade changes indexing)',
  usage: `usage: scroll reindex [--db P] [--json]

Empties the full-text index and refills it from every event (payloads read in full). The
events themselves are not touched. Prints {"events", "ms"}.`,
  options: {},
  run(ctx) {
    if (ctx.positionals.length) throw new UsageError('reindex takes no arguments');
    const log = openForWriting(ctx);
    try {
      const started = Date.now();
      const events = log.rebuildIndex();
      const result = { events, ms: Date.now() - started };
      if (ctx.json) writeJson(ctx.io, result);
      else ctx.io.stdout(`reindexed ${result.events} events in ${result.ms} ms\n`);
      return 0;
    } finally {
      log.close();
    }
  },
};
