/**
 * Folder walks for list and search tools: depth first, names sorted, and never into a symbolic
 * link. A link is reported as a link (`kind: 'link'`); whether its target is usable is the
 * confinement rule's question (`linkTarget`), asked only when a tool wants the target.
 */
import { promises as fs } from 'node:fs';
import { ConfinementError, isProtectedName, type ConfinedPath, type Workspace } from './confine';

/** Folders nobody wants listed or searched (`.scroll` in any spelling). */
export const SKIPPED_FOLDERS: readonly string[] = ['.git', 'node_modules', '.scroll', 'out', 'dist', '__pycache__'];
const SKIPPED = new Set(SKIPPED_FOLDERS);

export function isSkippedFolder(name: string): boolean {
  return SKIPPED.has(name) || isProtectedName(name);
}

export type WalkKind = 'file' | 'dir' | 'link' | 'other';

export interface WalkEntry {
  /** Relative to the workspace's real root, `/`-separated. */
  rel: string;
  /** Absolute path of the entry itself (for a link: the link, not its target). */
  abs: string;
  name: string;
  kind: WalkKind;
  depth: number;
}

export interface WalkOptions {
  /** Descend into sub-folders (default true). */
  recursive?: boolean;
  /** Folders not entered (default `isSkippedFolder`); they are still reported. */
  skipFolder?: (name: string) => boolean;
  /** Stop after this many entries (default 200,000). */
  maxEntries?: number;
  signal?: AbortSignal;
}

/**
 * The entries under `start` (a confined folder), parents before children. A folder reached only
 * through a symbolic link is never entered. A file `start` yields just itself.
 */
export async function* walk(ws: Workspace, start: ConfinedPath, opts: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const skip = opts.skipFolder ?? isSkippedFolder;
  const max = opts.maxEntries ?? 200_000;
  const recursive = opts.recursive ?? true;
  let seen = 0;
  if (start.kind !== 'dir') {
    if (start.kind) yield { rel: start.rel, abs: start.real, name: ws.path.basename(start.real), kind: start.kind === 'file' ? 'file' : 'other', depth: 0 };
    return;
  }
  async function* folder(abs: string, depth: number): AsyncGenerator<WalkEntry> {
    if (opts.signal?.aborted) return;
    let entries;
    try {
      entries = await fs.readdir(abs, { withFileTypes: true });
    } catch (e) {
      if (depth === 0) throw e;
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const d of entries) {
      if (seen++ >= max || opts.signal?.aborted) return;
      const child = ws.path.join(abs, d.name);
      // Dirent types come from lstat semantics: a link to a folder is a link, not a folder.
      const kind: WalkKind = d.isSymbolicLink() ? 'link' : d.isDirectory() ? 'dir' : d.isFile() ? 'file' : 'other';
      yield { rel: ws.relative(child), abs: child, name: d.name, kind, depth };
      if (kind === 'dir' && recursive && !skip(d.name)) yield* folder(child, depth + 1);
    }
  }
  yield* folder(start.real, 0);
}

/** Where a link found by `walk` leads, when the confinement rule allows reading it; undefined otherwise. */
export function linkTarget(ws: Workspace, entry: WalkEntry): ConfinedPath | undefined {
  try {
    return ws.resolve(entry.abs, 'read');
  } catch (e) {
    if (e instanceof ConfinementError) return undefined;
    throw e;
  }
}
