/**
 * Workspace tools for headless hosts (the `scroll chat` CLI): read, list and search files always;
 * write files and run commands only when the host allows it (`--allow-write`, `--allow-run`).
 * Every path goes through the one confinement rule (`src/core/workspace/confine.ts`), the same the
 * editor's tools use: real paths, no writes through links, no walks into linked folders, `.scroll`
 * not writable in any spelling. Patterns are matched by RE2 (linear time), so none can hang.
 */
import { spawn } from 'node:child_process';
import { toolDescription } from '../../prompts';
import { commandEnvironment } from '../kernel/environment';
import {
  ConfinementError,
  PatternError,
  Workspace,
  WorkspaceFileError,
  compileTextPattern,
  linkTarget,
  readConfined,
  searchConfined,
  walk,
  writeConfined,
  type LineMatcher,
} from '../workspace';
import type { AgentTool, ToolOutput } from './tools';

export interface WorkspaceToolOptions {
  root: string;
  allowWrite?: boolean;
  allowRun?: boolean;
  /** Timeout of run_command (default 60 s, the model may ask for less). */
  runTimeoutMs?: number;
}

const READ_MAX_BYTES = 1_000_000;
const READ_MAX_LINES = 2_000;
const LIST_MAX = 1_000;
const SEARCH_MAX_FILES = 20_000;
const SEARCH_FILE_MAX_BYTES = 1_000_000;
const RUN_OUTPUT_MAX = 20_000;

export function workspaceTools(opts: WorkspaceToolOptions): AgentTool[] {
  const ws = Workspace.open(opts.root);
  const tools: AgentTool[] = [readFileTool(ws), listFilesTool(ws), searchTextTool(ws)];
  if (opts.allowWrite) tools.push(writeFileTool(ws));
  if (opts.allowRun) tools.push(runCommandTool(ws.real, opts.runTimeoutMs ?? 60_000));
  return tools;
}

/**
 * Resolves `p` inside `root` by the confinement rule (`Workspace.resolve`, read access) and
 * returns the resolved path; throws when it is refused.
 */
export function insideRoot(root: string, p: unknown): string {
  return Workspace.open(root).resolve(p, 'read').real;
}

function err(message: string): ToolOutput {
  return { content: message, isError: true };
}

/** A refusal or a failed operation as the tool's error; anything else is a bug and propagates. */
function failure(tool: string, e: unknown): ToolOutput {
  if (e instanceof ConfinementError || e instanceof WorkspaceFileError || e instanceof PatternError) return err(`${tool}: ${e.message}`);
  throw e;
}

function readFileTool(ws: Workspace): AgentTool {
  return {
    definition: {
      name: 'read_file',
      description: toolDescription('read_file'),
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'File path relative to the workspace root.' },
          start_line: { type: 'integer', minimum: 1 },
          end_line: { type: 'integer', minimum: 1 },
        },
        required: ['path'],
      },
    },
    async invoke(input) {
      let data: Buffer;
      let rel: string;
      try {
        const r = await readConfined(ws, input.path, { maxBytes: READ_MAX_BYTES });
        data = r.data;
        rel = r.path.rel;
      } catch (e) {
        if (e instanceof WorkspaceFileError && e.code === 'EISDIR') return err(`read_file: ${input.path} is a folder; use list_files`);
        if (e instanceof WorkspaceFileError && e.code === 'EFBIG') return err(`read_file: ${e.message}; use search_text or run_command to read parts`);
        return failure('read_file', e);
      }
      if (data.includes(0)) return err(`read_file: ${input.path} looks binary (NUL bytes)`);
      const lines = data.toString('utf8').split('\n');
      const start = Math.max(1, Number(input.start_line ?? 1) || 1);
      const end = Math.min(lines.length, Number(input.end_line ?? start + READ_MAX_LINES - 1) || lines.length, start + READ_MAX_LINES - 1);
      const out = lines.slice(start - 1, end).map((l, i) => `${start + i}: ${l}`);
      const more = end < lines.length ? `\n[lines ${end + 1}–${lines.length} not shown; pass start_line]` : '';
      return `${rel} (${lines.length} lines)\n${out.join('\n')}${more}`;
    },
  };
}

function listFilesTool(ws: Workspace): AgentTool {
  return {
    definition: {
      name: 'list_files',
      description: toolDescription('list_files'),
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string' }, recursive: { type: 'boolean' } },
      },
    },
    async invoke(input) {
      const out: string[] = [];
      let truncated = false;
      try {
        const dir = ws.resolve(input.path, 'walk');
        if (!dir.kind) return err(`list_files: cannot list ${input.path ?? '.'}: ENOENT`);
        if (dir.kind !== 'dir') return err(`list_files: ${input.path} is not a folder`);
        for await (const e of walk(ws, dir, { recursive: input.recursive === true })) {
          if (out.length >= LIST_MAX) {
            truncated = true;
            break;
          }
          if (e.kind === 'dir') out.push(`${e.rel}/`);
          else if (e.kind === 'link') out.push(`${e.rel} ${describeLink(ws, e)}`);
          else out.push(e.rel);
        }
      } catch (e) {
        if (e instanceof ConfinementError) return failure('list_files', e);
        return err(`list_files: cannot list ${input.path ?? '.'}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      return out.join('\n') + (truncated ? `\n[stopped at ${LIST_MAX} entries]` : '') || '(empty)';
    },
  };
}

/** How list_files shows a symbolic link: where it leads when that is inside, never entered. */
function describeLink(ws: Workspace, e: Parameters<typeof linkTarget>[1]): string {
  const t = linkTarget(ws, e);
  if (!t) return '(symbolic link leading outside the workspace or nowhere; not followed)';
  return `(symbolic link to ${t.rel}${t.kind === 'dir' ? '/' : ''}; not followed)`;
}

function searchTextTool(ws: Workspace): AgentTool {
  return {
    definition: {
      name: 'search_text',
      description: toolDescription('search_text'),
      inputSchema: {
        type: 'object',
        properties: {
          pattern: { type: 'string' },
          regex: {
            type: 'boolean',
            description: 'Treat pattern as a regular expression (JavaScript syntax, matched by RE2: no backreferences, no lookahead).',
          },
          ignore_case: { type: 'boolean' },
          path: { type: 'string', description: 'Folder or file to search (default: workspace root).' },
          max_results: { type: 'integer', minimum: 1, maximum: 1000 },
        },
        required: ['pattern'],
      },
    },
    async invoke(input, ctx) {
      if (typeof input.pattern !== 'string' || !input.pattern) return err('search_text needs a non-empty "pattern"');
      let matcher: LineMatcher;
      try {
        matcher = compileTextPattern(input.pattern, { regex: input.regex === true, ignoreCase: input.ignore_case === true });
      } catch (e) {
        return failure('search_text', e);
      }
      const max = Math.min(1000, Math.max(1, Number(input.max_results ?? 100) || 100));
      try {
        const base = ws.resolve(input.path, 'walk');
        if (!base.kind) return err(`search_text: ${input.path}: no such file or folder`);
        const { hits, files, truncated } = await searchConfined(ws, base, matcher, {
          maxResults: max,
          maxFiles: SEARCH_MAX_FILES,
          maxFileBytes: SEARCH_FILE_MAX_BYTES,
          signal: ctx?.signal,
        });
        if (!hits.length) return `no match for ${JSON.stringify(input.pattern)} in ${files} file(s)`;
        return hits.map((h) => `${h.rel}:${h.line}: ${h.text.slice(0, 300)}`).join('\n') + (truncated ? `\n[stopped at ${max} results]` : '');
      } catch (e) {
        return failure('search_text', e);
      }
    },
  };
}

function writeFileTool(ws: Workspace): AgentTool {
  return {
    needsConfirmation: true,
    definition: {
      name: 'write_file',
      description: toolDescription('write_file'),
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
      },
    },
    async invoke(input) {
      if (typeof input.content !== 'string') return err('write_file needs "content" (a string)');
      try {
        const written = await writeConfined(ws, input.path, input.content);
        return `wrote ${Buffer.byteLength(input.content)} bytes to ${written.rel}`;
      } catch (e) {
        return failure('write_file', e);
      }
    },
  };
}

function runCommandTool(root: string, maxTimeoutMs: number): AgentTool {
  return {
    needsConfirmation: true,
    definition: {
      name: 'run_command',
      description: toolDescription('run_command'),
      inputSchema: {
        type: 'object',
        properties: { command: { type: 'string' }, timeout_ms: { type: 'integer', minimum: 100 } },
        required: ['command'],
      },
    },
    invoke(input, ctx) {
      if (typeof input.command !== 'string' || !input.command.trim()) return Promise.resolve(err('run_command needs a non-empty "command"'));
      const timeout = Math.min(maxTimeoutMs, Number(input.timeout_ms ?? maxTimeoutMs) || maxTimeoutMs);
      return new Promise<ToolOutput>((done) => {
        // The editor's filter (commandEnvironment): no credentials, no editor IPC handles.
        const child = spawn(input.command as string, { cwd: root, shell: true, env: commandEnvironment(process.env), stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
        let out = '';
        const take = (b: Buffer) => {
          out += b.toString('utf8');
          if (out.length > RUN_OUTPUT_MAX * 2) out = out.slice(-RUN_OUTPUT_MAX);
        };
        child.stdout.on('data', take);
        child.stderr.on('data', take);
        let killedFor: string | null = null;
        const kill = (why: string) => {
          killedFor = why;
          try {
            if (child.pid && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
            else child.kill('SIGKILL');
          } catch {
            /* already gone */
          }
        };
        const timer = setTimeout(() => kill(`timed out after ${timeout} ms`), timeout);
        const onAbort = () => kill('cancelled');
        ctx.signal?.addEventListener('abort', onAbort, { once: true });
        child.on('error', (e) => {
          clearTimeout(timer);
          done(err(`run_command: could not start: ${e.message}`));
        });
        child.on('close', (code, signal) => {
          clearTimeout(timer);
          ctx.signal?.removeEventListener('abort', onAbort);
          const cut = out.length > RUN_OUTPUT_MAX ? `[… first ${out.length - RUN_OUTPUT_MAX} characters cut]\n${out.slice(-RUN_OUTPUT_MAX)}` : out;
          const status = killedFor ? `killed: ${killedFor}` : `exit code ${code ?? signal}`;
          done({ content: `${status}\n${cut}`.trimEnd(), isError: killedFor !== null || code !== 0 });
        });
      });
    },
  };
}
