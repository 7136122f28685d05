/**
 * What the coding tools do to the workspace — read, list, search, plan an edit, run a command — in
 * one implementation for every host: the editor's language-model tools wrap these (adding
 * confirmations and editor edits), the CLI's agent tools call them directly. Every path, walk and
 * pattern goes through the confinement rule of this folder. Results are plain text for the model;
 * bad input throws an Error whose message is meant for it.
 */
import { spawn } from 'node:child_process';
import { commandEnvironment } from '../kernel/environment';
import { Workspace, type ConfinedPath } from './confine';
import { readConfined, searchConfined } from './files';
import { PatternError, compileGlob, compileTextPattern, type GlobMatcher, type LineMatcher } from './patterns';
import { linkTarget, walk } from './walk';

const SEARCH_FILE_MAX_BYTES = 1_000_000;
const SEARCH_MAX_FILES = 5_000;
const READ_MAX_BYTES = 50_000_000;
/** Globs compare names as the file system does. */
const GLOB_IGNORE_CASE = process.platform === 'win32' || process.platform === 'darwin';

export function clampNumber(v: unknown, dflt: number, max: number): number {
  const n = typeof v === 'number' && Number.isFinite(v) ? Math.floor(v) : dflt;
  return Math.max(1, Math.min(max, n));
}

function glob(pattern: string): GlobMatcher {
  try {
    return compileGlob(pattern, { ignoreCase: GLOB_IGNORE_CASE });
  } catch (e) {
    if (e instanceof PatternError) throw new Error(`pattern cannot be used: ${e.message}`);
    throw e;
  }
}

/** A text file, whole or a line range, with a header line; cut at `cap` characters. */
export async function readFileText(
  ws: Workspace,
  input: { path?: unknown; startLine?: unknown; endLine?: unknown },
  cap: number,
): Promise<{ text: string; file: ConfinedPath }> {
  if (typeof input.path !== 'string' || !input.path.trim()) throw new Error('path is required (relative to the workspace folder)');
  const { path: file, data: bytes } = await readConfined(ws, input.path.trim(), { maxBytes: READ_MAX_BYTES });
  if (bytes.includes(0)) return { file, text: `${input.path} is a binary file (${bytes.length} bytes); not shown.` };
  const lines = bytes.toString('utf8').split('\n');
  const start = clampNumber(input.startLine, 1, lines.length);
  const end = clampNumber(input.endLine, lines.length, lines.length);
  if (end < start) throw new Error(`endLine ${end} is before startLine ${start}`);
  let text = lines.slice(start - 1, end).join('\n');
  const header = start === 1 && end === lines.length ? `${file.rel} (${lines.length} lines)` : `${file.rel} lines ${start}-${end} of ${lines.length}`;
  if (text.length > cap) text = `${text.slice(0, cap)}\n… [cut at ${cap} characters: read a line range with startLine/endLine]`;
  return { file, text: `${header}\n${text}` };
}

/** Files matching a glob (linked folders never entered; a linked file counts when it may be read). */
export async function listFiles(ws: Workspace, input: { pattern?: unknown; max?: unknown }): Promise<string> {
  const pattern = typeof input.pattern === 'string' && input.pattern.trim() ? input.pattern.trim() : '**/*';
  const matcher = glob(pattern);
  const max = clampNumber(input.max, 500, 5000);
  const names: string[] = [];
  for await (const e of walk(ws, ws.resolve('', 'walk'))) {
    if (e.kind !== 'file' && !(e.kind === 'link' && linkTarget(ws, e)?.kind === 'file')) continue;
    if (!matcher.test(e.rel)) continue;
    names.push(e.rel);
    if (names.length > max) break;
  }
  names.sort();
  const more = names.length > max ? `\n… more than ${max} files: narrow the pattern` : '';
  return names.length ? `${Math.min(names.length, max)} files matching ${pattern}:\n${names.slice(0, max).join('\n')}${more}` : `No files match ${pattern}.`;
}

/** Lines matching a text (case-insensitive) or an RE2 regular expression, as `path:line: text`. */
export async function searchText(
  ws: Workspace,
  input: { query?: unknown; isRegex?: unknown; include?: unknown; max?: unknown },
  signal?: AbortSignal,
): Promise<string> {
  if (typeof input.query !== 'string' || !input.query) throw new Error('query is required');
  let matcher: LineMatcher;
  try {
    matcher = compileTextPattern(input.query, { regex: input.isRegex === true, ignoreCase: true });
  } catch (e) {
    if (e instanceof PatternError) throw new Error(`query cannot be used: ${e.message}`);
    throw e;
  }
  const include = typeof input.include === 'string' && input.include.trim() ? input.include.trim() : '**/*';
  const includeMatcher = glob(include);
  const max = clampNumber(input.max, 100, 2000);
  const { hits, truncated } = await searchConfined(ws, ws.resolve('', 'walk'), matcher, {
    include: includeMatcher,
    maxResults: max,
    maxFiles: SEARCH_MAX_FILES,
    maxFileBytes: SEARCH_FILE_MAX_BYTES,
    signal,
  });
  const out = hits.map((h) => `${h.rel}:${h.line}: ${h.text.trim().slice(0, 300)}`);
  if (truncated) out.push(`… stopped at ${max} matches`);
  return out.length ? out.join('\n') : `No matches for ${input.query} in ${include}.`;
}

/**
 * The text a file will have after an edit: `oldText` (which must occur exactly once) replaced by
 * `newText`, or, without `oldText`, `newText` as the whole file. `before` is undefined when the
 * file does not exist.
 */
export function plannedText(path: string, before: string | undefined, input: { oldText?: unknown; newText?: unknown }): { create: boolean; after: string } {
  if (typeof input.newText !== 'string') throw new Error('newText is required');
  if (typeof input.oldText === 'string' && input.oldText.length) {
    if (before === undefined) throw new Error(`${path}: no such file (omit oldText to create it)`);
    const at = before.indexOf(input.oldText);
    if (at < 0) throw new Error(`${path}: oldText was not found; read the file and copy the exact text`);
    if (before.indexOf(input.oldText, at + 1) >= 0) throw new Error(`${path}: oldText occurs more than once; include more surrounding lines`);
    return { create: false, after: before.slice(0, at) + input.newText + before.slice(at + input.oldText.length) };
  }
  return { create: before === undefined, after: input.newText };
}

/** What an edit did, in one line for the model. */
export function editSummary(rel: string, create: boolean, before: string, after: string): string {
  const delta = after.split('\n').length - before.split('\n').length;
  return `${create ? 'Created' : 'Edited'} ${rel} (${after.split('\n').length} lines${create ? '' : `, ${delta >= 0 ? '+' : ''}${delta}`}).`;
}

export interface CommandRun {
  command: string;
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
}

/**
 * Runs a shell command in `cwd` with the filtered environment (no credentials, no editor IPC
 * handles), capturing what it prints up to `limitBytes`; its whole process group dies on timeout
 * or abort.
 */
export function runShellCommand(command: string, opts: { cwd: string; timeoutMs: number; limitBytes?: number; signal?: AbortSignal }): Promise<CommandRun> {
  const limit = opts.limitBytes ?? 50_000_000;
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, { cwd: opts.cwd, shell: true, env: commandEnvironment(), detached: process.platform !== 'win32', stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    const kill = () => {
      try {
        if (child.pid && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutMs);
    opts.signal?.addEventListener('abort', kill, { once: true });
    const done = () => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', kill);
    };
    const take = (into: Buffer[]) => (d: Buffer) => {
      if (size >= limit) return;
      into.push(d);
      size += d.length;
    };
    child.stdout.on('data', take(out));
    child.stderr.on('data', take(err));
    child.on('error', (e) => {
      done();
      reject(new Error(`could not run ${command}: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      done();
      resolve({
        command,
        exitCode: code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        durationMs: Date.now() - t0,
        timedOut,
      });
    });
  });
}

export function formatCommandRun(r: CommandRun): string {
  const status = r.timedOut ? `timed out after ${r.durationMs} ms (killed)` : r.signal ? `killed by ${r.signal}` : `exit code ${r.exitCode}`;
  const parts = [`$ ${r.command}`, `${status}, ${r.durationMs} ms`];
  if (r.stdout) parts.push(`--- stdout ---\n${r.stdout}`);
  if (r.stderr) parts.push(`--- stderr ---\n${r.stderr}`);
  if (!r.stdout && !r.stderr) parts.push('(no output)');
  return parts.join('\n');
}
