/**
 * `ms.sql` for the host: one persistent Python helper per event log (kernel/scroll_sql_server.py)
 * that opens the log read-only under an SQLite authorizer and stops a statement at its time limit.
 * better-sqlite3 has neither an authorizer nor a way to interrupt a statement, so the SQL the model
 * writes never runs on the host's own connection. See docs/MEMORY-PROTOCOL.md ("sql").
 *
 * JSON lines on the helper's stdin/stdout, one request at a time (queued here). The helper starts
 * on the first query; when it does not answer within the time limit + 2 s it is killed, the query
 * fails with TimeoutError and the next query starts a fresh one.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { onJsonLines } from '../jsonLines';
import { findKernelDir, kernelEnvironment } from '../kernel/environment';

/** The Python exception a failed `ms` call becomes in the kernel (docs/MEMORY-PROTOCOL.md). */
export type MemoryErrorType = 'KeyError' | 'ValueError' | 'TypeError' | 'PermissionError' | 'TimeoutError' | 'RuntimeError';

/** A failed `ms` call: `type` names the Python exception the kernel raises, with `message`. */
export class MemoryCallError extends Error {
  constructor(
    readonly type: MemoryErrorType,
    message: string,
  ) {
    super(message);
    this.name = 'MemoryCallError';
  }
}

export interface SqlResult {
  columns: string[];
  rows: unknown[][];
  truncated: boolean;
}

export interface ReadOnlySqlOptions {
  dbPath: string;
  /** Python executable. Default `python3` (`python` on Windows). */
  python?: string;
  /** Folder holding scroll_sql_server.py. Default: `kernel/` at the package root. */
  kernelDir?: string;
  /** Time limit of one statement. Default 5,000 ms. */
  timeoutMs?: number;
  /** Environment to start from (stripped to the kernel's allowlist). Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** How long the helper may take to open the log. Default 15,000 ms. */
  startTimeoutMs?: number;
}

/** Grace beyond the statement's own limit before the helper is killed (it stops itself first). */
const KILL_GRACE_MS = 2000;
const ERROR_TYPES = new Set<MemoryErrorType>(['KeyError', 'ValueError', 'TypeError', 'PermissionError', 'TimeoutError', 'RuntimeError']);

interface Pending {
  id: number;
  resolve(r: SqlResult): void;
  reject(e: MemoryCallError): void;
  timer: NodeJS.Timeout;
}

interface Helper {
  child: ChildProcessWithoutNullStreams;
  ready: Promise<void>;
  stderr: string;
  exited: boolean;
}

export class ReadOnlySql {
  readonly dbPath: string;
  private readonly python: string;
  private readonly kernelDir?: string;
  private readonly timeoutMs: number;
  private readonly startTimeoutMs: number;
  private readonly env: NodeJS.ProcessEnv;
  private helper?: Helper;
  private pending?: Pending;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private disposed = false;

  constructor(opts: ReadOnlySqlOptions) {
    this.dbPath = resolve(opts.dbPath);
    this.python = opts.python || (process.platform === 'win32' ? 'python' : 'python3');
    this.kernelDir = opts.kernelDir;
    this.timeoutMs = opts.timeoutMs ?? 5000;
    if (!(Number.isFinite(this.timeoutMs) && this.timeoutMs > 0)) throw new RangeError(`timeoutMs must be a positive number (got ${opts.timeoutMs})`);
    this.startTimeoutMs = opts.startTimeoutMs ?? 15_000;
    this.env = opts.env ?? process.env;
  }

  /** One read-only statement: `params` a list (for `?`) or an object (for `:name`). Queued behind earlier queries. */
  query(sql: string, params: unknown = []): Promise<SqlResult> {
    if (typeof sql !== 'string') return Promise.reject(new MemoryCallError('TypeError', 'ms.sql: query must be a string'));
    if (params === undefined || params === null) params = [];
    if (typeof params !== 'object') {
      return Promise.reject(new MemoryCallError('TypeError', `ms.sql: params must be a list (for ?) or a dict (for :name), got ${typeof params}`));
    }
    let line: string;
    const id = this.nextId++;
    try {
      line = JSON.stringify({ id, sql, params, timeout_ms: this.timeoutMs }) + '\n';
    } catch (e) {
      return Promise.reject(new MemoryCallError('TypeError', `ms.sql: the parameters cannot be sent (${e instanceof Error ? e.message : String(e)})`));
    }
    const run = this.queue.then(() => this.send(id, line));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Stops the helper; queued and later queries fail with RuntimeError. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.failPending(new MemoryCallError('RuntimeError', 'ms.sql: closed'));
    this.stop();
  }

  private async send(id: number, line: string): Promise<SqlResult> {
    if (this.disposed) throw new MemoryCallError('RuntimeError', 'ms.sql: closed');
    const helper = this.ensureHelper();
    await helper.ready;
    if (this.disposed) throw new MemoryCallError('RuntimeError', 'ms.sql: closed');
    if (helper.exited || helper !== this.helper) throw new MemoryCallError('RuntimeError', `ms.sql: the SQL helper stopped${stderrNote(helper)}`);
    return new Promise<SqlResult>((resolvePromise, rejectPromise) => {
      const timer = setTimeout(() => {
        // The helper stops a statement itself at the limit; no answer means it is stuck.
        this.failPending(new MemoryCallError('TimeoutError', `ms.sql: the query ran past ${seconds(this.timeoutMs)} s and was stopped`));
        this.stop();
      }, this.timeoutMs + KILL_GRACE_MS);
      this.pending = { id, resolve: resolvePromise, reject: rejectPromise, timer };
      helper.child.stdin.write(line);
    });
  }

  private ensureHelper(): Helper {
    if (this.helper && !this.helper.exited) return this.helper;
    const kernelDir = this.kernelDir ?? findKernelDir();
    const script = join(kernelDir, 'scroll_sql_server.py');
    let child: ChildProcessWithoutNullStreams;
    const fail = (message: string) => new MemoryCallError('RuntimeError', message);
    if (!existsSync(script)) {
      const err = fail(`ms.sql: the SQL helper ${script} is missing; the package is incomplete`);
      return { child: undefined as never, ready: Promise.reject(err), stderr: '', exited: true };
    }
    try {
      // -I: isolated mode (no PYTHON* variables, no user site-packages, script folder not on sys.path).
      child = spawn(this.python, ['-I', script, '--db', this.dbPath, '--timeout-ms', String(this.timeoutMs)], {
        cwd: kernelDir,
        env: kernelEnvironment(this.env),
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (e) {
      const err = startError(this.python, e);
      return { child: undefined as never, ready: Promise.reject(err), stderr: '', exited: true };
    }
    // The helper never keeps the host alive: a pending query's timer does, while it waits.
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr]) (s as unknown as { unref?: () => void }).unref?.();
    let markReady!: () => void;
    let failStart!: (e: MemoryCallError) => void;
    const helper: Helper = {
      child,
      stderr: '',
      exited: false,
      ready: new Promise<void>((ok, no) => {
        markReady = ok;
        failStart = no;
      }),
    };
    helper.ready.catch(() => undefined);
    this.helper = helper;
    let started = false;
    const startTimer = setTimeout(() => {
      failStart(fail(`ms.sql: the SQL helper did not start within ${this.startTimeoutMs} ms${stderrNote(helper)}`));
      if (this.helper === helper) this.stop();
    }, this.startTimeoutMs);
    onJsonLines(child.stdout, (msg) => {
      if (!started && 'ready' in msg) {
        started = true;
        clearTimeout(startTimer);
        if (msg.ready === true) markReady();
        else failStart(replyError(msg.error) ?? fail(`ms.sql: the SQL helper could not open ${this.dbPath}${stderrNote(helper)}`));
        return;
      }
      this.onReply(helper, msg);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      helper.stderr = (helper.stderr + chunk).slice(-4000);
    });
    child.stdin.on('error', () => undefined); // EPIPE after the helper died: reported by 'exit'
    child.on('error', (e) => {
      helper.exited = true;
      clearTimeout(startTimer);
      const err = startError(this.python, e);
      failStart(err);
      if (this.helper === helper) this.failPending(err);
    });
    // 'close', not 'exit': its last lines (a ready:false error) are read by then.
    child.on('close', (code, signal) => {
      helper.exited = true;
      clearTimeout(startTimer);
      const how = signal ? `killed by ${signal}` : `exit code ${code}`;
      failStart(fail(`ms.sql: the SQL helper exited before it was ready (${how})${stderrNote(helper)}`));
      if (this.helper === helper) {
        this.failPending(fail(`ms.sql: the SQL helper stopped (${how})${stderrNote(helper)}`));
        this.helper = undefined;
      }
    });
    return helper;
  }

  private onReply(helper: Helper, msg: Record<string, unknown>): void {
    const p = this.pending;
    if (!p || helper !== this.helper || msg.id !== p.id) return; // a stale answer
    this.pending = undefined;
    clearTimeout(p.timer);
    const err = 'error' in msg ? replyError(msg.error) ?? new MemoryCallError('RuntimeError', 'ms.sql: the helper sent a malformed error') : undefined;
    if (err) {
      p.reject(err);
      return;
    }
    const columns = Array.isArray(msg.columns) ? (msg.columns as string[]) : [];
    const rows = Array.isArray(msg.rows) ? (msg.rows as unknown[][]) : [];
    p.resolve({ columns, rows, truncated: msg.truncated === true });
  }

  private failPending(err: MemoryCallError): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    clearTimeout(p.timer);
    p.reject(err);
  }

  private stop(): void {
    const h = this.helper;
    this.helper = undefined;
    if (!h || h.exited) return;
    h.exited = true;
    try {
      h.child.stdin.end();
    } catch {
      // already closed
    }
    h.child.kill('SIGKILL');
  }
}

function replyError(e: unknown): MemoryCallError | undefined {
  if (!e || typeof e !== 'object') return undefined;
  const { type, message } = e as { type?: unknown; message?: unknown };
  if (typeof message !== 'string') return undefined;
  return new MemoryCallError(ERROR_TYPES.has(type as MemoryErrorType) ? (type as MemoryErrorType) : 'RuntimeError', message);
}

function startError(python: string, e: unknown): MemoryCallError {
  const err = e as NodeJS.ErrnoException;
  if (err && err.code === 'ENOENT') {
    return new MemoryCallError('RuntimeError', `ms.sql: cannot start the SQL helper: Python ("${python}") was not found. Install Python 3.9+ or set scroll.kernel.pythonPath`);
  }
  return new MemoryCallError('RuntimeError', `ms.sql: cannot start the SQL helper with "${python}": ${err?.message ?? String(e)}`);
}

function stderrNote(h: Helper): string {
  const tail = h.stderr.trim();
  return tail ? `; its stderr ended with: ${tail.slice(-600)}` : '';
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? String(s) : String(Number(s.toPrecision(6)));
}
