import { collectGarbage, DEFAULT_GC_GRACE_MS, formatBytes, formatDuration, type GcResult } from '../../core/log/payloadGc';
import { UsageError, stringOption, writeJson, type Command } from '../command';
import { openForReading } from '../openLog';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "1h", "30m", "90s", "500ms", "2d", "0"; a bare number is seconds. */
export function parseDuration(text: string, option = 'grace'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!m) throw new UsageError(`--${option} expects a duration such as 1h, 30m, 90s or 0 (got "${text}")`);
  const ms = Number(m[1]) * UNITS[m[2] ?? 's'];
  if (!Number.isFinite(ms)) throw new UsageError(`--${option} is out of range (got "${text}")`);
  return Math.round(ms);
}

export const command: Command = {
  name: 'gc',
  summary: 'remove payload files no event references, and stray temp files',
  usage: `usage: scroll gc [--db P] [--grace DURATION] [--dry-run] [--json]

Removes payload files that no event references — neither in this log nor in a damaged log moved
aside beside it (<db>.corrupt-*, read read-only) — and temp files left by interrupted writes, once
they are older than the grace period, and prints what it freed. Never changes the log itself.
  --grace D   keep unreferenced files written (or reused by a writer) less than D ago: a concurrent
              writer's file whose event has not committed yet (default 1h; 30m, 90s, 0)
  --dry-run   only say what would be removed
After a failed or killed ingest its files are young: when no other Scroll is writing to this log,
\`scroll gc --grace 0\` removes them too (e.g. to make room after a full disk). While a moved-aside log
cannot be read in full, files written before its last write are kept (it may reference them).
--json prints {"freed": {"payloads", "temps", "bytes"}, "kept": {...}, "movedAside", ...}.`,
  options: {
    grace: { type: 'string' },
    'dry-run': { type: 'boolean' },
  },
  async run(ctx) {
    if (ctx.positionals.length) throw new UsageError('gc takes no arguments');
    const grace = stringOption(ctx.values, 'grace');
    const graceMs = grace === undefined ? DEFAULT_GC_GRACE_MS : parseDuration(grace);
    const log = openForReading(ctx);
    try {
      const r = await collectGarbage(log, { graceMs, dryRun: ctx.values['dry-run'] === true });
      if (ctx.json) writeJson(ctx.io, r);
      else ctx.io.stdout(describe(r).join('\n') + '\n');
      for (const f of r.failures.slice(0, 10)) ctx.io.stderr(`scroll gc: could not remove ${f}\n`);
      return r.failures.length ? 1 : 0;
    } finally {
      log.close();
    }
  },
};

/** What gc did, for people: the freed line first. Shared with the editor's report. */
export function describe(r: GcResult): string[] {
  const verb = r.dryRun ? 'would free' : 'freed';
  const lines = [
    `${verb.padEnd(11)}${r.freed.payloads} payload file(s) and ${r.freed.temps} temp file(s), ${formatBytes(r.freed.bytes)}`,
    `kept       ${r.kept.referenced} referenced payload file(s)`,
  ];
  if (r.kept.young.files) {
    lines.push(
      `kept       ${r.kept.young.files} unreferenced file(s), ${formatBytes(r.kept.young.bytes)}, younger than the grace period (${formatDuration(r.graceMs)}): ` +
        'a write may be in progress; when none is, `scroll gc --grace 0` removes them',
    );
  }
  if (r.kept.forMovedAsideLogs.files) {
    lines.push(`kept       ${r.kept.forMovedAsideLogs.files} unreferenced file(s), ${formatBytes(r.kept.forMovedAsideLogs.bytes)}, that a moved-aside log which cannot be read in full may reference`);
  }
  for (const m of r.movedAside) {
    const how = m.read === 'all' ? 'read' : m.read === 'part' ? 'read in part' : 'unreadable';
    lines.push(`moved-aside ${m.path}: ${how}, ${m.payloads} payload reference(s) counted${m.error ? ` (${m.error})` : ''}`);
  }
  if (r.restored) lines.push(`restored   ${r.restored} payload file(s) an interrupted gc had taken aside`);
  if (r.stopped) lines.push('stopped    before the end (what was removed so far stays removed)');
  return lines;
}
