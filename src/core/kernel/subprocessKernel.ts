/**
 * SubprocessKernel: our own Python process (kernel/scroll_kernel.py) spoken to in JSON lines.
 * One cell at a time, in order. `ms` in the kernel is a client of this side (`memory`): the kernel
 * never opens the event log (docs/MEMORY-PROTOCOL.md). With `sandbox` the process runs in
 * bubblewrap (sandbox.ts): read-only filesystem but for its scratch folder, no network, own PIDs. The Python side enforces each cell's time limit itself; this side is
 * the backstop: SIGINT just after the limit, and 2 s later kill + restart (variables are lost, and
 * the result says so). A process that dies on its own is restarted the same way.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ScrollError } from '../errors';
import { onJsonLines } from '../jsonLines';
import { findKernelDir, kernelEnvironment } from './environment';
import type { Disposable, ExecuteOptions, Kernel, KernelError, KernelResult, KernelStatus, KernelVariable } from './kernel';
import { sandboxedCommand, type SandboxAvailable, type ScratchFolder } from './sandbox';

/** Answers the kernel's `ms` calls (a MemoryHost). A rejection with a `type` (MemoryCallError) becomes that Python exception. */
export interface MemoryCalls {
  call(method: string, args: Record<string, unknown>): Promise<unknown>;
}

export interface SubprocessKernelOptions {
  /** Python executable. Default `python3` (`python` on Windows). */
  pythonPath?: string;
  /** Folder holding scroll_kernel.py / scroll_ms.py. Default: `kernel/` at the package root. */
  kernelDir?: string;
  /** Answers `ms` calls from the host's own read-only view of the log. Without it `ms` is None. */
  memory?: MemoryCalls;
  /** Run in this sandbox (probeSandbox()); without it the process is not confined. */
  sandbox?: SandboxAvailable;
  /** The session's scratch folder: the one writable place (and TMPDIR) inside the sandbox. Required with `sandbox`. */
  scratch?: ScratchFolder;
  /** Paths the sandboxed process must not read (the log's folder). */
  hiddenPaths?: string[];
  session?: string;
  /** Working folder of the process: the workspace. */
  cwd?: string;
  /** Environment to start from (stripped to an allowlist). Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Characters of stdout/stderr kept per cell. Default 20,000. */
  outputCap?: number;
  /** Address-space cap of the process in MB (RLIMIT_AS). Default 4096; 0 for none. */
  memoryMb?: number;
  /** A cell's time limit when the caller gives none. Default 60 s. */
  defaultTimeoutMs?: number;
  /** After the limit: time to stop on SIGINT before the process is killed. Default 2,000 ms. */
  interruptGraceMs?: number;
  /** How long start-up may take. Default 20 s. */
  startTimeoutMs?: number;
}

/** The kernel process could not be started (no Python, bad database path, ...). */
export class KernelStartError extends ScrollError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'KERNEL_START', options);
  }
}

/** The kernel was disposed: nothing runs any more. */
export class KernelDisposedError extends ScrollError {
  constructor() {
    super('the kernel was disposed', 'KERNEL_DISPOSED');
  }
}

interface WireResponse {
  id?: unknown;
  ready?: boolean;
  ms_call?: unknown;
  method?: unknown;
  args?: unknown;
  pid?: number;
  python?: string;
  executable?: string;
  stdout?: string;
  stderr?: string;
  error?: KernelError | null;
  duration_ms?: number;
  variables?: KernelVariable[];
  truncated?: boolean;
}

interface Pending {
  id: string;
  finish(result: KernelResult): void;
  onResponse(r: WireResponse): void;
  onExit(code: number | null, signal: NodeJS.Signals | null): void;
}

const live = new Set<SubprocessKernel>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // The extension host or CLI is going away: take every kernel (and what it started) with it.
  process.once('exit', () => {
    for (const k of live) k.killNow();
  });
}

export class SubprocessKernel implements Kernel {
  readonly backend = 'subprocess' as const;
  /** Python version reported by the running process (after start). */
  pythonVersion?: string;

  private readonly opts: Required<Omit<SubprocessKernelOptions, 'memory' | 'sandbox' | 'scratch' | 'hiddenPaths' | 'session' | 'cwd' | 'env'>> &
    SubprocessKernelOptions;
  private currentStatus: KernelStatus = 'dead';
  private readonly listeners = new Set<(s: KernelStatus) => void>();
  private proc?: ChildProcessWithoutNullStreams;
  private starting?: Promise<void>;
  private pending?: Pending;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private everStarted = false;
  /** Set when the process died between cells: the next result must say variables were lost. */
  private lostBetweenCells?: string;
  private stderrTail = '';
  private disposed = false;
  /** The interpreter's real path as the kernel reported it (sys.executable), used for restarts. */
  private executable?: string;

  constructor(options: SubprocessKernelOptions = {}) {
    this.opts = {
      pythonPath: options.pythonPath || (process.platform === 'win32' ? 'python' : 'python3'),
      kernelDir: options.kernelDir ?? findKernelDir(),
      outputCap: options.outputCap ?? 20000,
      memoryMb: options.memoryMb ?? 4096,
      defaultTimeoutMs: options.defaultTimeoutMs ?? 60000,
      interruptGraceMs: options.interruptGraceMs ?? 2000,
      startTimeoutMs: options.startTimeoutMs ?? 20000,
      ...stripUndefined(options),
    } as SubprocessKernel['opts'];
    if (!(this.opts.outputCap > 0)) throw new ScrollError(`outputCap must be positive (got ${this.opts.outputCap})`);
    if (this.opts.sandbox && !this.opts.scratch) throw new ScrollError('a sandboxed kernel needs a scratch folder');
  }

  /** The process runs in the OS sandbox. */
  get sandboxed(): boolean {
    return !!this.opts.sandbox;
  }

  /** The session's scratch folder (sandboxed kernels only). */
  get scratchDir(): string | undefined {
    return this.opts.scratch?.path;
  }

  get status(): KernelStatus {
    return this.currentStatus;
  }

  /** pid of the running process, if any. */
  get pid(): number | undefined {
    return this.proc?.pid;
  }

  onStatus(listener: (status: KernelStatus) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Starts the process now (execute does it on demand). Resolves once `ms` is bound. */
  start(): Promise<void> {
    if (this.disposed) return Promise.reject(new KernelDisposedError());
    return this.ensureStarted();
  }

  execute(code: string, opts: ExecuteOptions = {}): Promise<KernelResult> {
    if (typeof code !== 'string') return Promise.reject(new ScrollError('execute: code must be a string'));
    const run = this.queue.then(() => this.runOne(code, opts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async restart(): Promise<void> {
    if (this.disposed) throw new KernelDisposedError();
    this.setStatus('restarting');
    this.pending?.finish(
      lostResult('KernelRestarted', 'the kernel was restarted while this cell ran; variables were lost'),
    );
    this.killNow();
    this.lostBetweenCells = undefined;
    await this.ensureStarted();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.pending?.finish(lostResult('KernelDisposed', 'the kernel was shut down while this cell ran'));
    this.killNow();
    live.delete(this);
    // Kept across restarts, gone with the kernel.
    this.opts.scratch?.remove();
    this.setStatus('dead');
    this.listeners.clear();
  }

  /** Kills the process group at once (synchronous: safe in an exit hook). */
  killNow(): void {
    const child = this.proc;
    this.proc = undefined;
    this.starting = undefined;
    if (!child) return;
    child.stdin.destroy();
    signalTree(child, 'SIGKILL');
  }

  // -- internals --------------------------------------------------------------------------------

  private setStatus(s: KernelStatus): void {
    if (s === this.currentStatus) return;
    this.currentStatus = s;
    for (const l of [...this.listeners]) {
      try {
        l(s);
      } catch {
        // a listener's failure is not the kernel's
      }
    }
  }

  private ensureStarted(): Promise<void> {
    if (this.proc && !this.starting) return Promise.resolve();
    if (!this.starting) {
      const p = this.spawnProcess();
      this.starting = p;
      p.then(
        () => {
          if (this.starting === p) this.starting = undefined;
        },
        () => {
          if (this.starting === p) this.starting = undefined;
        },
      );
    }
    return this.starting;
  }

  private spawnProcess(): Promise<void> {
    if (this.currentStatus !== 'restarting') this.setStatus('starting');
    const o = this.opts;
    const args = [join(o.kernelDir, 'scroll_kernel.py'), '--output-cap', String(o.outputCap), '--mem-mb', String(o.memoryMb)];
    if (o.memory) args.push('--ms', 'host');
    if (o.session) args.push('--session', o.session);
    if (o.scratch) args.push('--file-mb', String(Math.max(1, Math.floor(o.scratch.capBytes / (1024 * 1024)))));
    this.stderrTail = '';
    if (o.cwd && !existsSync(o.cwd)) {
      // spawn would report this as ENOENT, indistinguishable from a missing Python.
      this.setStatus('dead');
      return Promise.reject(new KernelStartError(`the kernel's working folder does not exist: ${o.cwd}`));
    }
    return new Promise<void>((resolve, reject) => {
      let child: ChildProcessWithoutNullStreams;
      try {
        // After the first start, the interpreter itself: a launcher shim (pyenv) costs more than the kernel's own start.
        const python = this.executable ?? o.pythonPath;
        let command = python;
        let argv = args;
        let env = kernelEnvironment(o.env ?? process.env);
        if (o.sandbox && o.scratch) {
          const scratch = o.scratch.ensure();
          // No index: `pip install` fails at once with pip's own message instead of retrying a network that is not there.
          env = { ...env, TMPDIR: scratch, TEMP: scratch, TMP: scratch, PIP_NO_INDEX: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1' };
          // The kernel's own folder and the interpreter stay readable even where they live under a private tmpfs (/tmp).
          const readablePaths = [o.kernelDir, ...(this.executable ? [dirname(dirname(this.executable))] : [])];
          const home = env.HOME || undefined; // the credential stores hidden are those of the home the kernel sees
          ({ command, args: argv } = sandboxedCommand(o.sandbox, { workspace: o.cwd, scratchDir: scratch, hiddenPaths: o.hiddenPaths, readablePaths, home }, python, args, env));
        }
        child = spawn(command, argv, {
          cwd: o.cwd,
          env,
          stdio: ['pipe', 'pipe', 'pipe'],
          // Own process group: an interrupt or kill reaches what the cell started, too.
          detached: process.platform !== 'win32',
          windowsHide: true,
        });
      } catch (e) {
        this.setStatus('dead');
        reject(startError(o.pythonPath, e));
        return;
      }
      this.proc = child;
      live.add(this);
      installExitHook();
      let settled = false;
      const settle = (err?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) {
          if (this.proc === child) this.killNow();
          this.setStatus('dead');
          reject(err);
        } else {
          this.everStarted = true;
          this.setStatus('idle');
          resolve();
        }
      };
      const timer = setTimeout(
        () => settle(new KernelStartError(`the Python kernel did not start within ${o.startTimeoutMs} ms${this.stderrNote()}`)),
        o.startTimeoutMs,
      );
      child.stdin.on('error', () => undefined); // EPIPE when the process died: reported via 'exit'
      child.on('error', (e) => settle(startError(o.pythonPath, e)));
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (d: string) => {
        this.stderrTail = (this.stderrTail + d).slice(-4000);
      });
      onJsonLines(child.stdout, (raw) => {
        const msg = raw as WireResponse;
        if (!settled && 'ready' in msg) {
          if (msg.ready) {
            this.pythonVersion = msg.python;
            if (typeof msg.executable === 'string' && msg.executable && existsSync(msg.executable)) this.executable = msg.executable;
            settle();
          } else {
            const err = msg.error;
            settle(new KernelStartError(`the Python kernel could not start: ${err ? `${err.ename}: ${err.evalue}` : 'unknown reason'}`));
          }
          return;
        }
        if ('ms_call' in msg) {
          this.answerMemoryCall(child, msg);
          return;
        }
        if (child === this.proc) this.pending?.onResponse(msg);
      });
      child.on('exit', (code, signal) => {
        if (!settled) {
          settle(new KernelStartError(`the Python kernel exited during start-up (${exitText(code, signal)})${this.stderrNote()}`));
          return;
        }
        if (child !== this.proc) return; // we killed it on purpose; whoever did handles the rest
        this.proc = undefined;
        live.delete(this);
        if (this.pending) this.pending.onExit(code, signal);
        else if (!this.disposed) {
          this.lostBetweenCells = exitText(code, signal);
          this.setStatus('dead');
        }
      });
    });
  }

  /** One `ms` call from the kernel: answered on its stdin (the kernel waits for it). */
  private answerMemoryCall(child: ChildProcessWithoutNullStreams, msg: WireResponse): void {
    const id = msg.ms_call;
    const reply = (body: Record<string, unknown>) => {
      if (child !== this.proc || child.stdin.destroyed) return;
      child.stdin.write(JSON.stringify({ ms_reply: id, ...body }) + '\n');
    };
    const memory = this.opts.memory;
    if (!memory) {
      reply({ error: { type: 'RuntimeError', message: 'ms: this kernel has no event log' } });
      return;
    }
    const method = typeof msg.method === 'string' ? msg.method : '';
    const args = msg.args && typeof msg.args === 'object' && !Array.isArray(msg.args) ? (msg.args as Record<string, unknown>) : {};
    let answer: Promise<unknown>;
    try {
      answer = memory.call(method, args);
    } catch (e) {
      answer = Promise.reject(e);
    }
    answer.then(
      (result) => reply({ result: result ?? null }),
      (e: unknown) => {
        const err = e as { type?: unknown; message?: unknown };
        const type = typeof err?.type === 'string' ? err.type : 'RuntimeError';
        reply({ error: { type, message: typeof err?.message === 'string' ? err.message : String(e) } });
      },
    );
  }

  private stderrNote(): string {
    const tail = this.stderrTail.trim();
    return tail ? `; its stderr ended with: ${tail.slice(-800)}` : '';
  }

  private async runOne(code: string, opts: ExecuteOptions): Promise<KernelResult> {
    if (this.disposed) throw new KernelDisposedError();
    let restartNote: string | undefined;
    if (!this.proc || this.starting) {
      const wasRunning = this.everStarted;
      if (wasRunning && !this.starting) this.setStatus('restarting');
      await this.ensureStarted();
      if (wasRunning && this.lostBetweenCells) restartNote = this.lostBetweenCells;
      this.lostBetweenCells = undefined;
    }
    if (opts.signal?.aborted) return lostResult('Interrupted', 'the cell was cancelled before it ran', false);
    const child = this.proc;
    if (!child) throw new KernelStartError('the Python kernel is not running');
    const timeoutMs = opts.timeoutMs ?? this.opts.defaultTimeoutMs;
    const limited = Number.isFinite(timeoutMs) && timeoutMs > 0;
    const id = String(this.nextId++);
    this.setStatus('busy');

    const result = await new Promise<KernelResult>((resolve) => {
      const timers: NodeJS.Timeout[] = [];
      let done = false;
      const finish = (r: KernelResult) => {
        if (done) return;
        done = true;
        for (const t of timers) clearTimeout(t);
        opts.signal?.removeEventListener('abort', onAbort);
        if (this.pending === pending) this.pending = undefined;
        resolve(r);
      };
      const killAndRestart = (ename: string, evalue: string) => {
        if (done) return;
        this.setStatus('restarting');
        this.killNow();
        this.ensureStarted().then(
          () => finish(lostResult(ename, `${evalue}; the kernel was killed and restarted: variables were lost`)),
          (e: Error) => finish(lostResult(ename, `${evalue}; the kernel was killed and could not restart: ${e.message}`)),
        );
      };
      const interrupt = (ename: string, evalue: string) => {
        if (done) return;
        signalTree(child, 'SIGINT');
        timers.push(setTimeout(() => killAndRestart(ename, evalue), this.opts.interruptGraceMs));
      };
      const onAbort = () => interrupt('Interrupted', 'the cell was cancelled and did not stop on SIGINT');
      const pending: Pending = {
        id,
        finish,
        onResponse: (r) => {
          if (r.id !== id) return;
          finish(fromWire(r));
        },
        onExit: (code, signal) => {
          this.setStatus('restarting');
          const why = `the kernel process stopped during the cell (${exitText(code, signal)})${this.stderrNote()}`;
          this.ensureStarted().then(
            () => finish(lostResult('KernelDied', `${why}; it was restarted: variables were lost`)),
            (e: Error) => finish(lostResult('KernelDied', `${why}; it could not restart: ${e.message}`)),
          );
        },
      };
      this.pending = pending;
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      if (limited) {
        // The kernel raises TimeoutError itself at the limit; these only act if it did not answer.
        timers.push(
          setTimeout(
            () => interrupt('TimeoutError', `the cell ran past its limit of ${timeoutMs} ms and did not stop`),
            timeoutMs + 100,
          ),
        );
      }
      const req = JSON.stringify({ id, code, ...(limited ? { timeout_ms: Math.ceil(timeoutMs) } : {}) }) + '\n';
      child.stdin.write(req);
    });
    if (this.proc && !this.starting && !this.disposed) this.setStatus('idle');
    const scratch = this.opts.scratch;
    if (scratch && scratch.overCap()) {
      const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;
      result.stderr += `[scroll: the scratch folder ${scratch.path} holds ${mb(scratch.sizeBytes())}, over its cap of ${mb(scratch.capBytes)}: delete files there; new writes may fail]\n`;
    }
    if (restartNote) {
      result.restarted = true;
      result.stderr = `[scroll: the kernel had stopped (${restartNote}); it was restarted and variables were lost]\n${result.stderr}`;
    }
    return result;
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

function fromWire(r: WireResponse): KernelResult {
  return {
    stdout: typeof r.stdout === 'string' ? r.stdout : '',
    stderr: typeof r.stderr === 'string' ? r.stderr : '',
    error: r.error ?? null,
    durationMs: typeof r.duration_ms === 'number' ? r.duration_ms : 0,
    variables: Array.isArray(r.variables) ? r.variables : [],
    truncated: !!r.truncated,
  };
}

function lostResult(ename: string, evalue: string, restarted = true): KernelResult {
  return {
    stdout: '',
    stderr: '',
    error: { ename, evalue, traceback: [] },
    durationMs: 0,
    variables: [],
    restarted,
  };
}

function exitText(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `killed by ${signal}` : `exit code ${code}`;
}

function startError(python: string, e: unknown): KernelStartError {
  const err = e as NodeJS.ErrnoException;
  if (err && err.code === 'ENOENT') {
    return new KernelStartError(
      `cannot start the Python kernel: "${python}" was not found. Install Python 3.9+ or set scroll.kernel.pythonPath`,
      { cause: e },
    );
  }
  return new KernelStartError(`cannot start the Python kernel with "${python}": ${err?.message ?? String(e)}`, { cause: e });
}

function signalTree(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals): void {
  const pid = child.pid;
  if (pid === undefined) return;
  try {
    if (process.platform !== 'win32') process.kill(-pid, signal);
    else child.kill(signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}
