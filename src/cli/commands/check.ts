import { UsageError, writeJson, type Command } from '../command';
import { openForReading } from '../openLog';
import { formatBytes, type PayloadHygiene } from '../../core/log/payloadGc';

export const command: Command = {
  name: 'check',
  summary: 'full integrity check: every page, the search index, every payload file',
  usage: `usage: scroll check [--db P] [--json]

Reads the whole log without changing it: SQLite's full quick_check (every page, page accounting and
FTS5's own index check) and every payload file against its sha256. Opening a log for writing runs
only the quick part (every table's pages), so run this when in doubt. Exit code 0 when all is well,
1 when something is damaged (what, and what to do, is printed). --json prints
{"ok", "database", "index", "payloads": {"checked", "missing", "damaged"}, "advice"}.
Orphan payload files (no event references them) and stray temp files are reported too ("hygiene",
present only when there are any): a warning, not damage — the exit code stays 0 for them alone;
\`scroll gc\` removes them.`,
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
        if (r.hygiene) lines.push(...hygieneLines(r.hygiene));
        if (!r.ok) lines.push(`advice     ${r.advice}`);
        ctx.io.stdout(lines.join('\n') + '\n');
      }
      return r.ok ? 0 : 1;
    } finally {
      log.close();
    }
  },
};

/** The orphan / temp file report (a warning: it does not change the exit code). */
function hygieneLines(h: PayloadHygiene): string[] {
  if (h.error) return [`orphans    not counted: ${h.error}`];
  const young = (n: number) => (n ? `, ${n} of them written in the last hour (perhaps a write in progress)` : '');
  const lines = [
    `orphans    ${h.orphans.files} payload file(s), ${formatBytes(h.orphans.bytes)}, no event references${young(h.orphans.young)}`,
    `temp files ${h.temps.files} stray temp file(s), ${formatBytes(h.temps.bytes)}${young(h.temps.young)}`,
  ];
  if (h.keptForMovedAsideLogs.files) {
    lines.push(`kept       ${h.keptForMovedAsideLogs.files} unreferenced file(s), ${formatBytes(h.keptForMovedAsideLogs.bytes)}: a moved-aside log that cannot be read in full may reference them`);
  }
  for (const m of h.movedAside) {
    lines.push(`moved-aside ${m.path}: ${m.read === 'all' ? 'read' : m.read === 'part' ? 'read in part' : 'unreadable'}, ${m.payloads} payload reference(s)${m.error ? ` (${m.error})` : ''}`);
  }
  if (h.orphans.files || h.temps.files) lines.push('           `scroll gc` removes unreferenced files older than an hour (`--grace` to change); they are not damage');
  return lines;
}
