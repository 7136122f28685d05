/**
 * Workspace tools for headless hosts (the `scroll chat` CLI): read, list and search files always;
 * write files and run commands only when the host allows it (`--allow-write`, `--allow-run`).
 * Every path is resolved inside the workspace root; anything that escapes it is refused.
 */
import { spawn } from 'node:child_process';
import { promises as fs, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { toolDescription } from '../../prompts';
import type { AgentTool, ToolOutput } from './tools';

export interface WorkspaceToolOptions {
  root: string;
  allowWrite?: boolean;
  allowRun?: boolean;
  /** Timeout of run_command (default 60 s, the model may ask for less). */
  runTimeoutMs?: number;
}

const SKIP_DIRS = new Set(['.git', 'node_modules', '.scroll', 'out', 'dist', '__pycache__']);
const READ_MAX_BYTES = 1_000_000;
const READ_MAX_LINES = 2_000;
const LIST_MAX = 1_000;
const SEARCH_MAX_FILES = 20_000;
const SEARCH_FILE_MAX_BYTES = 1_000_000;
const RUN_OUTPUT_MAX = 20_000;

export function workspaceTools(opts: WorkspaceToolOptions): AgentTool[] {
  const root = realpathSync(resolve(opts.root));
  const tools: AgentTool[] = [readFileTool(root), listFilesTool(root), searchTextTool(root)];
  if (opts.allowWrite) tools.push(writeFileTool(root));
  if (opts.allowRun) tools.push(runCommandTool(root, opts.runTimeoutMs ?? 60_000));
  return tools;
}

/** Resolves `p` inside `root`, following symlinks of the existing part; throws when it escapes. */
export function insideRoot(root: string, p: unknown): string {
  if (p !== undefined && typeof p !== 'string') throw new Error('path must be a string');
  const target = resolve(root, (p as string | undefined) || '.');
  let real = target;
  // Follow symlinks of the longest existing prefix so a link cannot point outside.
  const tail: string[] = [];
  for (let cur = target; ; ) {
    try {
      real = join(realpathSync(cur), ...tail);
      break;
    } catch {
      const parent = dirname(cur);
      if (parent === cur) break;
      tail.unshift(basename(cur));
      cur = parent;
    }
  }
  const rel = relative(root, real);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new Error(`path ${JSON.stringify(p)} is outside the workspace ${root}`);
  }
  return real;
}

function err(message: string): ToolOutput {
  return { content: message, isError: true };
}

function readFileTool(root: string): AgentTool {
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
      let file: string;
      try {
        file = insideRoot(root, input.path);
      } catch (e) {
        return err(`read_file: ${(e as Error).message}`);
      }
      let data: Buffer;
      try {
        const st = await fs.stat(file);
        if (st.isDirectory()) return err(`read_file: ${input.path} is a folder; use list_files`);
        if (st.size > READ_MAX_BYTES) return err(`read_file: ${input.path} is ${st.size} bytes (limit ${READ_MAX_BYTES}); use search_text or run_command to read parts`);
        data = await fs.readFile(file);
      } catch (e) {
        return err(`read_file: cannot read ${input.path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      if (data.includes(0)) return err(`read_file: ${input.path} looks binary (NUL bytes)`);
      const lines = data.toString('utf8').split('\n');
      const start = Math.max(1, Number(input.start_line ?? 1) || 1);
      const end = Math.min(lines.length, Number(input.end_line ?? start + READ_MAX_LINES - 1) || lines.length, start + READ_MAX_LINES - 1);
      const out = lines.slice(start - 1, end).map((l, i) => `${start + i}: ${l}`);
      const more = end < lines.length ? `\n[lines ${end + 1}–${lines.length} not shown; pass start_line]` : '';
      return `${relative(root, file)} (${lines.length} lines)\n${out.join('\n')}${more}`;
    },
  };
}

function listFilesTool(root: string): AgentTool {
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
      let dir: string;
      try {
        dir = insideRoot(root, input.path);
      } catch (e) {
        return err(`list_files: ${(e as Error).message}`);
      }
      const out: string[] = [];
      let truncated = false;
      const walk = async (d: string, depth: number): Promise<void> => {
        let entries;
        try {
          entries = await fs.readdir(d, { withFileTypes: true });
        } catch (e) {
          if (depth === 0) throw e;
          return;
        }
        entries.sort((a, b) => a.name.localeCompare(b.name));
        for (const e of entries) {
          if (out.length >= LIST_MAX) {
            truncated = true;
            return;
          }
          const rel = relative(root, join(d, e.name)) || '.';
          if (e.isDirectory()) {
            if (SKIP_DIRS.has(e.name)) continue;
            out.push(`${rel}/`);
            if (input.recursive) await walk(join(d, e.name), depth + 1);
          } else out.push(rel);
        }
      };
      try {
        await walk(dir, 0);
      } catch (e) {
        return err(`list_files: cannot list ${input.path ?? '.'}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      return out.join('\n') + (truncated ? `\n[stopped at ${LIST_MAX} entries]` : '') || '(empty)';
    },
  };
}

function searchTextTool(root: string): AgentTool {
  return {
    definition: {
      name: 'search_text',
      description: toolDescription('search_text'),
      inputSchema: {
        type: 'object',
        properties: {
          pattern: { type: 'string' },
          regex: { type: 'boolean', description: 'Treat pattern as a JavaScript regular expression.' },
          ignore_case: { type: 'boolean' },
          path: { type: 'string', description: 'Folder or file to search (default: workspace root).' },
          max_results: { type: 'integer', minimum: 1, maximum: 1000 },
        },
        required: ['pattern'],
      },
    },
    async invoke(input) {
      if (typeof input.pattern !== 'string' || !input.pattern) return err('search_text needs a non-empty "pattern"');
      let re: RegExp;
      try {
        const src = input.regex ? input.pattern : input.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        re = new RegExp(src, input.ignore_case ? 'i' : '');
      } catch (e) {
        return err(`search_text: bad regular expression: ${(e as Error).message}`);
      }
      let base: string;
      try {
        base = insideRoot(root, input.path);
      } catch (e) {
        return err(`search_text: ${(e as Error).message}`);
      }
      const max = Math.min(1000, Math.max(1, Number(input.max_results ?? 100) || 100));
      const hits: string[] = [];
      let files = 0;
      const visit = async (p: string): Promise<void> => {
        if (hits.length >= max || files >= SEARCH_MAX_FILES) return;
        let st;
        try {
          st = await fs.stat(p);
        } catch {
          return;
        }
        if (st.isDirectory()) {
          const entries = await fs.readdir(p, { withFileTypes: true }).catch(() => []);
          entries.sort((a, b) => a.name.localeCompare(b.name));
          for (const e of entries) {
            if (e.isDirectory() && SKIP_DIRS.has(e.name)) continue;
            await visit(join(p, e.name));
            if (hits.length >= max) return;
          }
          return;
        }
        if (!st.isFile() || st.size > SEARCH_FILE_MAX_BYTES) return;
        files++;
        const data = await fs.readFile(p).catch(() => null);
        if (!data || data.includes(0)) return;
        const lines = data.toString('utf8').split('\n');
        for (let i = 0; i < lines.length && hits.length < max; i++) {
          if (re.test(lines[i])) hits.push(`${relative(root, p)}:${i + 1}: ${lines[i].slice(0, 300)}`);
        }
      };
      await visit(base);
      if (!hits.length) return `no match for ${JSON.stringify(input.pattern)} in ${files} file(s)`;
      return hits.join('\n') + (hits.length >= max ? `\n[stopped at ${max} results]` : '');
    },
  };
}

function writeFileTool(root: string): AgentTool {
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
      let file: string;
      try {
        file = insideRoot(root, input.path);
      } catch (e) {
        return err(`write_file: ${(e as Error).message}`);
      }
      if (relative(root, file).split(sep)[0] === '.scroll') return err('write_file: the .scroll folder holds the event log and is not writable');
      try {
        await fs.mkdir(dirname(file), { recursive: true });
        await fs.writeFile(file, input.content);
      } catch (e) {
        return err(`write_file: cannot write ${input.path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      return `wrote ${Buffer.byteLength(input.content)} bytes to ${relative(root, file)}`;
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
        const child = spawn(input.command as string, { cwd: root, shell: true, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
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
