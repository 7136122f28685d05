/**
 * Where the Copilot Chat, Cline/Roo/Kilo and Gemini CLI files are: path logic plus directory
 * listings (the readers themselves do no I/O). Missing folders give [].
 *
 * The editor knows its own folders: `workspaceStorage` = the parent of `context.storageUri`
 * (`<user-data>/User/workspaceStorage/<workspace id>`, this workspace's folder) and `globalStorage` =
 * the parent of `context.globalStorageUri` (`<user-data>/User/globalStorage`). The CLI finds them
 * from the user-data folders of the usual VS Code builds (`vscodeUserDataDirs`) and, for workspace
 * storage, each folder's `workspace.json`, which names the workspace folder it belongs to.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { CLINE_CWD_PATTERN, CLINE_EXTENSION_IDS, CLINE_TASK_FILES, clineReader, type ClineFamilySource } from './cline';
import { copilotChatReader } from './copilotChat';
import { geminiProjectHash, geminiProjectOfPath, geminiReader } from './gemini';
import { fileUriToPath } from './readerParts';
import type { CaptureSourceSpec, LocateOptions } from './types';

function list(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function filesIn(dir: string, test: (name: string) => boolean): string[] {
  return list(dir).filter((e) => e.isFile() && test(e.name)).map((e) => path.join(dir, e.name)).sort();
}

function dirsIn(dir: string): string[] {
  return list(dir).filter((e) => e.isDirectory()).map((e) => path.join(dir, e.name)).sort();
}

const CHAT_FILE = (n: string) => n.endsWith('.json') || n.endsWith('.jsonl');

/** The user-data folders of VS Code, Insiders, VSCodium, code-server and VS Code Server for a home folder. */
export function vscodeUserDataDirs(home: string, platform: NodeJS.Platform = process.platform, appData?: string): string[] {
  const names = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf'];
  const base = platform === 'darwin' ? path.join(home, 'Library', 'Application Support')
    : platform === 'win32' ? (appData ?? path.join(home, 'AppData', 'Roaming'))
      : path.join(home, '.config');
  return [
    ...names.map((n) => path.join(base, n)),
    path.join(home, '.vscode-server', 'data'),
    path.join(home, '.vscode-server-insiders', 'data'),
    path.join(home, '.local', 'share', 'code-server'),
  ];
}

/** Chat session files of one workspace storage folder (`…/workspaceStorage/<id>`): `chatSessions/*.json[l]`. */
export function locateCopilotChat(workspaceStorage: string): string[] {
  return filesIn(path.join(workspaceStorage, 'chatSessions'), CHAT_FILE);
}

/**
 * Empty windows' chat sessions (`globalStorage/emptyWindowChatSessions`): they belong to no folder,
 * so they are offered to the user rather than captured by workspace scope.
 */
export function locateCopilotEmptyWindowChats(globalStorage: string): string[] {
  return filesIn(path.join(globalStorage, 'emptyWindowChatSessions'), CHAT_FILE);
}

/**
 * The workspace storage folders (under the given user-data folders) that belong to `folder`: their
 * `workspace.json` names it, or names a multi-root workspace file (`.code-workspace`) listing it.
 */
export function workspaceStorageFor(userDataDirs: string[], folder: string): string[] {
  const want = path.resolve(folder);
  const found: string[] = [];
  for (const root of userDataDirs) {
    for (const dir of dirsIn(path.join(root, 'User', 'workspaceStorage'))) {
      if (storageFolders(dir).some((f) => path.resolve(f) === want)) found.push(dir);
    }
  }
  return found;
}

/**
 * The folders a workspace storage folder belongs to, from its `workspace.json`: `{folder}` for a
 * folder, `{workspace}` for a multi-root workspace, whose `.code-workspace` file (JSON with
 * comments) lists its folders by `path` (relative to that file) or by `uri`. Only `file:` folders;
 * none when the storage names none (code-server writes no workspace.json) or cannot be read.
 */
export function storageFolders(storage: string): string[] {
  let ws: unknown;
  try {
    ws = JSON.parse(fs.readFileSync(path.join(storage, 'workspace.json'), 'utf8'));
  } catch {
    return [];
  }
  if (!ws || typeof ws !== 'object') return [];
  const { folder, workspace } = ws as { folder?: unknown; workspace?: unknown };
  if (typeof folder === 'string') return folder.startsWith('file://') ? [fileUriToPath(folder)] : [];
  if (typeof workspace !== 'string' || !workspace.startsWith('file://')) return [];
  const file = fileUriToPath(workspace);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const errors: ParseError[] = [];
  const config = parseJsonc(text, errors, { allowTrailingComma: true }) as { folders?: unknown } | undefined;
  if (!config || !Array.isArray(config.folders)) return [];
  const out: string[] = [];
  for (const entry of config.folders as unknown[]) {
    if (!entry || typeof entry !== 'object') continue;
    const { path: p, uri } = entry as { path?: unknown; uri?: unknown };
    if (typeof p === 'string') out.push(path.resolve(path.dirname(file), p));
    else if (typeof uri === 'string' && uri.startsWith('file://')) out.push(fileUriToPath(uri));
  }
  return out;
}

/** Task files of one Cline-family extension under a global storage folder. */
export function locateClineTasks(globalStorage: string, source: ClineFamilySource): string[] {
  const tasks = path.join(globalStorage, CLINE_EXTENSION_IDS[source], 'tasks');
  const out: string[] = [];
  for (const task of dirsIn(tasks)) {
    for (const f of CLINE_TASK_FILES) if (fs.existsSync(path.join(task, f))) out.push(path.join(task, f));
  }
  return out;
}

/**
 * Gemini CLI files under `~/.gemini/tmp/<project hash>/`: chats (and sub-agents' chats one level
 * down), saved checkpoints, restorable checkpoints and the prompt log. With `projectRoots`, only
 * those projects' folders (workspace scope); without, every project's.
 */
export function locateGemini(home: string, projectRoots?: string[]): string[] {
  const tmp = path.join(home, '.gemini', 'tmp');
  const projects = projectRoots
    ? projectRoots.map((r) => path.join(tmp, geminiProjectHash(r)))
    : dirsIn(tmp);
  const out: string[] = [];
  for (const dir of projects) {
    const chats = path.join(dir, 'chats');
    out.push(...filesIn(chats, CHAT_FILE));
    for (const sub of dirsIn(chats)) out.push(...filesIn(sub, (n) => n.endsWith('.jsonl')));
    out.push(...filesIn(dir, (n) => /^checkpoint-.+\.json$/.test(n)));
    out.push(...filesIn(path.join(dir, 'checkpoints'), (n) => n.endsWith('.json')));
    out.push(...filesIn(dir, (n) => n === 'logs.json'));
  }
  return out;
}

/**
 * The workspace folder a chat session file's storage folder belongs to (`<storage>/workspace.json`,
 * see storageFolders): of a multi-root workspace's folders, the first inside `scope` when one is.
 */
export function copilotChatCwd(file: string, scope?: readonly string[]): string | undefined {
  const folders = storageFolders(path.dirname(path.dirname(file)));
  const inScope = (f: string) => (scope ?? []).some((s) => {
    const rel = path.relative(path.resolve(s), path.resolve(f));
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
  return folders.find(inScope) ?? folders[0];
}

/** The head of a file (the environment details sit in a task's first request). */
function head(file: string, bytes = 256 * 1024): string {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(bytes);
      return buf.toString('utf8', 0, fs.readSync(fd, buf, 0, bytes, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

/** A Cline-family task file's working directory: the environment details of the task's API history (or UI messages). */
export function clineTaskCwd(file: string): string | undefined {
  const dir = path.dirname(file);
  for (const sibling of ['api_conversation_history.json', 'ui_messages.json']) {
    // The text is JSON, so the path's backslashes and quotes are escaped there.
    const m = CLINE_CWD_PATTERN.exec(head(path.join(dir, sibling)));
    if (m) {
      try {
        return JSON.parse(`"${m[1]}"`) as string;
      } catch {
        return m[1];
      }
    }
  }
  return undefined;
}

/** The scope folder whose sha256 names the Gemini CLI project folder a file is in. */
export function geminiCwd(file: string, scope?: readonly string[]): string | undefined {
  const project = geminiProjectOfPath(file);
  return project ? scope?.find((root) => geminiProjectHash(root) === project) : undefined;
}

/** The folders a source's files are in when the editor does not say: every VS Code build's user-data folder. */
function userDataDirs(o: LocateOptions): string[] {
  return vscodeUserDataDirs(o.home);
}

export const COPILOT_CHAT_SOURCE: CaptureSourceSpec = {
  reader: copilotChatReader,
  // The editor passes its own workspace's storage folder; the CLI finds the scope's by workspace.json.
  locate: (o) => {
    const folders = o.workspaceStorage ? [o.workspaceStorage] : (o.scope ?? []).flatMap((f) => workspaceStorageFor(userDataDirs(o), f));
    return [...new Set(folders)].flatMap(locateCopilotChat);
  },
  cwdOf: (p, scope) => copilotChatCwd(p, scope),
};

function clineSource(source: ClineFamilySource): CaptureSourceSpec {
  return {
    reader: clineReader(source),
    locate: (o) => (o.globalStorage ? [o.globalStorage] : userDataDirs(o).map((d) => path.join(d, 'User', 'globalStorage')))
      .flatMap((gs) => locateClineTasks(gs, source)),
    cwdOf: (p) => clineTaskCwd(p),
  };
}

export const CLINE_SOURCES: Record<ClineFamilySource, CaptureSourceSpec> = {
  cline: clineSource('cline'),
  'roo-code': clineSource('roo-code'),
  'kilo-code': clineSource('kilo-code'),
};

export const GEMINI_SOURCE: CaptureSourceSpec = {
  reader: geminiReader,
  locate: (o) => locateGemini(o.home, o.scope ? [...o.scope] : undefined),
  cwdOf: (p, scope) => geminiCwd(p, scope),
};
