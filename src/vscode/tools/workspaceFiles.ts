/**
 * What the coding tools do to the workspace: read, list, search, edit, run. Paths are relative to
 * the first workspace folder and may not leave it: every path, walk and pattern goes through the
 * core's confinement rule (`src/core/workspace`), the same the CLI's tools use — real paths, no
 * writes through links, no walks into linked folders, `.scroll` not writable in any spelling,
 * regular expressions and globs matched by RE2 (linear time). Results are plain text for the model.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  SKIPPED_FOLDERS,
  Workspace,
  editSummary,
  listFiles,
  plannedText,
  readFileText,
  runShellCommand,
  searchText,
  type Access,
  type CommandRun,
} from '../../core/workspace';

export { formatCommandRun, type CommandRun } from '../../core/workspace';

/** Folders nobody wants listed or searched (the walk skips exactly these, `.scroll` in any spelling). */
export const DEFAULT_EXCLUDE = `{${SKIPPED_FOLDERS.map((f) => `**/${f}/**`).join(',')}}`;

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
  const { text, file } = await readFileText(currentWorkspace(), input, cap);
  return { text, uri: vscode.Uri.file(file.real) };
}

export function listWorkspaceFiles(input: { pattern?: unknown; max?: unknown }): Promise<string> {
  return listFiles(currentWorkspace(), input);
}

export function searchWorkspaceText(input: { query?: unknown; isRegex?: unknown; include?: unknown; max?: unknown }): Promise<string> {
  return searchText(currentWorkspace(), input);
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
  let before: string | undefined;
  try {
    before = (await vscode.workspace.openTextDocument(uri)).getText();
  } catch {
    before = undefined;
  }
  const { create, after } = plannedText(String(input.path), before, input);
  return { uri, create, before: before ?? '', after };
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
  return editSummary(relativePath(plan.uri), plan.create, plan.before, plan.after);
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

/** Runs a shell command in the workspace folder, capturing everything it prints (up to `limitBytes`). */
export function runWorkspaceCommand(command: string, opts: { timeoutMs: number; limitBytes?: number; token?: vscode.CancellationToken }): Promise<CommandRun> {
  const abort = new AbortController();
  const sub = opts.token?.onCancellationRequested(() => abort.abort());
  return runShellCommand(command, { cwd: workspaceFolderUri().fsPath, timeoutMs: opts.timeoutMs, limitBytes: opts.limitBytes, signal: abort.signal }).finally(() => sub?.dispose());
}
