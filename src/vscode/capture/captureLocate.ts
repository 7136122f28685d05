/**
 * Where a source's transcripts for this workspace are, and which folders to watch for changes.
 * Claude Code is narrowed to the project folders of the workspace's folders (`~/.claude/projects`
 * names a folder after its cwd), so a large `~/.claude` costs only this project's files; the other
 * sources use their own `locate` (the importer's scope check drops other projects' sessions).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SOURCES, claudeProjectFolder, filesUnder } from '../../core/capture/sources';
import type { CaptureSource, LocateOptions } from '../../core/capture/types';

export interface Located {
  files: string[];
  /** Folders whose changes mean "look again" (the files' folders, the folders new files appear in). */
  dirs: string[];
}

export function locateForWorkspace(source: CaptureSource, o: LocateOptions & { scope: readonly string[] }): Located {
  if (source === 'claude-code') {
    const projects = path.join(o.home, '.claude', 'projects');
    const prefixes = o.scope.map((root) => claudeProjectFolder(path.resolve(root)));
    let names: string[] = [];
    try {
      names = fs.readdirSync(projects);
    } catch {
      return { files: [], dirs: [] };
    }
    // A session started in a subfolder of the workspace has a folder named after that subfolder.
    const mine = names.filter((n) => prefixes.some((p) => n === p || n.startsWith(`${p}-`))).map((n) => path.join(projects, n));
    const files = mine.flatMap((d) => filesUnder(d, (n) => n.endsWith('.jsonl'), 2));
    const dirs = new Set([projects, ...mine, ...files.map((f) => path.dirname(f))]);
    return { files, dirs: [...dirs] };
  }
  const spec = SOURCES[source];
  if (!spec) return { files: [], dirs: [] };
  const files = spec.locate(o);
  return { files, dirs: [...new Set(files.map((f) => path.dirname(f)))] };
}

/**
 * The working directory of a file whose records name none, as the editor knows it. The source's
 * own `cwdOf` answers first; a chat session file in this window's own workspace storage folder
 * (copilot-chat) belongs to this workspace even when that folder holds no `workspace.json` naming a
 * single folder (code-server writes none; a multi-root workspace's names a configuration): it is
 * given the workspace's first folder.
 */
export function cwdForWorkspace(
  source: CaptureSource,
  file: string,
  o: { scope: readonly string[]; workspaceStorage?: string; sourceCwdOf?: (path: string, scope: readonly string[]) => string | undefined },
): string | undefined {
  const own = o.sourceCwdOf?.(file, o.scope);
  if (own !== undefined || source !== 'copilot-chat' || !o.workspaceStorage || !o.scope.length) return own;
  const rel = path.relative(path.resolve(o.workspaceStorage), path.resolve(file));
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? o.scope[0] : undefined;
}
