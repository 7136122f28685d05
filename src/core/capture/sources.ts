/**
 * The sources the importer knows: each one's reader and where its files are. Locating is I/O (it
 * lists folders), so it lives here, not in the readers.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { claudeCodeReader } from './claudeCode';
import { codexReader } from './codex';
import { CLINE_SOURCES, COPILOT_CHAT_SOURCE, GEMINI_SOURCE } from './readerDiscovery';
import type { CaptureSource, CaptureSourceSpec, LocateOptions } from './types';

/** Every file under `dir` (recursively) whose name matches, sorted; a missing folder gives []. */
export function filesUnder(dir: string, match: (name: string) => boolean, depth = 6): string[] {
  const out: string[] = [];
  const walk = (d: string, left: number) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const p = join(d, name);
      let st;
      try {
        st = statSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (left > 0) walk(p, left - 1);
      } else if (st.isFile() && match(name)) out.push(p);
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
