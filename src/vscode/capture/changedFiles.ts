/**
 * Which located transcript files a look of the editor's capture hands to the importer: the ones new
 * or changed (size or modification time) since this window last imported them. The importer would
 * find the others unchanged too, by its cursors, but asking it costs a statement and a stat per
 * file on every poll, which for a history of thousands of session files (a heavy user's
 * ~/.codex/sessions) is most of what an idle window spends on capture (bench/capturePoll.bench.mjs).
 * What this window has not imported yet, or imported under another scope or into another log, is
 * handed over whole, so nothing is skipped that the importer would read.
 * Backing off: a file unchanged for COLD_AFTER_MS is not even stat'ed on every look, only on a full
 * one (the caller's every few looks) or when a watcher fired for its folder; an old session that
 * resumes is then seen by its folder's watcher at once, or by the next full look.
 * Plain Node, no `vscode`.
 */
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { SETTLED_AFTER_MS } from '../../core/capture/types';

export interface FileChanges {
  /** The files to import now, in the order located. */
  changed: string[];
  /** Size and mtime of each changed file as seen now: recorded by `imported()` once the import succeeded. */
  stamps: Map<string, { stamp: string; mtimeMs: number }>;
  /** Newest modification time of the files in each folder (for watching the busiest folders first). */
  newestIn: Map<string, number>;
}

/** A file whose last change is older than this is cold: stat'ed on full looks and when its folder's watcher fires. */
export const COLD_AFTER_MS = 10 * 60_000;

export interface LookKind {
  /** Stat every file (else cold files are taken as unchanged). */
  full: boolean;
  /** Folders a watcher reported a change in since the last look: their files are stat'ed. */
  fired?: ReadonlySet<string>;
  /** Now, for telling cold files (ms since the epoch). */
  now?: number;
}

interface Seen {
  stamp: string;
  mtimeMs: number;
  /** The import left something in the file as still being written: hand it over again at this time, changed or not. */
  recheckAt?: number;
}

export class ChangedFiles {
  /** Per source: file → its "size:mtime" and mtime when this window last imported it. */
  private readonly seen = new Map<string, Map<string, Seen>>();
  /** What the stamps were recorded for (the workspace folders and the log): another context starts over. */
  private context = '';

  /** Forgets every stamp when the scope or the log differs from the last call's. */
  setContext(context: string): void {
    if (context === this.context) return;
    this.context = context;
    this.seen.clear();
  }

  changes(source: string, files: readonly string[], look: LookKind = { full: true }): FileChanges {
    const seen = this.seen.get(source);
    const now = look.now ?? Date.now();
    const changed: string[] = [];
    const stamps = new Map<string, Seen>();
    const newestIn = new Map<string, number>();
    const newest = (dir: string, t: number) => {
      if (t > (newestIn.get(dir) ?? -Infinity)) newestIn.set(dir, t);
    };
    for (const f of files) {
      const dir = dirname(f);
      const before = seen?.get(f);
      if (before?.recheckAt !== undefined && now >= before.recheckAt) {
        changed.push(f);
        stamps.set(f, { stamp: before.stamp, mtimeMs: before.mtimeMs });
        continue;
      }
      if (before && !look.full && now - before.mtimeMs > COLD_AFTER_MS && !look.fired?.has(dir)) {
        newest(dir, before.mtimeMs);
        continue;
      }
      let seenNow: Seen = { stamp: 'missing', mtimeMs: -Infinity };
      try {
        const st = statSync(f);
        seenNow = { stamp: `${st.size}:${st.mtimeMs}`, mtimeMs: st.mtimeMs };
        newest(dir, st.mtimeMs);
      } catch {
        // gone since it was located: the importer reports it
      }
      if (before?.stamp === seenNow.stamp) continue;
      changed.push(f);
      stamps.set(f, seenNow);
    }
    return { changed, stamps, newestIn };
  }

  /**
   * The import of these files succeeded: until they change, later looks leave them out. Those it
   * left something of as still being written (`waiting`, the summary's `incomplete`) come back once
   * they have settled (SETTLED_AFTER_MS after their last change), when the importer keeps it as it stands.
   */
  imported(source: string, stamps: FileChanges['stamps'], waiting: readonly string[] = [], now = Date.now()): void {
    let seen = this.seen.get(source);
    if (!seen) this.seen.set(source, (seen = new Map()));
    const later = new Set(waiting);
    for (const [f, stamp] of stamps) {
      const settles = stamp.mtimeMs + SETTLED_AFTER_MS;
      seen.set(f, later.has(f) && now < settles ? { ...stamp, recheckAt: settles } : { stamp: stamp.stamp, mtimeMs: stamp.mtimeMs });
    }
  }
}

/** Folders to watch, busiest first: those holding no located file (where new files appear), then by newest file. */
export function byRecentChange(dirs: readonly string[], newestIn: ReadonlyMap<string, number>): string[] {
  const rank = (d: string) => newestIn.get(d) ?? Infinity;
  return [...dirs].sort((a, b) => rank(b) - rank(a) || (a < b ? -1 : a > b ? 1 : 0));
}
