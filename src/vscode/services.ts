/**
 * Everything Scroll holds at run time, created on first use: activation opens nothing. One
 * workspace event log, one kernel per chat session, the chat sessions' working-view figures for
 * the status bar. Commands, tools, the participant and the panel all go through this object.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EventLog } from '../core/log/eventLog';
import type { Kernel, KernelStatus } from '../core/kernel/kernel';
import type { ToolContext, ToolOutput } from '../core/agent/tools';
import type { SandboxDecision, SandboxProbe } from '../core/kernel/sandbox';
import { readConfig, workspaceRoot, type ScrollConfig } from './config';
import { scrollOutput } from './output';

/**
 * Modules loaded on first use, not at activation: the bundle evaluates (and V8 fully compiles) them
 * only when the log, a kernel or the agent is first needed.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const lazy = {
  eventLog: () => require('../core/log/eventLog') as typeof import('../core/log/eventLog'),
  agentTools: () => require('../core/agent/tools') as typeof import('../core/agent/tools'),
  loggedKernel: () => require('../core/kernel/loggedKernel') as typeof import('../core/kernel/loggedKernel'),
  kernelFactory: () => require('./kernel/factory') as typeof import('./kernel/factory'),
  sandbox: () => require('../core/kernel/sandbox') as typeof import('../core/kernel/sandbox'),
  jupyterSession: () => require('./kernel/jupyterSession') as typeof import('./kernel/jupyterSession'),
};
/* eslint-enable @typescript-eslint/no-require-imports */

export interface SessionFigures {
  session: string;
  viewTokens: number;
  budget: number;
  evictions: number;
}

export type KernelFactory = (opts: {
  session: string;
  config: ScrollConfig;
  workspace: string | undefined;
  log: EventLog;
  /** The sandbox decision the session's cells are asked about (`cellConfinement`); the kernel follows it. */
  sandbox: SandboxDecision;
}) => Promise<Kernel>;

/**
 * Where a session's next scroll_exec cell runs, as far as the user's safety goes:
 * - `sandboxed`: Scroll's own process in the OS sandbox — runs without asking;
 * - `unsandboxed`: Scroll's own process, no sandbox (none available, or `scroll.kernel.sandbox: off`) — asks first;
 * - `jupyter`: the user's Jupyter kernel, which Scroll cannot confine — asks first;
 * - `refused`: `scroll.kernel.sandbox: require` and no sandbox to be had — nothing runs; `refusal` says how to fix it.
 */
export type CellConfinement =
  | { kind: 'sandboxed' | 'unsandboxed' | 'jupyter'; decision: SandboxDecision }
  | { kind: 'refused'; refusal: string; decision: SandboxDecision };

/** Why a cell of an unsandboxed Scroll kernel asks first, and what would sandbox it (consent question, status bar, output). */
export function unsandboxedReason(decision: SandboxDecision): { reason: string; fix?: string } {
  if (decision.mode === 'off') return { reason: 'scroll.kernel.sandbox is off', fix: 'set scroll.kernel.sandbox to "auto"' };
  if (!decision.probe.available) return { reason: decision.probe.reason, fix: decision.probe.fix };
  return { reason: decision.summary };
}

/** The cell is run only after the user allowed it. */
export function cellAsksFirst(c: CellConfinement): boolean {
  return c.kind === 'unsandboxed' || c.kind === 'jupyter';
}

export class ScrollServices implements vscode.Disposable {
  private logInstance: EventLog | undefined;
  private openedPath: string | undefined;
  private readonly kernels = new Map<string, Promise<Kernel>>();
  /** Kernels that have started (the same as `kernels`, once their promise resolved). */
  private readonly startedKernels = new Map<string, Kernel>();
  /** Tests replace the sandbox probe (e.g. with a missing bwrap); default probeSandbox() (cached). */
  private sandboxProbe: (() => SandboxProbe) | undefined;
  private readonly kernelStatusSubs = new Map<string, { dispose(): void }>();
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [this.changed];
  private kernelFactory: KernelFactory;
  /** The session scroll_exec runs in when another agent calls it (no @scroll turn). */
  private readonly toolsSession = `tools-${new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '')}`;
  private readonly pendingExec = new Map<string, { ctx: ToolContext; output?: ToolOutput }>();
  private activeSessionId: string | undefined;
  private readonly figures = new Map<string, SessionFigures>();
  private readonly kernelStates = new Map<string, KernelStatus>();

  /** Time activate() took, in ms (checked by the in-host tests). */
  activationMs = 0;
  /** @scroll requests answered in this window (tests wait on it; the panel may too). */
  turnsCompleted = 0;

  /** Fires when the log, a session's view figures or a kernel's state change (status bar, panel). */
  readonly onDidChange = this.changed.event;

  constructor(readonly context: vscode.ExtensionContext) {
    this.kernelFactory = defaultKernelFactory(context.extensionPath);
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('scroll.log.path') || e.affectsConfiguration('scroll.redaction.enabled')) this.closeLog();
        if (e.affectsConfiguration('scroll.kernel.sandbox')) void this.stopKernelsOutsideSandboxSetting();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.closeLog()),
    );
  }

  get config(): ScrollConfig {
    return readConfig(this.context.globalStorageUri.fsPath);
  }

  get workspace(): string | undefined {
    return workspaceRoot();
  }

  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  /** The workspace log, opened (and created) on first use. Untrusted workspaces get it read-only. */
  log(): EventLog {
    const cfg = this.config;
    if (this.logInstance && this.openedPath === cfg.logPath) return this.logInstance;
    this.closeLog();
    const readonly = !this.trusted;
    if (readonly && !fs.existsSync(cfg.logPath)) {
      throw new Error(`This workspace has no Scroll history yet (${cfg.logPath}); it is created when the workspace is trusted and @scroll runs.`);
    }
    if (!readonly) ensureScrollFolder(cfg.logPath);
    this.logInstance = lazy.eventLog().EventLog.open({
      path: cfg.logPath,
      workspace: this.workspace,
      redact: cfg.redact,
      readonly,
    });
    this.openedPath = cfg.logPath;
    if (this.logInstance.recoveredFrom) {
      void vscode.window.showWarningMessage(`Scroll: the log was damaged and moved aside to ${this.logInstance.recoveredFrom}; a new log was started.`);
    }
    return this.logInstance;
  }

  /** The log if it was opened already or exists on disk; undefined when there is no history yet. */
  existingLog(): EventLog | undefined {
    if (this.logInstance) return this.log();
    return fs.existsSync(this.config.logPath) ? this.log() : undefined;
  }

  get logIsOpen(): boolean {
    return this.logInstance !== undefined;
  }

  setKernelFactory(factory: KernelFactory): void {
    this.kernelFactory = factory;
  }

  /** The session's kernel, started on first use. Refused in untrusted workspaces. */
  kernel(session: string): Promise<Kernel> {
    if (!this.trusted) return Promise.reject(new Error('The Python kernel is disabled in untrusted workspaces.'));
    const existing = this.kernels.get(session);
    if (existing) return existing;
    const config = this.config;
    const started = this.kernelFactory({ session, config, workspace: this.workspace, log: this.log(), sandbox: this.sandboxDecision(config) }).then((k) => {
      if (this.kernels.get(session) !== started) {
        // Disposed (or replaced) while it started.
        void k.dispose();
        throw new Error('the kernel was stopped while it started');
      }
      this.startedKernels.set(session, k);
      this.kernelStates.set(session, k.status);
      this.kernelStatusSubs.set(session, k.onStatus((s) => {
        this.kernelStates.set(session, s);
        this.changed.fire();
      }));
      this.changed.fire();
      return k;
    });
    started.catch(() => {
      if (this.kernels.get(session) === started) this.kernels.delete(session);
    });
    this.kernels.set(session, started);
    return started;
  }

  /** The session whose kernel a scroll_exec from outside @scroll uses (and the restart command targets). */
  execSession(): string {
    return this.activeSessionId ?? this.toolsSession;
  }

  /** The session the next scroll_exec cell runs in: the @scroll step that expects it, else execSession(). */
  execTargetSession(): string {
    return [...this.pendingExec.values()].find((p) => !p.output)?.ctx.session ?? this.execSession();
  }

  /** Replaces the sandbox probe (tests: a bwrap that is not there). undefined restores probeSandbox(). */
  setSandboxProbe(probe: (() => SandboxProbe) | undefined): void {
    this.sandboxProbe = probe;
    this.changed.fire();
  }

  /** What `scroll.kernel.sandbox` and the machine give: sandboxed or not, why, and what would fix it. */
  sandboxDecision(config: ScrollConfig = this.config): SandboxDecision {
    if (this.sandboxProbe) return lazy.sandbox().decideSandbox(config.kernelSandbox, this.sandboxProbe());
    return lazy.kernelFactory().sandboxDecision(config.kernelSandbox);
  }

  /**
   * Will this session's next cell run in Scroll's sandbox? The one answer the scroll_exec tool (ask
   * first or not, refuse or not) and the status bar read. A started kernel answers for itself; before
   * that, the settings do (`scroll.kernel.backend`, whether Jupyter is installed, `scroll.kernel.sandbox`).
   */
  cellConfinement(session: string = this.execTargetSession()): CellConfinement {
    const config = this.config;
    const decision = this.sandboxDecision(config);
    const factory = lazy.kernelFactory();
    const refused = (refusal: string): CellConfinement => ({ kind: 'refused', refusal, decision });
    const k = this.startedKernels.get(session);
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
    const folder = vscode.workspace.workspaceFolders?.[0];
    const target = folder ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await vscode.workspace.getConfiguration('scroll', folder?.uri ?? null).update('kernel.backend', 'subprocess', target);
    const replaced: string[] = [];
    for (const [session, k] of [...this.startedKernels]) {
      if (k.backend !== 'jupyter') continue;
      await this.disposeKernel(session);
      replaced.push(session);
      if (this.trusted) void this.kernel(session).catch(() => undefined);
    }
    this.changed.fire();
    return replaced;
  }

  /** `scroll.kernel.sandbox` changed: a running kernel that no longer matches it is stopped (the next cell starts one that does). */
  private async stopKernelsOutsideSandboxSetting(): Promise<void> {
    const decision = this.sandboxDecision();
    const factory = lazy.kernelFactory();
    for (const [session, k] of [...this.startedKernels]) {
      const sandboxed = factory.kernelSandboxed(k);
      const stale = k.backend === 'jupyter' ? decision.mode === 'require' : sandboxed !== decision.sandboxed;
      if (!stale) continue;
      scrollOutput()?.info(`kernel of session ${session} stopped: scroll.kernel.sandbox is now "${decision.mode}" (its variables are gone; the next cell starts a new kernel)`);
      await this.disposeKernel(session);
    }
    this.changed.fire();
  }

  /**
   * Called by @scroll right before it invokes scroll_exec through vscode.lm.invokeTool: the tool
   * then runs the cell inside the agent loop's step (logged through the loop, so its view sees it).
   */
  expectExec(callId: string, ctx: ToolContext): vscode.Disposable {
    this.pendingExec.set(callId, { ctx });
    return new vscode.Disposable(() => this.pendingExec.delete(callId));
  }

  /** The output of a scroll_exec the loop expected (for the tool_result's meta: kernel variables). */
  execOutput(callId: string): ToolOutput | undefined {
    return this.pendingExec.get(callId)?.output;
  }

  /**
   * Runs Python in the session's kernel. Inside an @scroll step the cell is logged through the loop;
   * called by any other agent it is logged as kernel_exec/kernel_output in the tools session.
   */
  async runPython(code: string, token?: vscode.CancellationToken): Promise<ToolOutput> {
    const abort = new AbortController();
    const sub = token?.onCancellationRequested(() => abort.abort());
    try {
      const expected = [...this.pendingExec.values()].find((p) => !p.output);
      // `require` without a sandbox: nothing runs (the tool's prepareInvocation said so already).
      const confinement = this.cellConfinement(expected?.ctx.session ?? this.execSession());
      if (confinement.kind === 'refused') throw new Error(confinement.refusal);
      if (expected) {
        const kernel = await this.kernel(expected.ctx.session);
        const tool = lazy.agentTools().scrollExecTool(kernel, { timeoutMs: this.config.kernelTimeoutMs, kernelLogsCells: false });
        const r = await tool.invoke({ code }, { ...expected.ctx, signal: abort.signal });
        expected.output = typeof r === 'string' ? { content: r } : r;
        return expected.output;
      }
      const session = this.execSession();
      const { LoggedKernel, formatKernelResult } = lazy.loggedKernel();
      const kernel = new LoggedKernel(await this.kernel(session), this.log());
      const r = await kernel.execute(code, { session, timeoutMs: this.config.kernelTimeoutMs, signal: abort.signal });
      this.notifyLogChanged();
      const content = formatKernelResult(r);
      const cap = this.config.outputCap;
      return {
        content: content.length > cap ? `${content.slice(0, cap)}\n… [cut at ${cap} characters; full output: seq ${r.outputSeq}]` : content,
        isError: r.error !== null,
      };
    } finally {
      sub?.dispose();
    }
  }

  hasKernel(session: string): boolean {
    return this.kernels.has(session);
  }

  kernelState(session: string | undefined): KernelStatus | 'none' {
    return (session && this.kernelStates.get(session)) || 'none';
  }

  async restartKernel(session: string): Promise<boolean> {
    const k = this.kernels.get(session);
    if (!k) return false;
    await (await k).restart();
    return true;
  }

  async disposeKernel(session: string): Promise<void> {
    const k = this.kernels.get(session);
    this.kernels.delete(session);
    this.startedKernels.delete(session);
    this.kernelStatusSubs.get(session)?.dispose();
    this.kernelStatusSubs.delete(session);
    this.kernelStates.delete(session);
    if (k) await (await k.catch(() => undefined))?.dispose();
    this.changed.fire();
  }

  /** The chat session the user worked in last (status bar, export, index commands). */
  get activeSession(): string | undefined {
    return this.activeSessionId;
  }

  setActiveSession(session: string): void {
    this.activeSessionId = session;
    this.changed.fire();
  }

  reportFigures(f: SessionFigures): void {
    this.figures.set(f.session, f);
    this.activeSessionId = f.session;
    this.changed.fire();
  }

  sessionFigures(session: string | undefined): SessionFigures | undefined {
    return session ? this.figures.get(session) : undefined;
  }

  /** Something appended to the log (the panel refreshes on it). */
  notifyLogChanged(): void {
    this.changed.fire();
  }

  private closeLog(): void {
    this.logInstance?.close();
    this.logInstance = undefined;
    this.openedPath = undefined;
  }

  dispose(): void {
    for (const s of [...this.kernels.keys()]) void this.disposeKernel(s);
    this.closeLog();
    for (const d of this.disposables) d.dispose();
  }
}

/**
 * One kernel per session, per `scroll.kernel.backend`: Jupyter (with fallback) or our own Python
 * process (src/vscode/kernel/factory.ts). Cells are logged by whoever runs them.
 */
export function defaultKernelFactory(extensionPath: string): KernelFactory {
  return (opts) => lazy.kernelFactory().sessionKernelFactory(extensionPath, { logCells: false })(opts);
}

/** `.scroll/` with a `.gitignore` of `*`, so the log never lands in version control. */
function ensureScrollFolder(logPath: string): void {
  const dir = path.dirname(logPath);
  fs.mkdirSync(dir, { recursive: true });
  if (path.basename(dir) === '.scroll') {
    const ignore = path.join(dir, '.gitignore');
    if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, '*\n');
  }
}
