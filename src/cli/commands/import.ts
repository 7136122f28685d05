import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CAPTURE_SOURCES, SETTLED_AFTER_MS, SOURCES, filesUnder, importFiles, importStream, type CaptureSource, type CaptureSourceSpec, type ImportOptions, type ImportSummary } from '../../core/capture';
import { EventLog } from '../../core/log/eventLog';
import { UsageError, stringOption, writeJson, type Command, type CommandContext } from '../command';
import { openForWriting } from '../openLog';

/**
 * An import reads the log's pages with read() instead of a memory map: it writes far more than it
 * reads, mapped pages would count in its resident set for the whole import (the kernel's page
 * cache holds them either way), and a large history must import within a bounded memory
 * (docs/PERFORMANCE.md, "Capture").
 */
const IMPORT_MMAP_BYTES = 0;

/** Seconds between two looks at the sources with --watch. */
const WATCH_INTERVAL_MS = 2000;

export const command: Command = {
  name: 'import',
  summary: "capture other agents' transcripts (Claude Code, Codex, …) into the log",
  usage: `usage: scroll import SOURCE|--all [--path P|-]... [--since DATE] [--watch] [--dry-run] [--workspace DIR]... [--db P] [--json]

Imports the transcripts of another agent into the event log, each record once: importing again
appends nothing, a transcript that grew appends only its new records, a half-written last line is
read on a later import, and so is a Copilot Chat reply still being written (kept as it stands once
its file has not changed for ${SETTLED_AFTER_MS / 60_000} minutes). Secrets are redacted as in every append.
SOURCE: ${Object.keys(SOURCES).join(', ')} (--all: every one of them).
Without --path, the source's own folders under $HOME are read (~/.claude/projects,
~/.codex/sessions, ~/.gemini/tmp; VS Code's user-data folders for copilot-chat, cline, roo-code,
kilo-code) and only sessions whose working directory is the workspace or inside it are
imported: the current folder, or each --workspace DIR. Files that record no working directory
are listed, not imported: name them with --path.
  --path P       a transcript file or a folder of them (repeatable), imported whatever its
                 working directory; - reads stdin, e.g.
                 claude -p "…" --output-format stream-json | scroll import claude-code --path -
  --since DATE   only records at or after DATE (ISO 8601, e.g. 2025-10-01)
  --watch        keep running, importing what the sources append (Ctrl-C stops)
  --dry-run      count what would be appended; write nothing
  --workspace D  a workspace folder for the scope (repeatable; default the current folder)
Prints a summary per source (files, sessions, events appended, already present, skipped and why).`,
  options: {
    all: { type: 'boolean' },
    path: { type: 'string', multiple: true },
    since: { type: 'string' },
    watch: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    workspace: { type: 'string', multiple: true },
  },
  async run(ctx) {
    const all = ctx.values.all === true;
    if (all && ctx.positionals.length) throw new UsageError('give a SOURCE or --all, not both');
    if (!all && ctx.positionals.length !== 1) throw new UsageError(`import expects one SOURCE (${Object.keys(SOURCES).join(', ')}) or --all`);
    const names = all ? (Object.keys(SOURCES) as CaptureSource[]) : [ctx.positionals[0]];
    const specs = names.map((name) => {
      const spec = SOURCES[name as CaptureSource];
      if (!spec) {
        const known = (CAPTURE_SOURCES as readonly string[]).includes(name) ? ` ("${name}" has no reader yet)` : '';
        throw new UsageError(`unknown source "${name}"${known}; sources: ${Object.keys(SOURCES).join(', ')}`);
      }
      return spec;
    });
    const paths = listOption(ctx.values.path);
    if (paths.includes('-') && (paths.length > 1 || specs.length > 1)) throw new UsageError('--path - (stdin) goes alone, with one SOURCE');
    const sinceText = stringOption(ctx.values, 'since');
    const since = sinceText === undefined ? undefined : parseSince(sinceText);
    const dryRun = ctx.values['dry-run'] === true;
    const watch = ctx.values.watch === true;
    if (watch && (dryRun || paths.includes('-'))) throw new UsageError('--watch cannot go with --dry-run or --path -');
    const scope = paths.length ? undefined : (listOption(ctx.values.workspace).length ? listOption(ctx.values.workspace) : [ctx.io.cwd]).map((d) => resolve(ctx.io.cwd, d));
    const home = ctx.io.env.HOME || homedir();

    const { log, done } = openLog(ctx, dryRun);
    try {
      const progress = progressLine(ctx);
      const opts: ImportOptions = { scope, since, dryRun, onProgress: progress.update };
      const once = async (): Promise<ImportSummary[]> => {
        const out: ImportSummary[] = [];
        for (const spec of specs) {
          if (paths.includes('-')) out.push(await importStream(log, spec.reader, ctx.io.stdin, 'stdin', opts));
          else {
            const cwdOf = spec.cwdOf && ((p: string) => spec.cwdOf!(p, scope));
            out.push(await importFiles(log, spec.reader, filesOf(spec, paths, ctx.io.cwd, home, scope), { ...opts, cwdOf }));
          }
        }
        progress.clear();
        return out;
      };
      const summaries = await once();
      report(ctx, summaries, dryRun);
      if (!watch) return summaries.some((s) => s.problems.length) ? 1 : 0;
      ctx.io.stderr(`scroll import: watching ${specs.map((s) => s.reader.source).join(', ')} (Ctrl-C stops)\n`);
      let stop = false;
      const onSignal = () => {
        stop = true;
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        while (!stop) {
          await sleep(WATCH_INTERVAL_MS);
          if (stop) break;
          const again = await once();
          if (again.some((s) => s.appended || s.problems.length)) report(ctx, again, false);
        }
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      return 0;
    } finally {
      log.close();
      done();
    }
  },
};

function listOption(v: unknown): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
}

function parseSince(text: string): Date {
  const t = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(t)) throw new UsageError(`--since expects an ISO 8601 date such as 2025-10-01 or 2025-10-01T12:00:00Z (got "${text}")`);
  return new Date(t);
}

/**
 * The log to import into. A dry run writes nothing: it reads the log when there is one, else a
 * scratch log that is removed afterwards (everything then counts as new).
 */
function openLog(ctx: CommandContext, dryRun: boolean): { log: EventLog; done: () => void } {
  if (!dryRun) return { log: openForWriting(ctx, { mmapBytes: IMPORT_MMAP_BYTES }), done: () => undefined };
  if (existsSync(ctx.dbPath)) return { log: EventLog.open({ path: ctx.dbPath, readonly: true, mmapBytes: IMPORT_MMAP_BYTES }), done: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'scroll-import-dry-'));
  return { log: EventLog.open({ path: join(dir, 'scroll.db') }), done: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The files to import: each --path (a folder: the source's files under it), else the source's own folders. */
function filesOf(spec: CaptureSourceSpec, paths: string[], cwd: string, home: string, scope?: readonly string[]): string[] {
  if (!paths.length) return spec.locate({ home, scope });
  const ext = spec.reader.formatOf || spec.reader.format === 'text' ? /\.jsonl?$/ : spec.reader.format === 'json' ? /\.json$/ : /\.jsonl$/;
  const out: string[] = [];
  for (const p of paths.map((x) => resolve(cwd, x))) {
    let dir = false;
    try {
      dir = statSync(p).isDirectory();
    } catch {
      // reported by the importer as unreadable
    }
    if (dir) out.push(...filesUnder(p, (n) => ext.test(n)));
    else out.push(p);
  }
  return out;
}

/** A progress line on stderr while a long import runs (only when stderr is a terminal). */
function progressLine(ctx: CommandContext): { update: ImportOptions['onProgress']; clear: () => void } {
  const tty = (process.stderr as { isTTY?: boolean }).isTTY === true && ctx.io.env.SCROLL_NO_PROGRESS === undefined;
  let shown = false;
  let last = 0;
  return {
    update: (p) => {
      if (!tty || Date.now() - last < 200) return;
      last = Date.now();
      const pct = p.bytesTotal > 0 ? Math.min(100, Math.floor((100 * p.bytesRead) / p.bytesTotal)) : 100;
      const name = p.path.length > 50 ? '…' + p.path.slice(-49) : p.path;
      ctx.io.stderr(`\r\x1b[Kimporting ${name} ${pct}% · ${p.appended} events appended`);
      shown = true;
    },
    clear: () => {
      if (shown) ctx.io.stderr('\r\x1b[K');
      shown = false;
    },
  };
}

function report(ctx: CommandContext, summaries: ImportSummary[], dryRun: boolean): void {
  if (ctx.json) {
    writeJson(ctx.io, { dry_run: dryRun, sources: summaries.map((s) => ({
      source: s.source, files: s.files, unchanged: s.unchanged, sessions: s.sessions, appended: s.appended, already_present: s.present,
      older_than_since: s.older, out_of_scope: s.outOfScope, no_cwd: s.noCwd, incomplete: s.incomplete, problems: s.problems, skipped: s.skipped,
    })) });
    return;
  }
  const where = (p: { path: string; line?: number }) => (p.line !== undefined ? `${p.path}:${p.line}` : p.path);
  for (const s of summaries) {
    const lines = [
      `${s.source}: ${s.files} file(s) (${s.unchanged} unchanged), ${s.sessions} session(s), ${s.appended} event(s) ${dryRun ? 'would be appended' : 'appended'}, ${s.present} already present`,
    ];
    if (s.older) lines.push(`  ${s.older} event(s) older than --since`);
    if (s.outOfScope.length) lines.push(`  skipped ${s.outOfScope.length} file(s) of sessions outside the workspace`);
    if (s.noCwd.length) lines.push(`  skipped ${s.noCwd.length} file(s) that record no working directory (import them with --path):`, ...s.noCwd.map((p) => `    ${p}`));
    if (s.incomplete.length) lines.push(`  left ${s.incomplete.length} unfinished record(s) for a later import:`, ...s.incomplete.map((p) => `    ${where(p)}: ${p.message}`));
    for (const x of s.skipped) lines.push(`  skipped ${x.records} record(s): ${x.reason}`);
    if (s.problems.length) lines.push(`  skipped ${s.problems.length} problem(s):`, ...s.problems.map((p) => `    ${where(p)}: ${p.message}`));
    ctx.io.stdout(lines.join('\n') + '\n');
  }
}
