/**
 * File operations behind the confinement rule: each one resolves the model's path with
 * `Workspace.resolve` and then touches only the resolved path.
 * - Reads open the resolved (real) path with O_NOFOLLOW where the OS has it.
 * - Writes create missing folders one at a time (never through a link that appears meanwhile),
 *   then write a temporary file beside the target and rename it over the target: a rename replaces
 *   the name, so a link or a hard link that appeared at the leaf is replaced, never written through.
 * - Searches walk without entering linked folders; a linked file is searched only when the rule
 *   allows reading its target.
 */
import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { ScrollError } from '../errors';
import { ConfinementError, type ConfinedPath, type Workspace } from './confine';
import type { GlobMatcher, LineMatcher } from './patterns';
import { linkTarget, walk, type WalkOptions } from './walk';

/** An operation on a confined path failed (not found, a folder, too large, an I/O error). */
export class WorkspaceFileError extends ScrollError {
  constructor(message: string, code = 'WORKSPACE_FILE') {
    super(message, code);
  }
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

function ioCode(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
}

/** Reads a file inside the workspace (at most `maxBytes`). */
export async function readConfined(ws: Workspace, requested: unknown, opts: { maxBytes: number }): Promise<{ path: ConfinedPath; data: Buffer }> {
  const path = ws.resolve(requested, 'read');
  const shown = path.requested || '.';
  if (!path.kind) throw new WorkspaceFileError(`${shown}: no such file`, 'ENOENT');
  if (path.kind === 'dir') throw new WorkspaceFileError(`${shown} is a folder`, 'EISDIR');
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(path.real, constants.O_RDONLY | NOFOLLOW);
  } catch (e) {
    throw new WorkspaceFileError(`cannot read ${shown}: ${ioCode(e)}`, ioCode(e));
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new WorkspaceFileError(`${shown} is not a regular file`, 'EINVAL');
    if (st.size > opts.maxBytes) throw new WorkspaceFileError(`${shown} is ${st.size} bytes (limit ${opts.maxBytes})`, 'EFBIG');
    return { path, data: await fh.readFile() };
  } finally {
    await fh.close();
  }
}

/** Writes (creates or replaces) a file inside the workspace; creates missing folders. */
export async function writeConfined(ws: Workspace, requested: unknown, content: string | Uint8Array): Promise<ConfinedPath> {
  const path = ws.resolve(requested, 'write');
  const shown = path.requested;
  if (path.kind === 'dir') throw new WorkspaceFileError(`${shown} is a folder`, 'EISDIR');
  if (path.kind === 'other') throw new WorkspaceFileError(`${shown} is not a regular file`, 'EINVAL');
  let dir = path.existing;
  let leaf: string;
  if (path.missing.length) {
    const existing = ws.fs.lstat(dir);
    if (!existing?.isDirectory()) throw new WorkspaceFileError(`cannot write ${shown}: ${ws.relative(dir)} is not a folder`, 'ENOTDIR');
    for (const name of path.missing.slice(0, -1)) {
      dir = ws.path.join(dir, name);
      try {
        await fs.mkdir(dir);
      } catch (e) {
        if (ioCode(e) !== 'EEXIST') throw new WorkspaceFileError(`cannot write ${shown}: ${ioCode(e)}`, ioCode(e));
      }
      // Someone may have put a link there meanwhile: only a real folder will do.
      if (!ws.fs.lstat(dir)?.isDirectory()) throw new ConfinementError(`${JSON.stringify(shown)} changed while it was written (${ws.relative(dir)} is no longer a folder)`, 'symlink');
    }
    leaf = path.missing[path.missing.length - 1];
  } else {
    dir = ws.path.dirname(path.real);
    leaf = ws.path.basename(path.real);
  }
  const target = ws.path.join(dir, leaf);
  let mode = 0o666;
  if (path.kind === 'file') {
    try {
      mode = (await fs.lstat(target)).mode & 0o7777;
    } catch {
      /* gone meanwhile: created afresh */
    }
  }
  const tmp = ws.path.join(dir, `.${leaf}.scroll-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    await fs.writeFile(tmp, content, { flag: 'wx', mode });
    if (path.kind === 'file') await fs.chmod(tmp, mode).catch(() => undefined);
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw new WorkspaceFileError(`cannot write ${shown}: ${ioCode(e)}`, ioCode(e));
  }
  try {
    await fs.rename(tmp, target);
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    // A folder we may add to but not rename in (or Windows with the file open elsewhere): write in place, never through a link.
    if (!['EACCES', 'EPERM', 'EBUSY'].includes(ioCode(e))) throw new WorkspaceFileError(`cannot write ${shown}: ${ioCode(e)}`, ioCode(e));
    try {
      const fh = await fs.open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NOFOLLOW, mode);
      try {
        await fh.writeFile(content);
      } finally {
        await fh.close();
      }
    } catch (e2) {
      throw new WorkspaceFileError(`cannot write ${shown}: ${ioCode(e2)}`, ioCode(e2));
    }
  }
  return { ...path, real: target, rel: ws.relative(target), kind: 'file', missing: [] };
}

export interface SearchHit {
  /** Workspace-relative, `/`-separated (for a linked file: the link's own path). */
  rel: string;
  line: number;
  text: string;
}

export interface SearchOptions extends Pick<WalkOptions, 'skipFolder' | 'signal' | 'maxEntries'> {
  /** Only files whose relative path matches. */
  include?: GlobMatcher;
  maxResults: number;
  /** Files read at most. */
  maxFiles: number;
  /** Larger files are skipped. */
  maxFileBytes: number;
}

export interface SearchOutcome {
  hits: SearchHit[];
  /** Files searched. */
  files: number;
  /** Stopped at maxResults or maxFiles. */
  truncated: boolean;
}

/** Searches the text files under `start` (a confined file or folder) line by line. */
export async function searchConfined(ws: Workspace, start: ConfinedPath, matcher: LineMatcher, opts: SearchOptions): Promise<SearchOutcome> {
  const hits: SearchHit[] = [];
  let files = 0;
  let truncated = false;
  for await (const e of walk(ws, start, { skipFolder: opts.skipFolder, signal: opts.signal, maxEntries: opts.maxEntries })) {
    let file: string | undefined;
    if (e.kind === 'file') file = e.abs;
    else if (e.kind === 'link') {
      const t = linkTarget(ws, e);
      if (t?.kind === 'file') file = t.real;
    }
    if (!file || (opts.include && !opts.include.test(e.rel))) continue;
    if (files >= opts.maxFiles) {
      truncated = true;
      break;
    }
    let data: Buffer;
    try {
      const fh = await fs.open(file, constants.O_RDONLY | NOFOLLOW);
      try {
        const st = await fh.stat();
        if (!st.isFile() || st.size > opts.maxFileBytes) continue;
        data = await fh.readFile();
      } finally {
        await fh.close();
      }
    } catch {
      continue;
    }
    files++;
    if (data.includes(0)) continue;
    const lines = data.toString('utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!matcher.test(lines[i])) continue;
      if (hits.length >= opts.maxResults) {
        truncated = true;
        break;
      }
      hits.push({ rel: e.rel, line: i + 1, text: lines[i] });
    }
    if (truncated) break;
  }
  return { hits, files, truncated };
}
