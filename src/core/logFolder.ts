/**
 * The one writer of `.scroll/.gitignore`: creates the folder that holds a log and, when that folder
 * is the one Scroll owns (`.scroll`), a `.gitignore` of `*`, so the log never lands in version
 * control. An arbitrary `--db` folder gets no such file, and an existing one is left as it is.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

export const SCROLL_FOLDER = '.scroll';

export function prepareLogFolder(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (basename(dir) === SCROLL_FOLDER) {
    const ignore = join(dir, '.gitignore');
    if (!existsSync(ignore)) writeFileSync(ignore, '*\n');
  }
}
