/**
 * Which located transcript files a look of the editor's capture hands to the importer: the ones new
 * or changed (size or modification time) since this window last imported them. The importer would
 * find the others unchanged too, by its cursors, but asking it costs a statement and a stat per
 * file on every poll, which for a history of thousands of session files (a heavy user's
 * ~/.codex/sessions) is most of what an idle window spends on capture (bench/capturePoll.bench.mjs).
 * What this window has not imported yet, or imported under another scope or into another log, is
 * handed over whole, so nothing is skipped that the importer would read. Plain Node, no `vscode`.
 */
import { statSync } from 'node:fs';
import { dirname } from 'node:path';

export interface FileChanges {
  /** The files to import now, in the order located. */
  changed: string[];
  /** Size and mtime of each changed file as seen now: recorded by `imported()` once the import succeeded. */
  stamps: Map<string, string>;
  /** Newest modification time of the files in each folder (for watching the busiest folders first). */
  newestIn: Map<string, number>;
}

export class ChangedFiles {
  /** Per source: file → "size:mtime" when this window last imported it. */
  private readonly seen = new Map<string, Map<string, string>>();
  /** What the stamps were recorded for (the workspace folders and the log): another context starts over. */
  private context = '';

  /** Forgets every stamp when the scope or the log differs from the last call's. */
  setContext(context: string): void {
    if (context === this.context) return;
    this.context = context;
    this.seen.clear();
  }

  changes(source: string, files: readonly string[]): FileChanges {
    const seen = this.seen.get(source);
    const changed: string[] = [];
    const stamps = new Map<string, string>();
    const newestIn = new Map<string, number>();
    for (const f of files) {
      let stamp = 'missing';
      try {
        const st = statSync(f);
        stamp = `${st.size}:${st.mtimeMs}`;
        const dir = dirname(f);
        if (st.mtimeMs > (newestIn.get(dir) ?? -Infinity)) newestIn.set(dir, st.mtimeMs);
      } catch {
        // gone since it was located: the importer reports it
      }
      if (seen?.get(f) === stamp) continue;
      changed.push(f);
      stamps.set(f, stamp);
    }
    return { changed, stamps, newestIn };
  }

  /** The import of these files succeeded: until they change, later looks leave them out. */
  imported(source: string, stamps: Map<string, string>): void {
    let seen = this.seen.get(source);
    if (!seen) this.seen.set(source, (seen = new Map()));
    for (const [f, stamp] of stamps) seen.set(f, stamp);
  }
}

/** Folders to watch, busiest first: those holding no located file (where new files appear), then by newest file. */
export function byRecentChange(dirs: readonly string[], newestIn: ReadonlyMap<string, number>): string[] {
  const rank = (d: string) => newestIn.get(d) ?? Infinity;
  return [...dirs].sort((a, b) => rank(b) - rank(a) || (a < b ? -1 : a > b ? 1 : 0));
}
