import { UsageError, writeJson, type Command } from '../command';
import { openForReading } from '../openLog';
import { formatBytes, type PayloadHygiene } from '../../core/log/payloadGc';
import { rangesText, shortHash, type ChainVerification } from '../../core/log/chain';

export const command: Command = {
  name: 'check',
  summary: 'full integrity check: every page, the search index, every payload file',
  usage: `usage: scroll check [--db P] [--json] [--head FILE]...

Reads the whole log without changing it: SQLite's full quick_check (every page, page accounting and
FTS5's own index check) and every payload file against its sha256. Opening a log for writing runs
only the quick part (every table's pages), so run this when in doubt. Exit code 0 when all is well,
1 when something is damaged (what, and what to do, is printed). --json prints
{"ok", "database", "index", "payloads": {"checked", "missing", "damaged"}, "advice"}.
Orphan payload files (no event references them) and stray temp files are reported too ("hygiene",
present only when there are any): a warning, not damage — the exit code stays 0 for them alone;
\`scroll gc\` removes them.
Tamper evidence ("chain"): every event's hash, chained to its predecessor's, is recomputed from its
row; seqs must be continuous (a hole only where a recovery event declared it lost); the append-only
triggers must be in place; and the head recorded outside the file (<db>.head.json, written at
every commit, and each --head FILE, e.g. the editor's copy) must match the file, or the log's tail
was cut or its chain rewritten. The first bad seq is named.`,
  options: { head: { type: 'string', multiple: true } },
  run(ctx) {
    if (ctx.positionals.length) throw new UsageError('check takes no arguments');
    const log = openForReading(ctx);
    try {
      const extra = ctx.values.head;
      const r = log.verify({ headMirrors: Array.isArray(extra) ? extra.map(String) : typeof extra === 'string' ? [extra] : [] });
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
        lines.push(...chainLines(r.chain));
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

/** The tamper-evidence part of the report: chain, seqs, triggers, heads, the log's own records. */
function chainLines(c: ChainVerification): string[] {
  const lines: string[] = [];
  if (!c.chained) lines.push('chain      not yet: a log of schema 1 (the chain starts when it is next opened for writing)');
  else if (c.badSeqs.length) lines.push(`chain      broken: first bad seq ${c.badSeqs[0]}; ${c.badSeqs.length} event(s) do not verify: ${c.badSeqs.slice(0, 10).join(', ')}${c.badSeqs.length > 10 ? ', …' : ''}`);
  else lines.push(`chain      ok: ${c.events} events` + (c.head ? `, head seq ${c.head.seq} (${shortHash(c.head.hash)})` : '') + (c.chainStart && c.chainStart > 1 ? `, chained from seq ${c.chainStart}` : ''));
  lines.push(
    `seqs       ${c.holes.undeclared.length ? `MISSING ${rangesText(c.holes.undeclared)} (no recovery declared them lost)` : 'no undeclared holes'}` +
      (c.holes.declared.length ? `; declared lost by a recovery: ${rangesText(c.holes.declared)}` : ''),
  );
  const t = c.triggers;
  const trig = [t.missing.length ? `missing ${t.missing.join(', ')}` : '', t.altered.length ? `altered ${t.altered.join(', ')}` : '', t.unexpected.length ? `foreign ${t.unexpected.join(', ')}` : ''].filter(Boolean);
  lines.push(`triggers   ${trig.length ? trig.join('; ') : 'ok'}`);
  for (const h of c.heads) lines.push(`head       ${h.state === 'ok' ? 'ok: ' : h.state === 'explained' || h.state === 'missing' ? '' : `${h.state.toUpperCase()}: `}${h.message}`);
  // What the lines above do not say already.
  const shown = (p: string) =>
    /^seq \d+ (does not match|has no chain hash)|^seqs? [\d.]+ (is|are) missing|^(append-only )?triggers? /.test(p) || c.heads.some((h) => h.message === p);
  for (const p of c.problems) if (!shown(p)) lines.push(`problem    ${p}`);
  for (const r of c.recorded.slice(-5)) lines.push(`recorded   ${r.kind} at seq ${r.seq}: ${r.summary.length > 140 ? `${r.summary.slice(0, 140)}…` : r.summary}`);
  if (c.recorded.length > 5) lines.push(`           (${c.recorded.length} records in all; the last 5 shown)`);
  return lines;
}
