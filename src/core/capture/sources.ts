/**
 * The sources the importer knows: each one's reader and where its files are. Locating is I/O (it
 * lists folders), so it lives here, not in the readers.
 */
import { existsSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { claudeCodeReader } from './claudeCode';
import { codexReader } from './codex';
import { CLINE_SOURCES, COPILOT_CHAT_SOURCE, GEMINI_SOURCE } from './readerDiscovery';
import type { CaptureSource, CaptureSourceSpec, LocateOptions } from './types';

/** Every file under `dir` (recursively) whose name matches, sorted; a missing folder gives []. */
export function filesUnder(dir: string, match: (name: string) => boolean, depth = 6): string[] {
  const out: string[] = [];
  const walk = (d: string, left: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const p = join(d, entry.name);
      // The entry's type comes with the listing (Node stats an entry whose type the file system does
      // not give): only a symbolic link costs a stat here. A large ~/.codex/sessions is listed on
      // every look of the editor's capture.
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const st = statSync(p);
          isDir = st.isDirectory();
          isFile = st.isFile();
        } catch {
          continue;
        }
      }
      if (isDir) {
        if (left > 0) walk(p, left - 1);
      } else if (isFile && match(entry.name)) out.push(p);
    }
  };
  if (existsSync(dir)) walk(dir, depth);
  return out;
}

/** `~/.claude/projects/<cwd with every non-alphanumeric character as "-">/…`: how Claude Code names a project's folder. */
export function claudeProjectFolder(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

export const SOURCES: Partial<Record<CaptureSource, CaptureSourceSpec>> = {
  'claude-code': {
    reader: claudeCodeReader,
    // Session files and their sub-agents' (`<session>/subagents/agent-*.jsonl`).
    locate: (o: LocateOptions) => filesUnder(join(o.home, '.claude', 'projects'), (n) => n.endsWith('.jsonl'), 3),
  },
  codex: {
    reader: codexReader,
    locate: (o: LocateOptions) => filesUnder(join(o.home, '.codex', 'sessions'), (n) => n.startsWith('rollout-') && n.endsWith('.jsonl'), 4),
  },
  'copilot-chat': COPILOT_CHAT_SOURCE,
  ...CLINE_SOURCES,
  'gemini-cli': GEMINI_SOURCE,
};
