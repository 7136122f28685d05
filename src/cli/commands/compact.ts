import { UsageError, writeJson, type Command } from '../command';
import { openForWriting } from '../openLog';

export const command: Command = {
  name: 'compact',
  summary: 'merge the search index into one segment (faster searches after a big ingest)',
  usage: `usage: scroll compact [--db P] [--json]

Merges the full-text index's segments into one, in short steps (other writers wait for one step at
most). Searches then read one segment per term instead of several: worth it after \`scroll ingest\`
of a large history. The editor does it by itself in the background. Nothing else changes: the
events, and every search result. Prints {"segmentsBefore", "segmentsAfter", "steps", "ms"}.`,
  options: {},
  run(ctx) {
    if (ctx.positionals.length) throw new UsageError('compact takes no arguments');
    const log = openForWriting(ctx);
    try {
      const started = Date.now();
      const r = log.compactIndex();
      const result = { segmentsBefore: r.segmentsBefore, segmentsAfter: r.segmentsAfter, steps: r.steps, ms: Date.now() - started };
      if (ctx.json) writeJson(ctx.io, result);
      else ctx.io.stdout(`search index: ${result.segmentsBefore} segment(s) → ${result.segmentsAfter}, in ${result.ms} ms\n`);
      return 0;
    } finally {
      log.close();
    }
  },
};
