/**
 * JupyterKernel: runs cells in a Jupyter kernel the user started, through the Jupyter extension's
 * kernel API (`@vscode/jupyter-extension`: `Kernel.executeCode(code, token)` yielding outputs).
 * This file only needs that API object, not the `vscode` module, so it is tested in plain Node
 * against a test double and in the real host against the fake Jupyter fixture. Finding the kernel
 * (session notebook, user picks the kernel) is in jupyterSession.ts.
 */
import type { Kernel as JupyterApiKernel, KernelStatus as JupyterStatus } from '@vscode/jupyter-extension';
import { ScrollError } from '../../core/errors';
import type { Disposable, ExecuteOptions, Kernel, KernelError, KernelResult, KernelStatus, KernelVariable } from '../../core/kernel/kernel';

/** Output item mime types of the kernel API (the doc names the first, the implementation emits the second). */
export const STDOUT_MIMES = ['application/x.notebook.stream.stdout', 'application/vnd.code.notebook.stdout'];
export const STDERR_MIMES = ['application/x.notebook.stream.stderr', 'application/vnd.code.notebook.stderr'];
export const ERROR_MIME = 'application/vnd.code.notebook.error';
/** Marks the variables digest line printed by kernel/scroll_jupyter.py. */
export const DIGEST_MARK = '\x1escroll-digest\x1e';

/** Access to the kernel was refused (the user denied the prompt, or revoked it later). */
export class JupyterAccessDeniedError extends ScrollError {
  constructor(message = 'access to the Jupyter kernel was denied') {
    super(message, 'JUPYTER_ACCESS_DENIED');
  }
}

/** No usable Jupyter kernel: not installed, none selected, not Python, or it died/hung. */
export class JupyterUnavailableError extends ScrollError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'JUPYTER_UNAVAILABLE', options);
  }
}

export function isAccessRevoked(e: unknown): boolean {
  const err = e as { name?: unknown; message?: unknown } | undefined;
  return (
    !!err &&
    (err.name === 'vscode.jupyter.apiAccessRevoked' ||
      (typeof err.message === 'string' && /access to jupyter kernel has been revoked/i.test(err.message)))
  );
}

/** A Python string literal for `s` (JSON string syntax is valid Python). */
export function pyString(s: string): string {
  return JSON.stringify(s);
}

export interface BootstrapTarget {
  kernelDir: string;
  /** The host's local memory channel (MemoryChannel): the kernel reaches `ms` only through it, never the db file. */
  memory: { address: string; token: string };
  session?: string;
}

/** The cell that puts Scroll's `kernel/` on sys.path and binds `ms` (notebook cell and API init). */
export function bootstrapCode(t: BootstrapTarget): string {
  return [
    '# Scroll: gives this kernel `ms`, a read-only view of the workspace event log, answered by the editor.',
    'import sys',
    `if ${pyString(t.kernelDir)} not in sys.path: sys.path.insert(0, ${pyString(t.kernelDir)})`,
    'import scroll_jupyter',
    `scroll_jupyter.bootstrap(globals(), ${pyString(t.memory.address)}, ${pyString(t.memory.token)}, ${t.session ? pyString(t.session) : 'None'})`,
  ].join('\n');
}

const DIGEST_CODE = 'import scroll_jupyter as _scroll_jupyter\n_scroll_jupyter.digest(globals())';
const RESET_CODE = 'import scroll_jupyter as _scroll_jupyter\n_scroll_jupyter.reset(globals())';

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;
export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

/** Keeps the first `cap` characters of a stream and counts the rest (same notice as the subprocess kernel). */
class CappedText {
  private parts: string[] = [];
  private kept = 0;
  dropped = 0;
  constructor(
    private readonly cap: number,
    private readonly name: string,
  ) {}
  write(s: string): void {
    const room = this.cap - this.kept;
    if (room > 0) {
      const piece = s.slice(0, room);
      this.parts.push(piece);
      this.kept += piece.length;
      this.dropped += s.length - piece.length;
    } else this.dropped += s.length;
  }
  text(): string {
    const out = this.parts.join('');
    if (!this.dropped) return out;
    return (
      out +
      `\n[scroll: output truncated — showed the first ${this.kept} of ${this.kept + this.dropped} characters on ${this.name}. ` +
      'Print less: slices, counts or summaries; keep the full data in variables.]\n'
    );
  }
}

export interface DecodedOutputs {
  stdout: string;
  stderr: string;
  error: KernelError | null;
}

const decoder = new TextDecoder();

/** Turns the API's outputs into stdout/stderr/error, the way a notebook would show them as text. */
export function decodeOutputs(
  outputs: Iterable<{ items: { mime: string; data: Uint8Array }[] }>,
  cap = Infinity,
): DecodedOutputs & { truncated: boolean } {
  const out = new CappedText(cap, 'stdout');
  const err = new CappedText(cap, 'stderr');
  let error: KernelError | null = null;
  for (const o of outputs) {
    const mimes = o.items.map((i) => i.mime);
    let plainShown = false;
    for (const item of o.items) {
      const text = () => decoder.decode(item.data);
      if (STDOUT_MIMES.includes(item.mime)) out.write(text());
      else if (STDERR_MIMES.includes(item.mime)) err.write(text());
      else if (item.mime === ERROR_MIME) error = parseError(text());
      else if (item.mime === 'text/plain') {
        if (!plainShown) out.write(ensureNewline(text()));
        plainShown = true;
      } else if (!mimes.includes('text/plain')) {
        out.write(`[scroll: rich output (${item.mime}, ${item.data.length} bytes) not shown as text]\n`);
      }
    }
  }
  return { stdout: out.text(), stderr: err.text(), error, truncated: out.dropped + err.dropped > 0 };
}

function ensureNewline(s: string): string {
  return s.endsWith('\n') ? s : s + '\n';
}

function parseError(json: string): KernelError {
  try {
    const e = JSON.parse(json) as { name?: string; message?: string; stack?: string };
    const stack = e.stack ? stripAnsi(e.stack) : '';
    return { ename: e.name || 'Error', evalue: stripAnsi(e.message ?? ''), traceback: stack ? [stack] : [] };
  } catch {
    return { ename: 'Error', evalue: stripAnsi(json), traceback: [] };
  }
}

/** Splits the digest line off the output of the digest call. */
export function parseDigest(stdout: string): KernelVariable[] | undefined {
  for (const line of stdout.split('\n')) {
    const at = line.indexOf(DIGEST_MARK);
    if (at < 0) continue;
    try {
      const v = JSON.parse(line.slice(at + DIGEST_MARK.length)) as KernelVariable[];
      return Array.isArray(v) ? v : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const STATUS: Record<JupyterStatus, KernelStatus> = {
  unknown: 'starting',
  starting: 'starting',
  idle: 'idle',
  busy: 'busy',
  terminating: 'dead',
  restarting: 'restarting',
  autorestarting: 'restarting',
  dead: 'dead',
};

/** A cancellation token the Jupyter API accepts (structurally a vscode.CancellationToken). */
class TokenSource {
  private cancelled = false;
  private readonly listeners = new Set<(e: unknown) => unknown>();
  readonly token: {
    readonly isCancellationRequested: boolean;
    onCancellationRequested(listener: (e: unknown) => unknown, thisArg?: unknown, disposables?: Disposable[]): Disposable;
  };

  constructor() {
    const source = this;
    this.token = {
      get isCancellationRequested(): boolean {
        return source.cancelled;
      },
      onCancellationRequested(listener, thisArg, disposables) {
        const bound = (e: unknown) => listener.call(thisArg, e);
        source.listeners.add(bound);
        const d = { dispose: () => void source.listeners.delete(bound) };
        disposables?.push(d);
        return d;
      },
    };
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    for (const l of [...this.listeners]) {
      try {
        l(undefined);
      } catch {
        // the listener's problem
      }
    }
  }
}

export interface JupyterKernelOptions extends BootstrapTarget {
  outputCap?: number;
  defaultTimeoutMs?: number;
  /** After cancelling at the limit: how long the kernel may take to stop before we give up on it. */
  interruptGraceMs?: number;
  /** Limit of the first (bootstrap) call, which includes the user answering the access prompt. Default 5 min. */
  initTimeoutMs?: number;
}

export class JupyterKernel implements Kernel {
  readonly backend = 'jupyter' as const;
  private readonly listeners = new Set<(s: KernelStatus) => void>();
  private readonly statusSub: { dispose(): unknown };
  private queue: Promise<unknown> = Promise.resolve();
  /** Set when the kernel stopped answering or died: the caller falls back to the subprocess kernel. */
  private deadReason?: string;
  private disposed = false;
  private readonly outputCap: number;
  private readonly defaultTimeoutMs: number;
  private readonly graceMs: number;

  constructor(
    private readonly api: JupyterApiKernel,
    private readonly opts: JupyterKernelOptions,
  ) {
    this.outputCap = opts.outputCap ?? 20000;
    this.defaultTimeoutMs = opts.defaultTimeoutMs ?? 60000;
    this.graceMs = opts.interruptGraceMs ?? 2000;
    this.statusSub = api.onDidChangeStatus((s) => {
      if (s === 'dead' || s === 'terminating') this.deadReason ??= `the Jupyter kernel is ${s}`;
      this.emit();
    });
  }

  get status(): KernelStatus {
    if (this.disposed || this.deadReason) return 'dead';
    return STATUS[this.api.status] ?? 'idle';
  }

  /** Why the kernel cannot be used any more, if it cannot. */
  get unusableReason(): string | undefined {
    return this.deadReason;
  }

  onStatus(listener: (status: KernelStatus) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /**
   * Runs the bootstrap through the API. The first executeCode is where the Jupyter extension asks
   * the user for access: a denial becomes JupyterAccessDeniedError.
   */
  async init(): Promise<void> {
    if (this.api.language && this.api.language.toLowerCase() !== 'python') {
      throw new JupyterUnavailableError(`the notebook's kernel runs ${this.api.language}, not Python`);
    }
    // Long limit: this first call waits for the user to answer the extension's access prompt.
    const r = await this.runRaw(bootstrapCode(this.opts), this.opts.initTimeoutMs ?? 300000);
    if (r.error) {
      throw new JupyterUnavailableError(`the bootstrap cell failed in the Jupyter kernel: ${r.error.ename}: ${r.error.evalue}`);
    }
  }

  execute(code: string, opts: ExecuteOptions = {}): Promise<KernelResult> {
    const run = this.queue.then(() => this.runOne(code, opts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Clears the session's variables and binds `ms` again (the API cannot restart the user's kernel). */
  async restart(): Promise<void> {
    await this.execute(RESET_CODE, { timeoutMs: 30000 });
    const r = await this.runRaw(bootstrapCode(this.opts), 30000);
    if (r.error) throw new JupyterUnavailableError(`re-binding ms failed: ${r.error.evalue}`);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.statusSub.dispose();
    this.emit();
    this.listeners.clear();
  }

  private emit(): void {
    const s = this.status;
    for (const l of [...this.listeners]) {
      try {
        l(s);
      } catch {
        // a listener's failure is not the kernel's
      }
    }
  }

  private async runOne(code: string, opts: ExecuteOptions): Promise<KernelResult> {
    if (this.disposed) throw new JupyterUnavailableError('the Jupyter kernel adapter was disposed');
    if (this.deadReason) throw new JupyterUnavailableError(this.deadReason);
    if (opts.signal?.aborted) return errorResult('Interrupted', 'the cell was cancelled before it ran');
    const started = Date.now();
    const result = await this.runRaw(code, opts.timeoutMs ?? this.defaultTimeoutMs, opts.signal);
    if (!this.deadReason) {
      const digest = await this.runRaw(DIGEST_CODE, 10000).catch(() => undefined);
      result.variables = (digest && parseDigest(digest.stdout)) ?? [];
    }
    result.durationMs = Date.now() - started;
    return result;
  }

  /** One executeCode call with a time limit; API failures that mean "unusable" are thrown. */
  private runRaw(code: string, timeoutMs: number, signal?: AbortSignal): Promise<KernelResult> {
    const source = new TokenSource();
    const outputs: { items: { mime: string; data: Uint8Array }[] }[] = [];
    return new Promise<KernelResult>((resolve, reject) => {
      let done = false;
      let why: { ename: string; evalue: string } | undefined;
      const timers: NodeJS.Timeout[] = [];
      const finish = (r: KernelResult | Error) => {
        if (done) return;
        done = true;
        for (const t of timers) clearTimeout(t);
        signal?.removeEventListener('abort', onAbort);
        if (r instanceof Error) reject(r);
        else resolve(r);
      };
      const cancel = (ename: string, evalue: string) => {
        if (done || why) return;
        why = { ename, evalue };
        source.cancel();
        timers.push(
          setTimeout(() => {
            this.deadReason = `the Jupyter kernel did not stop within ${this.graceMs} ms of being interrupted`;
            this.emit();
            finish({
              ...errorResult(ename, `${evalue}; the Jupyter kernel did not stop when interrupted, so Scroll stopped using it`),
              restarted: true,
            });
          }, this.graceMs),
        );
      };
      const onAbort = () => cancel('Interrupted', 'the cell was cancelled');
      signal?.addEventListener('abort', onAbort, { once: true });
      if (Number.isFinite(timeoutMs) && timeoutMs > 0) {
        timers.push(setTimeout(() => cancel('TimeoutError', `the cell ran past its limit of ${timeoutMs} ms and was interrupted`), timeoutMs));
      }
      (async () => {
        try {
          for await (const o of this.api.executeCode(code, source.token as never)) {
            outputs.push({ items: o.items.map((i) => ({ mime: i.mime, data: i.data })) });
          }
        } catch (e) {
          if (isAccessRevoked(e)) {
            finish(new JupyterAccessDeniedError(`the Jupyter extension refused access to its kernel (${(e as Error).message})`));
            return;
          }
          if (!why) {
            const msg = (e as Error)?.message ?? String(e);
            if (/disposed|dead|not running|shut ?down/i.test(msg) || this.api.status === 'dead') {
              this.deadReason = `the Jupyter kernel is gone (${msg})`;
              this.emit();
              finish(new JupyterUnavailableError(this.deadReason, { cause: e }));
              return;
            }
            const d = decodeOutputs(outputs, this.outputCap);
            finish({ ...d, error: d.error ?? { ename: (e as Error)?.name || 'Error', evalue: msg, traceback: [] }, durationMs: 0, variables: [] });
            return;
          }
        }
        const d = decodeOutputs(outputs, this.outputCap);
        const error = why ? (d.error && d.error.ename !== 'KeyboardInterrupt' ? d.error : { ...why, traceback: d.error?.traceback ?? [] }) : d.error;
        finish({ stdout: d.stdout, stderr: d.stderr, error, truncated: d.truncated, durationMs: 0, variables: [] });
      })();
    });
  }
}

function errorResult(ename: string, evalue: string): KernelResult {
  return { stdout: '', stderr: '', error: { ename, evalue, traceback: [] }, durationMs: 0, variables: [] };
}
