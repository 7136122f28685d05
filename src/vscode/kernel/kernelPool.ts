/**
 * One Python kernel per chat session, started on first use (never at activation; refused in
 * untrusted workspaces), and the one answer to "will this session's next cell run in Scroll's
 * sandbox?" (`cellConfinement`) that both consent paths, the status bar and the output channel read.
 *
 * The kernel follows `scroll.kernel.backend` and `scroll.kernel.sandbox` (src/vscode/kernel/factory.ts);
 * a running kernel that no longer matches the sandbox setting is stopped (the next cell starts one that
 * does), and so is every kernel when the log closes (`scroll.log.path` or redaction changed): its `ms`
 * answered from that log, and its sandbox hides that log's folder, not the next one's. Cells are
 * logged by whoever runs them: the agent loop's scroll_exec for @scroll, the scroll_exec tool for
 * other agents. Every start, stop and restart goes to the "Scroll" output channel
 * with the session, the backend and the sandbox mode.
 */
import * as vscode from 'vscode';
import type { EventLog } from '../../core/log/eventLog';
import type { Disposable, ExecuteOptions, Kernel, KernelResult, KernelStatus } from '../../core/kernel/kernel';
import type { SandboxDecision, SandboxProbe } from '../../core/kernel/sandbox';
import type { CellConfinement } from './cellConfinement';
import type { ScrollConfig } from '../config';
import type { LogService } from '../logService';
import { errorText, msSince, out } from '../output';
import type { Settings } from '../settings';

/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, not at activation */
const lazy = {
  factory: () => require('./factory') as typeof import('./factory'),
  sandbox: () => require('../../core/kernel/sandbox') as typeof import('../../core/kernel/sandbox'),
  jupyterSession: () => require('./jupyterSession') as typeof import('./jupyterSession'),
};
/* eslint-enable @typescript-eslint/no-require-imports */

export type KernelFactory = (opts: {
  session: string;
  config: ScrollConfig;
  workspace: string | undefined;
  log: EventLog;
  /** The sandbox decision the session's cells are asked about (`cellConfinement`); the kernel follows it. */
  sandbox: SandboxDecision;
}) => Promise<Kernel>;

/** The extension's kernels: Jupyter (with fallback) or Scroll's own process; cells not logged by the kernel. */
export function defaultKernelFactory(extensionPath: string): KernelFactory {
  return (opts) => lazy.factory().sessionKernelFactory(extensionPath, { logCells: false })(opts);
}

export class KernelPool implements vscode.Disposable {
  private readonly kernels = new Map<string, Promise<Kernel>>();
  /** Kernels that have started (the same as `kernels`, once their promise resolved). */
  private readonly started = new Map<string, Kernel>();
  private readonly states = new Map<string, KernelStatus>();
  private readonly statusSubs = new Map<string, Disposable>();
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly subscriptions: vscode.Disposable[];
  private factory: KernelFactory;
  /** Tests replace the sandbox probe (e.g. with a missing bwrap); default probeSandbox() (cached). */
  private sandboxProbe: (() => SandboxProbe) | undefined;

  /** A kernel started, stopped or changed state; the sandbox probe was replaced. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly settings: Settings,
    private readonly logs: LogService,
    extensionPath: string,
  ) {
    this.factory = defaultKernelFactory(extensionPath);
    this.subscriptions = [
      this.changed,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('scroll.kernel.sandbox')) void this.stopKernelsOutsideSandboxSetting();
      }),
      logs.onDidClose((why) => void this.stopAll(`its log closed (${why}); the next cell starts a kernel on the log open now (its variables are gone)`)),
    ];
  }

  setFactory(factory: KernelFactory): void {
    this.factory = factory;
  }

  /** The session's kernel, started on first use. Refused in untrusted workspaces. */
  get(session: string): Promise<Kernel> {
    if (!this.settings.trusted) return Promise.reject(new Error('The Python kernel is disabled in untrusted workspaces.'));
    const existing = this.kernels.get(session);
    if (existing) return existing;
    const config = this.settings.config;
    const sandbox = this.sandboxDecision(config);
    const t0 = performance.now();
    out.info(`kernel of session ${session}: starting (scroll.kernel.backend: ${config.kernelBackend}; ${sandbox.summary})`);
    const started = this.factory({ session, config, workspace: this.settings.workspace, log: this.logs.log(), sandbox }).then((k) => {
      if (this.kernels.get(session) !== started) {
        // Stopped (or replaced) while it started.
        void k.dispose();
        throw new Error('the kernel was stopped while it started');
      }
      this.started.set(session, k);
      this.states.set(session, k.status);
      this.statusSubs.set(session, k.onStatus((s) => {
        const before = this.states.get(session);
        this.states.set(session, s);
        if (s === 'dead') out.warn(`kernel of session ${session} died (${k.backend})`);
        else if (s === 'restarting' || before === 'restarting') out.info(`kernel of session ${session}: ${s}`);
        else out.trace(`kernel of session ${session}: ${s}`);
        this.changed.fire();
      }));
      out.info(`kernel of session ${session} started in ${msSince(t0)}: ${describeKernel(k)}`);
      this.changed.fire();
      return k;
    });
    started.catch((e: unknown) => {
      if (this.kernels.get(session) === started) this.kernels.delete(session);
      out.error(`kernel of session ${session} did not start (${msSince(t0)}): ${errorText(e)}`);
    });
    this.kernels.set(session, started);
    return started;
  }

  /**
   * The session's kernel as the agent loop holds it: always the same object, while the kernel behind
   * it starts on the first cell and is replaced after a stop (a settings change, the restart command).
   */
  handle(session: string): Kernel {
    return new PooledKernel(this, session);
  }

  /** The session's kernel if it has started. */
  startedKernel(session: string): Kernel | undefined {
    return this.started.get(session);
  }

  has(session: string): boolean {
    return this.kernels.has(session);
  }

  state(session: string | undefined): KernelStatus | 'none' {
    return (session && this.states.get(session)) || 'none';
  }

  async restart(session: string): Promise<boolean> {
    const k = this.kernels.get(session);
    if (!k) return false;
    const t0 = performance.now();
    await (await k).restart();
    out.info(`kernel of session ${session} restarted in ${msSince(t0)} (its variables are gone)`);
    return true;
  }

  /** Stops the session's kernel (its variables are gone); the next cell starts a new one. */
  async stop(session: string, why = 'stopped'): Promise<void> {
    const k = this.kernels.get(session);
    this.kernels.delete(session);
    this.started.delete(session);
    this.statusSubs.get(session)?.dispose();
    this.statusSubs.delete(session);
    this.states.delete(session);
    if (k) {
      await (await k.catch(() => undefined))?.dispose();
      out.info(`kernel of session ${session} stopped: ${why}`);
    }
    this.changed.fire();
  }

  /** Replaces the sandbox probe (tests: a bwrap that is not there). undefined restores probeSandbox(). */
  setSandboxProbe(probe: (() => SandboxProbe) | undefined): void {
    this.sandboxProbe = probe;
    out.debug(probe ? 'sandbox probe replaced' : 'sandbox probe restored');
    this.changed.fire();
  }

  /** What `scroll.kernel.sandbox` and the machine give: sandboxed or not, why, and what would fix it. */
  sandboxDecision(config: ScrollConfig = this.settings.config): SandboxDecision {
    if (this.sandboxProbe) return lazy.sandbox().decideSandbox(config.kernelSandbox, this.sandboxProbe());
    return lazy.factory().sandboxDecision(config.kernelSandbox);
  }

  /**
   * Will this session's next cell run in Scroll's sandbox? A started kernel answers for itself; before
   * that, the settings do (`scroll.kernel.backend`, whether Jupyter is installed, `scroll.kernel.sandbox`).
   */
  cellConfinement(session: string): CellConfinement {
    const config = this.settings.config;
    const decision = this.sandboxDecision(config);
    const factory = lazy.factory();
    const refused = (refusal: string): CellConfinement => ({ kind: 'refused', refusal, decision });
    const k = this.started.get(session);
    if (k) {
      if (k.backend === 'jupyter') return decision.mode === 'require' ? refused(factory.JUPYTER_REQUIRE_REFUSAL) : { kind: 'jupyter', decision };
      if (factory.kernelSandboxed(k)) return { kind: 'sandboxed', decision };
      if (decision.mode === 'require') {
        return refused(decision.refusal ?? 'scroll.kernel.sandbox is "require" and this session\'s kernel is not sandboxed: run "Scroll: Restart Python Kernel".');
      }
      return { kind: 'unsandboxed', decision };
    }
    const plan = factory.planSessionKernel(config.kernelBackend, decision, lazy.jupyterSession().jupyterInstalled());
    if (plan.refusal) return refused(plan.refusal);
    if (plan.backend === 'jupyter') return { kind: 'jupyter', decision };
    return { kind: plan.subprocessSandboxed ? 'sandboxed' : 'unsandboxed', decision };
  }

  /**
   * "Scroll: Use Sandboxed Python Kernel": `scroll.kernel.backend` = subprocess for this workspace,
   * and every session's Jupyter kernel is replaced by Scroll's own (sandboxed where available).
   * Variables of the replaced kernels are lost. Returns the sessions whose kernel was replaced.
   */
  async useSandboxedKernel(): Promise<string[]> {
    await this.settings.setForWorkspace('kernel.backend', 'subprocess');
    const replaced: string[] = [];
    for (const [session, k] of [...this.started]) {
      if (k.backend !== 'jupyter') continue;
      await this.stop(session, 'replaced by Scroll\'s own kernel ("Scroll: Use Sandboxed Python Kernel")');
      replaced.push(session);
      if (this.settings.trusted) void this.get(session).catch(() => undefined);
    }
    this.changed.fire();
    return replaced;
  }

  /** `scroll.kernel.sandbox` changed: a running kernel that no longer matches it is stopped. */
  private async stopKernelsOutsideSandboxSetting(): Promise<void> {
    const decision = this.sandboxDecision();
    const factory = lazy.factory();
    for (const [session, k] of [...this.started]) {
      const sandboxed = factory.kernelSandboxed(k);
      const stale = k.backend === 'jupyter' ? decision.mode === 'require' : sandboxed !== decision.sandboxed;
      if (!stale) continue;
      await this.stop(session, `scroll.kernel.sandbox is now "${decision.mode}" (its variables are gone; the next cell starts a new kernel)`);
    }
    this.changed.fire();
  }

  /** Stops every kernel, started or starting. */
  private async stopAll(why: string): Promise<void> {
    await Promise.all([...this.kernels.keys()].map((s) => this.stop(s, why)));
  }

  dispose(): void {
    void this.stopAll('Scroll is shutting down');
    for (const s of this.subscriptions) s.dispose();
  }
}

function describeKernel(k: Kernel): string {
  if (k.backend === 'jupyter') return 'Jupyter (not sandboxed: every cell asks first)';
  return lazy.factory().kernelSandboxed(k) ? 'Scroll\'s own process, sandboxed' : 'Scroll\'s own process, not sandboxed (every cell asks first)';
}

/** `KernelPool.handle`: a session's kernel, whichever one the pool holds for it when a cell runs. */
class PooledKernel implements Kernel {
  constructor(
    private readonly pool: KernelPool,
    readonly session: string,
  ) {}

  get backend(): Kernel['backend'] {
    return this.pool.startedKernel(this.session)?.backend ?? 'subprocess';
  }

  get status(): KernelStatus {
    const s = this.pool.state(this.session);
    return s === 'none' ? 'idle' : s;
  }

  onStatus(listener: (status: KernelStatus) => void): Disposable {
    let last = this.status;
    return this.pool.onDidChange(() => {
      const now = this.status;
      if (now !== last) listener((last = now));
    });
  }

  async execute(code: string, opts?: ExecuteOptions): Promise<KernelResult> {
    const kernel = await this.pool.get(this.session);
    const r = await kernel.execute(code, opts);
    if (r.restarted) out.warn(`kernel of session ${this.session} was restarted during a cell (${r.error?.ename ?? 'no error'}): its variables are gone`);
    return r;
  }

  async restart(): Promise<void> {
    await this.pool.restart(this.session);
  }

  dispose(): Promise<void> {
    return this.pool.stop(this.session);
  }
}
