/**
 * What the coding tools do to the workspace: read, list, search, edit, run. Paths are relative to
 * the first workspace folder and may not leave it: every path, walk and pattern goes through the
 * core's confinement rule (`src/core/workspace`), the same the CLI's tools use — real paths, no
 * writes through links, no walks into linked folders, `.scroll` not writable in any spelling,
 * regular expressions and globs matched by RE2 (linear time). Results are plain text for the model.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { commandEnvironment } from '../../core/kernel/environment';
import {
  PatternError,
  SKIPPED_FOLDERS,
  Workspace,
  compileGlob,
  compileTextPattern,
  linkTarget,
  readConfined,
  searchConfined,
  walk,
  type Access,
  type GlobMatcher,
  type LineMatcher,
} from '../../core/workspace';

/** Folders nobody wants listed or searched (the walk skips exactly these, `.scroll` in any spelling). */
export const DEFAULT_EXCLUDE = `{${SKIPPED_FOLDERS.map((f) => `**/${f}/**`).join(',')}}`;
const SEARCH_FILE_MAX_BYTES = 1_000_000;
const SEARCH_MAX_FILES = 5_000;
const READ_MAX_BYTES = 50_000_000;
/** Globs compare names as the file system does. */
const GLOB_IGNORE_CASE = process.platform === 'win32' || process.platform === 'darwin';

export function workspaceFolderUri(): vscode.Uri {
  const f = vscode.workspace.workspaceFolders?.[0];
  if (!f) throw new Error('No folder is open: open a workspace folder first.');
  return f.uri;
}

/** The first workspace folder under the confinement rule. */
export function currentWorkspace(): Workspace {
  return Workspace.open(workspaceFolderUri().fsPath);
}

/**
 * Resolves a model-given path inside the workspace by the core rule (`Workspace.resolve`): the
 * real path of what exists, inside the folder's real path; for `write`, not a link and not in
 * `.scroll`. Throws with the reason otherwise.
 */
export function resolveInWorkspace(relative: unknown, access: Access = 'read'): vscode.Uri {
  if (typeof relative !== 'string' || !relative.trim()) throw new Error('path is required (relative to the workspace folder)');
  return vscode.Uri.file(currentWorkspace().resolve(relative.trim(), access).real);
}

export function relativePath(uri: vscode.Uri): string {
  const ws = currentWorkspace();
  if (ws.contains(uri.fsPath)) return ws.relative(uri.fsPath);
  return path.relative(workspaceFolderUri().fsPath, uri.fsPath).split(path.sep).join('/');
}

export async function readWorkspaceFile(input: { path?: unknown; startLine?: unknown; endLine?: unknown }, cap: number): Promise<{ text: string; uri: vscode.Uri }> {
  if (typeof input.path !== 'string' || !input.path.trim()) throw new Error('path is required (relative to the workspace folder)');
  const { path: file, data: bytes } = await readConfined(currentWorkspace(), input.path.trim(), { maxBytes: READ_MAX_BYTES });
  const uri = vscode.Uri.file(file.real);
  if (bytes.includes(0)) return { uri, text: `${input.path} is a binary file (${bytes.length} bytes); not shown.` };
  const lines = bytes.toString('utf8').split('\n');
  const start = clampLine(input.startLine, 1, lines.length);
  const end = clampLine(input.endLine, lines.length, lines.length);
  if (end < start) throw new Error(`endLine ${end} is before startLine ${start}`);
  let text = lines.slice(start - 1, end).join('\n');
  const header = start === 1 && end === lines.length ? `${file.rel} (${lines.length} lines)` : `${file.rel} lines ${start}-${end} of ${lines.length}`;
  if (text.length > cap) text = `${text.slice(0, cap)}\n… [cut at ${cap} characters: read a line range with startLine/endLine]`;
  return { uri, text: `${header}\n${text}` };
}

function glob(pattern: string): GlobMatcher {
  try {
    return compileGlob(pattern, { ignoreCase: GLOB_IGNORE_CASE });
  } catch (e) {
    if (e instanceof PatternError) throw new Error(`pattern cannot be used: ${e.message}`);
    throw e;
  }
}

export async function listWorkspaceFiles(input: { pattern?: unknown; max?: unknown }): Promise<string> {
  const ws = currentWorkspace();
  const pattern = typeof input.pattern === 'string' && input.pattern.trim() ? input.pattern.trim() : '**/*';
  const matcher = glob(pattern);
  const max = clampLine(input.max, 500, 5000);
  const names: string[] = [];
  // Files only, as findFiles gave; a linked file counts when the rule lets it be read; linked folders are never entered.
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

export async function searchWorkspaceText(input: { query?: unknown; isRegex?: unknown; include?: unknown; max?: unknown }): Promise<string> {
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
  const max = clampLine(input.max, 100, 2000);
  const ws = currentWorkspace();
  const { hits, truncated } = await searchConfined(ws, ws.resolve('', 'walk'), matcher, {
    include: includeMatcher,
    maxResults: max,
    maxFiles: SEARCH_MAX_FILES,
    maxFileBytes: SEARCH_FILE_MAX_BYTES,
  });
  const out = hits.map((h) => `${h.rel}:${h.line}: ${h.text.trim().slice(0, 300)}`);
  if (truncated) out.push(`… stopped at ${max} matches`);
  return out.length ? out.join('\n') : `No matches for ${input.query} in ${include}.`;
}

export interface PlannedEdit {
  uri: vscode.Uri;
  create: boolean;
  before: string;
  after: string;
}

/** Works out an edit without applying it (the confirmation shows it; invoke applies it). */
export async function planEdit(input: { path?: unknown; oldText?: unknown; newText?: unknown }): Promise<PlannedEdit> {
  const uri = resolveInWorkspace(input.path, 'write');
  if (typeof input.newText !== 'string') throw new Error('newText is required');
  let before: string | undefined;
  try {
    before = (await vscode.workspace.openTextDocument(uri)).getText();
  } catch {
    before = undefined;
  }
  if (typeof input.oldText === 'string' && input.oldText.length) {
    if (before === undefined) throw new Error(`${input.path}: no such file (omit oldText to create it)`);
    const at = before.indexOf(input.oldText);
    if (at < 0) throw new Error(`${input.path}: oldText was not found; read the file and copy the exact text`);
    if (before.indexOf(input.oldText, at + 1) >= 0) throw new Error(`${input.path}: oldText occurs more than once; include more surrounding lines`);
    return { uri, create: false, before, after: before.slice(0, at) + input.newText + before.slice(at + input.oldText.length) };
  }
  return { uri, create: before === undefined, before: before ?? '', after: input.newText };
}

export async function applyEdit(plan: PlannedEdit): Promise<string> {
  // The rule again, right before writing: the path may have become a link since the edit was planned.
  if (resolveInWorkspace(plan.uri.fsPath, 'write').fsPath !== plan.uri.fsPath) throw new Error(`${relativePath(plan.uri)} changed since the edit was proposed; read it again`);
  const edit = new vscode.WorkspaceEdit();
  if (plan.create) {
    edit.createFile(plan.uri, { ignoreIfExists: true, contents: Buffer.from(plan.after, 'utf8') });
  } else {
    const doc = await vscode.workspace.openTextDocument(plan.uri);
    if (doc.getText() !== plan.before) throw new Error(`${relativePath(plan.uri)} changed since the edit was proposed; read it again`);
    edit.replace(plan.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(plan.before.length)), plan.after);
  }
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`the editor refused the edit of ${relativePath(plan.uri)}`);
  if (!plan.create) await (await vscode.workspace.openTextDocument(plan.uri)).save();
  const delta = plan.after.split('\n').length - plan.before.split('\n').length;
  return `${plan.create ? 'Created' : 'Edited'} ${relativePath(plan.uri)} (${plan.after.split('\n').length} lines${plan.create ? '' : `, ${delta >= 0 ? '+' : ''}${delta}`}).`;
}

/** A short unified-looking preview for the confirmation message. */
export function editPreview(plan: PlannedEdit, maxLines = 40): string {
  if (plan.create) return clip(plan.after.split('\n').map((l) => `+ ${l}`), maxLines);
  const a = plan.before.split('\n');
  const b = plan.after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const removed = a.slice(head, a.length - tail).map((l) => `- ${l}`);
  const added = b.slice(head, b.length - tail).map((l) => `+ ${l}`);
  return `@@ line ${head + 1}\n${clip([...removed, ...added], maxLines)}`;
}

function clip(lines: string[], max: number): string {
  return lines.length > max ? [...lines.slice(0, max), `… ${lines.length - max} more lines`].join('\n') : lines.join('\n');
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

/** Runs a shell command in the workspace folder, capturing everything it prints (up to `limitBytes`). */
export function runShellCommand(command: string, opts: { timeoutMs: number; limitBytes?: number; token?: vscode.CancellationToken }): Promise<CommandRun> {
  const cwd = workspaceFolderUri().fsPath;
  const limit = opts.limitBytes ?? 50_000_000;
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, { cwd, shell: true, env: commandEnvironment(), detached: process.platform !== 'win32' });
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
    const sub = opts.token?.onCancellationRequested(kill);
    const take = (into: Buffer[]) => (d: Buffer) => {
      if (size >= limit) return;
      into.push(d);
      size += d.length;
    };
    child.stdout.on('data', take(out));
    child.stderr.on('data', take(err));
    child.on('error', (e) => {
      clearTimeout(timer);
      sub?.dispose();
      reject(new Error(`could not run ${command}: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      sub?.dispose();
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

function clampLine(v: unknown, dflt: number, max: number): number {
  const n = typeof v === 'number' && Number.isFinite(v) ? Math.floor(v) : dflt;
  return Math.max(1, Math.min(max, n));
}
