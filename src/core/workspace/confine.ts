/**
 * The one confinement rule of every workspace tool (CLI and editor alike).
 *
 * A model-given path is resolved the way the file system would resolve it, not lexically:
 *   1. `path.resolve(realRoot, p)` (`..` is folded lexically, as every tool's users expect);
 *   2. the longest prefix that exists (by `lstat`: a dangling link exists) gets its real path
 *      (`realpath`, which follows every link on the way); the part that does not exist yet is
 *      appended as is;
 *   3. the result must lie inside the workspace's real path.
 * Every file operation then uses that result, never the model's string, so what was checked is
 * what is touched. On top of that:
 *   - a write never goes through a symbolic link at the leaf (dangling or not), and a prefix that
 *     is a dangling link is refused for every access;
 *   - `.scroll` (the event log) is not writable in any spelling: names are compared case-folded
 *     (and without what case-insensitive file systems ignore: trailing dots and spaces, `:stream`
 *     suffixes, Unicode ignorables), on the lexical path and the real one; and when `.scroll`
 *     exists, by identity (device + inode) of every existing folder on the way, which also catches
 *     8.3 short names and other aliases a case-insensitive file system accepts;
 *   - walks (`walk.ts`) never descend into a symbolic link.
 * The `path` flavour and the few file system calls are injectable so that the Windows rules
 * (drive letters in any case, `\` separators, other drives) are tested on any OS with `path.win32`.
 */
import * as nodeFs from 'node:fs';
import * as nodePath from 'node:path';
import { ScrollError } from '../errors';

/** What the caller is about to do with the path. */
export type Access = 'read' | 'write' | 'walk';

export type ConfinementReason = 'invalid' | 'outside' | 'symlink' | 'dangling' | 'protected' | 'unreadable';

/** A path the confinement rule refused; `message` says why in words the model can act on. */
export class ConfinementError extends ScrollError {
  readonly reason: ConfinementReason;
  constructor(message: string, reason: ConfinementReason) {
    super(message, 'WORKSPACE_CONFINEMENT');
    this.reason = reason;
  }
}

/** The part of `fs.Stats` the rule looks at. */
export interface EntryStat {
  isSymbolicLink(): boolean;
  isDirectory(): boolean;
  isFile(): boolean;
  dev: number | bigint;
  ino: number | bigint;
}

/** The file system calls the rule makes (synchronous: a handful per call). */
export interface ConfineFs {
  /** `lstat`; undefined when nothing is there (ENOENT, ENOTDIR); throws on other errors. */
  lstat(p: string): EntryStat | undefined;
  /** `stat` (follows links); undefined when nothing is there. */
  stat(p: string): EntryStat | undefined;
  /** The real path (every link followed, canonical case where the OS gives it); throws when it cannot be resolved. */
  realpath(p: string): string;
}

const ABSENT = new Set(['ENOENT', 'ENOTDIR']);

function quiet<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch (e) {
    if (ABSENT.has((e as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw e;
  }
}

/** The real file system. `realpath.native` canonicalises case on Windows and macOS; the JS one is the fallback. */
export const nodeConfineFs: ConfineFs = {
  lstat: (p) => quiet(() => nodeFs.lstatSync(p)),
  stat: (p) => quiet(() => nodeFs.statSync(p)),
  realpath(p) {
    try {
      return nodeFs.realpathSync.native(p);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? '';
      if (ABSENT.has(code) || code === 'ELOOP' || code === 'EACCES' || code === 'EPERM') throw e;
      return nodeFs.realpathSync(p); // some virtual drives fail the native call
    }
  },
};

/** The log's folder: never writable by a tool, never listed or searched. */
export const PROTECTED_NAME = '.scroll';

/** Code points some file systems ignore in names (HFS+; cf. git's CVE-2014-9390 checks). */
const IGNORABLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u206a-\u206f\ufeff]/g;

/**
 * A name as a case-insensitive file system would compare it: Unicode-compatibility folded, case
 * folded, without ignorable code points, trailing dots and spaces (Windows drops them) or an
 * alternate data stream suffix (`name:stream`).
 */
export function foldName(name: string): string {
  let n = name.normalize('NFKC').replace(IGNORABLE, '');
  const colon = n.indexOf(':');
  if (colon > 0) n = n.slice(0, colon);
  return n.replace(/[. ]+$/, '').toUpperCase().toLowerCase();
}

/** True when the name is `.scroll` in some spelling. */
export function isProtectedName(name: string): boolean {
  return foldName(name) === PROTECTED_NAME;
}

/** True when a relative path (either separator) has a `.scroll` segment. */
export function hasProtectedSegment(rel: string): boolean {
  return rel.split(/[\\/]+/).some(isProtectedName);
}

export interface WorkspaceOptions {
  /** `path` flavour (default: the platform's). */
  path?: nodePath.PlatformPath;
  /** File system calls (default: the real ones). */
  fs?: ConfineFs;
}

export type EntryKind = 'file' | 'dir' | 'other';

export interface ConfinedPath {
  /** What the model asked for (for messages). */
  readonly requested: string;
  /** The resolved path: real path of the longest existing prefix + the rest. Use it for every operation. */
  readonly real: string;
  /** `real` relative to the workspace's real root, `/`-separated; `.` for the root. */
  readonly rel: string;
  /** What is at `real` now (undefined when it does not exist yet). `real` is never a link itself. */
  readonly kind?: EntryKind;
  /** The real path of the part that exists. */
  readonly existing: string;
  /** Names still to create under `existing` (empty when `real` exists). */
  readonly missing: readonly string[];
}

/** A workspace root and the rule applied to paths under it. */
export class Workspace {
  /** The root as given, resolved to an absolute path. */
  readonly root: string;
  /** Its real path: what every confined path must lie in. */
  readonly real: string;
  readonly path: nodePath.PlatformPath;
  readonly fs: ConfineFs;

  private constructor(root: string, real: string, p: nodePath.PlatformPath, fs: ConfineFs) {
    this.root = root;
    this.real = real;
    this.path = p;
    this.fs = fs;
  }

  static open(root: string, opts: WorkspaceOptions = {}): Workspace {
    const p = opts.path ?? nodePath;
    const fs = opts.fs ?? nodeConfineFs;
    const abs = p.resolve(root);
    let real: string;
    try {
      real = fs.realpath(abs);
    } catch (e) {
      throw new ConfinementError(`the workspace folder ${abs} cannot be opened: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'unreadable');
    }
    return new Workspace(abs, real, p, fs);
  }

  /** True when `abs` (an absolute, already resolved path) is the root or inside it. */
  contains(abs: string): boolean {
    const rel = this.path.relative(this.real, abs);
    return rel === '' || !(rel === '..' || rel.startsWith(`..${this.path.sep}`) || this.path.isAbsolute(rel));
  }

  /** `abs` relative to the real root, `/`-separated (`.` for the root). */
  relative(abs: string): string {
    return this.path.relative(this.real, abs).split(this.path.sep).join('/') || '.';
  }

  /**
   * Applies the rule to a model-given path (relative to the root, or absolute); throws
   * `ConfinementError` when it is refused. An empty or missing path is the root (not for writes).
   */
  resolve(requested: unknown, access: Access): ConfinedPath {
    const P = this.path;
    if (requested !== undefined && requested !== null && typeof requested !== 'string') throw new ConfinementError('path must be a string', 'invalid');
    const p = (requested as string | undefined | null) || '';
    if (!p && access === 'write') throw new ConfinementError('path is required', 'invalid');
    if (p.includes('\0')) throw new ConfinementError('path must not contain NUL characters', 'invalid');
    const shown = JSON.stringify(p || '.');
    const lexical = P.resolve(this.real, p || '.');

    // The longest prefix that exists (a dangling link exists: lstat sees it).
    const tail: string[] = [];
    let cur = lexical;
    let st: EntryStat | undefined;
    for (;;) {
      try {
        st = this.fs.lstat(cur);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ELOOP') throw new ConfinementError(`${shown} goes through symbolic links that form a loop`, 'dangling');
        throw new ConfinementError(`cannot resolve ${shown}: ${code ?? (e as Error).message}`, 'unreadable');
      }
      if (st) break;
      const parent = P.dirname(cur);
      if (parent === cur) throw new ConfinementError(`path ${shown} is outside the workspace ${this.root}`, 'outside');
      tail.unshift(P.basename(cur));
      cur = parent;
    }
    if (st.isSymbolicLink() && tail.length === 0 && access === 'write') {
      throw new ConfinementError(`${shown} is a symbolic link: files are not written through links (write to the path it points to, if that is in the workspace)`, 'symlink');
    }
    let existing: string;
    try {
      existing = this.fs.realpath(cur);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (st.isSymbolicLink()) {
        const what = tail.length ? `goes through ${JSON.stringify(this.lexicalRel(cur))}, a symbolic link that` : 'is a symbolic link that';
        throw new ConfinementError(`${shown} ${what} leads nowhere${code === 'ELOOP' ? ' (a loop)' : ''}`, 'dangling');
      }
      throw new ConfinementError(`cannot resolve ${shown}: ${code ?? (e as Error).message}`, 'unreadable');
    }
    const real = tail.length ? P.join(existing, ...tail) : existing;
    if (!this.contains(real)) throw new ConfinementError(`path ${shown} is outside the workspace ${this.root}`, 'outside');
    const rel = this.relative(real);

    if (access === 'write' && (hasProtectedSegment(this.lexicalRel(lexical)) || hasProtectedSegment(rel) || this.inProtectedFolder(existing))) {
      throw new ConfinementError(`${shown} is in the ${PROTECTED_NAME} folder, which holds the event log and is not writable`, 'protected');
    }
    let kind: EntryKind | undefined;
    if (!tail.length) {
      const s = this.fs.lstat(real);
      kind = !s ? undefined : s.isFile() ? 'file' : s.isDirectory() ? 'dir' : 'other';
    }
    return { requested: p, real, rel, kind, existing, missing: tail };
  }

  /** True when the existing real path `abs` is the log's folder or inside it, compared by identity. */
  inProtectedFolder(abs: string): boolean {
    const ids = this.protectedIds();
    if (!ids.length) return false;
    for (let cur = abs; this.contains(cur); ) {
      const s = this.fs.stat(cur);
      if (s && ids.some((id) => sameEntry(id, s))) return true;
      const parent = this.path.dirname(cur);
      if (parent === cur || cur === this.real) break;
      cur = parent;
    }
    return false;
  }

  private protectedIds(): EntryStat[] {
    const at = this.path.join(this.real, PROTECTED_NAME);
    const ids: EntryStat[] = [];
    const own = this.fs.lstat(at);
    if (own && !own.isSymbolicLink()) ids.push(own);
    const target = own?.isSymbolicLink() ? this.fs.stat(at) : undefined;
    if (target) ids.push(target);
    return ids.filter((s) => Number(s.ino) !== 0);
  }

  /** A lexical absolute path relative to the root as given or as real, whichever it is under. */
  private lexicalRel(abs: string): string {
    for (const base of [this.real, this.root]) {
      const rel = this.path.relative(base, abs);
      if (!(rel === '..' || rel.startsWith(`..${this.path.sep}`) || this.path.isAbsolute(rel))) return rel.split(this.path.sep).join('/') || '.';
    }
    return '.';
  }
}

function sameEntry(a: EntryStat, b: EntryStat): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}
