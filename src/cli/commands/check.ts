import { UsageError, writeJson, type Command } from '../command';
import { openForReading } from '../openLog';

export const command: Command = {
  name: 'check',
  summary: 'full integrity check: every page, the search index, every payload file',
  usage: `usage: scroll check [--db P] [--json]

Reads the whole log without changing it: SQLite's full quick_check (every page, page accounting and
FTS5's own index check) and every payload file against its sha256. Opening a log for writing runs
only the quick part (every table's pages), so run this when in doubt. Exit code 0 when all is well,
1 when something is damaged (what, and what to do, is printed). --json prints
{"ok", "database", "index", "payloads": {"checked", "missing", "damaged"}, "advice"}.`,
  options: {},
  run(ctx) {
    if (ctx.positionals.length) throw new UsageError('check takes no arguments');
    const log = openForReading(ctx);
    try {
      const r = log.verify();
      if (ctx.json) {
        writeJson(ctx.io, r);
      } else {
        const lines = [
          `log        ${log.path}`,
          `database   ${r.database.length ? r.database.slice(0, 5).join('; ') : 'ok'}`,
          `index      ${r.index.length ? r.index.slice(0, 5).join('; ') : 'ok'}`,
          `payloads   ${r.payloads.checked} checked` +
            (r.payloads.missing.length ? `, missing for events ${r.payloads.missing.slice(0, 10).join(', ')}` : '') +
            (r.payloads.damaged.length ? `, damaged for events ${r.payloads.damaged.slice(0, 10).join(', ')}` : ''),
        ];
        if (!r.ok) lines.push(`advice     ${r.advice}`);
        ctx.io.stdout(lines.join('\n') + '\n');
      }
      return r.ok ? 0 : 1;
    } finally {
      log.close();
    }
  },
};
