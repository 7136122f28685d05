/**
 * FallbackKernel: the Jupyter kernel when it can be had, Scroll's own subprocess kernel when it
 * cannot — access denied, no Python kernel picked, the kernel died or hung. The switch is announced
 * once (notify) and written into the result the model sees, because variables do not carry over.
 * No `vscode` import: tested in plain Node.
 */
import type { Disposable, ExecuteOptions, Kernel, KernelResult, KernelStatus } from '../../core/kernel/kernel';
import { JupyterAccessDeniedError, JupyterUnavailableError } from './jupyterKernel';

export interface FallbackKernelOptions {
  /** Connects the preferred kernel (may ask the user); throws when it cannot. */
  primary: () => Promise<Kernel>;
  /** The kernel to use instead. */
  fallback: () => Kernel;
  /** Tells the user why the fallback is in use. */
  notify: (message: string) => void;
}

export function isUnavailable(e: unknown): boolean {
  return e instanceof JupyterUnavailableError || e instanceof JupyterAccessDeniedError;
}

export class FallbackKernel implements Kernel {
  private current?: Kernel;
  private connecting?: Promise<Kernel>;
  private usingFallback = false;
  /** True once a cell ran on the primary: switching then loses variables. */
  private primaryRan = false;
  private readonly listeners = new Set<(s: KernelStatus) => void>();
  private currentSub?: Disposable;
  private disposed = false;
  /** Why the fallback is in use (undefined while the primary is). */
  fallbackReason?: string;

  constructor(private readonly opts: FallbackKernelOptions) {}

  get backend(): Kernel['backend'] {
    return this.current?.backend ?? (this.usingFallback ? 'subprocess' : 'jupyter');
  }

  get status(): KernelStatus {
    if (this.disposed) return 'dead';
    return this.current?.status ?? 'starting';
  }

  onStatus(listener: (status: KernelStatus) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Connects now (otherwise the first execute does). Never throws for an unavailable primary. */
  async connect(): Promise<Kernel> {
    if (this.current) return this.current;
    if (!this.connecting) {
      this.connecting = this.opts.primary().then(
        (k) => {
          if (this.disposed) {
            void k.dispose();
            throw new JupyterUnavailableError('the kernel was disposed while connecting');
          }
          this.use(k);
          return k;
        },
        (e: unknown) => {
          if (this.disposed) throw e;
          return this.switchToFallback(reasonOf(e));
        },
      );
      this.connecting.catch(() => undefined).finally(() => (this.connecting = undefined));
    }
    return this.connecting;
  }

  async execute(code: string, opts: ExecuteOptions = {}): Promise<KernelResult> {
    if (this.disposed) throw new JupyterUnavailableError('the kernel was disposed');
    const switchedBefore = this.usingFallback;
    const kernel = await this.connect();
    let result: KernelResult;
    try {
      result = await kernel.execute(code, opts);
      if (!this.usingFallback) this.primaryRan = true;
    } catch (e) {
      if (this.usingFallback || !isUnavailable(e)) throw e;
      // The primary refused before running the cell: run it on the fallback instead.
      const fb = this.switchToFallback(reasonOf(e));
      result = await fb.execute(code, opts);
      return annotate(result, this.fallbackReason!, this.primaryRan);
    }
    if (!this.usingFallback && kernel.status === 'dead') {
      // The primary died or hung during this cell: later cells go to the fallback.
      this.switchToFallback('the Jupyter kernel stopped responding');
      return annotate(result, this.fallbackReason!, true);
    }
    if (!switchedBefore && this.usingFallback) return annotate(result, this.fallbackReason!, false);
    return result;
  }

  async restart(): Promise<void> {
    const k = await this.connect();
    await k.restart();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.currentSub?.dispose();
    const k = this.current;
    this.current = undefined;
    await k?.dispose();
    for (const l of [...this.listeners]) l('dead');
    this.listeners.clear();
  }

  private use(k: Kernel): void {
    this.currentSub?.dispose();
    this.current = k;
    this.currentSub = k.onStatus((s) => {
      for (const l of [...this.listeners]) l(s);
    });
    for (const l of [...this.listeners]) l(k.status);
  }

  private switchToFallback(reason: string): Kernel {
    const old = this.current;
    this.usingFallback = true;
    this.fallbackReason = reason;
    const fb = this.opts.fallback();
    this.use(fb);
    if (old) void old.dispose();
    this.opts.notify(`Scroll: ${reason}. Using Scroll's own Python process for this session's kernel instead.`);
    return fb;
  }
}

function reasonOf(e: unknown): string {
  const msg = (e as Error)?.message ?? String(e);
  return msg.replace(/\.$/, '');
}

function annotate(r: KernelResult, reason: string, lostVariables: boolean): KernelResult {
  const lost = lostVariables ? ' — variables from the Jupyter kernel are not here' : '';
  return {
    ...r,
    restarted: r.restarted || lostVariables,
    stderr: `[scroll: ${reason}; this cell ran in Scroll's own Python process instead${lost}]\n` + r.stderr,
  };
}
