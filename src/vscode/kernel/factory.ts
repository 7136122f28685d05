/**
 * The kernel of one chat session, as the extension builds it: setting `scroll.kernel.backend`
 * (auto | jupyter | subprocess) picks Jupyter or Scroll's own Python process; whichever runs,
 * every cell and its output go to the event log (LoggedKernel).
 *
 * The kernel never opens the log: its `ms` asks the session's MemoryHost (over the kernel's pipes,
 * or for Jupyter over a MemoryChannel). Setting `scroll.kernel.sandbox` (auto | require | off) says
 * whether Scroll's own process runs in the OS sandbox (bubblewrap; sandbox.ts): with it, the process
 * writes only to the session's scratch folder and cannot read the log's folder. A Jupyter kernel is
 * the user's own and is never confined; `require` therefore refuses it, and with `auto` backend
 * picks Scroll's sandboxed process instead.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EventLog } from '../../core/log/eventLog';
import type { Disposable, ExecuteOptions, Kernel, KernelResult, KernelStatus } from '../../core/kernel/kernel';
import { LoggedKernel } from '../../core/kernel/loggedKernel';
import { decideSandbox, probeSandbox, ScratchFolder, type SandboxDecision, type SandboxMode, type SandboxProbe } from '../../core/kernel/sandbox';
import { SubprocessKernel } from '../../core/kernel/subprocessKernel';
import { MemoryChannel } from '../../core/memory/memoryChannel';
import { MemoryHost } from '../../core/memory/memoryHost';
import { FallbackKernel } from './fallbackKernel';
import { connectJupyterKernel, jupyterInstalled } from './jupyterSession';
import { out } from '../output';
import { resolvePythonPath } from './pythonPath';

export type KernelBackendChoice = 'auto' | 'jupyter' | 'subprocess';

export interface SessionKernelRequest {
  session: string;
  config: {
    kernelBackend: KernelBackendChoice;
    /** `scroll.kernel.sandbox`. Default `auto`. */
    kernelSandbox?: SandboxMode;
    /** Empty: the Python extension's interpreter, else python3. */
    pythonPath: string;
    outputCap: number;
    kernelTimeoutMs: number;
  };
  /** Workspace folder: the subprocess kernel's working folder. */
  workspace: string | undefined;
  log: EventLog;
  /** The extension's install folder (holds `kernel/`). */
  extensionPath: string;
  /**
   * What the sandbox decision is. Default: `decideSandbox(config.kernelSandbox, probeSandbox())`.
   * KernelPool passes its own, so the consent question and the kernel agree.
   */
  sandbox?: SandboxDecision;
  /** Tells the user about fallbacks and what Jupyter needs from them. Default: a warning message. */
  notify?: (message: string) => void;
  /** Wait for the user to pick a Jupyter kernel at most this long. */
  jupyterConnectTimeoutMs?: number;
  /**
   * Append every cell and its output to the log (LoggedKernel). Default true; false when the caller
   * logs cells itself (the agent's scroll_exec tool does).
   */
  logCells?: boolean;
}

/** No kernel for this session: the settings require a sandbox that cannot be had. The message says how to fix it. */
export class KernelRefusedError extends Error {
  override readonly name = 'KernelRefusedError';
}

export const JUPYTER_REQUIRE_REFUSAL =
  'scroll.kernel.sandbox is "require", but scroll.kernel.backend is "jupyter": a Jupyter kernel is your own and Scroll cannot sandbox it. ' +
  'Run "Scroll: Use Sandboxed Python Kernel" (sets scroll.kernel.backend to "subprocess"), or set scroll.kernel.sandbox to "auto" to be asked before each cell.';

/** Which kernel a session gets, decided before anything starts (the factory and the consent question both read it). */
export interface KernelPlan {
  /** The kernel that will run cells first. `jupyter` may still fall back to a subprocess kernel. */
  backend: 'subprocess' | 'jupyter';
  /** A subprocess kernel of this session runs in the sandbox. */
  subprocessSandboxed: boolean;
  /** Set: no kernel; this is why (and how to fix it). */
  refusal?: string;
  /** `jupyter` was asked for but the Jupyter extension is not installed. */
  jupyterMissing?: boolean;
}

export function planSessionKernel(backend: KernelBackendChoice, decision: SandboxDecision, jupyter: boolean): KernelPlan {
  const subprocess: KernelPlan = {
    backend: 'subprocess',
    subprocessSandboxed: decision.sandboxed,
    ...(decision.refusal ? { refusal: decision.refusal } : {}),
  };
  if (backend === 'subprocess') return subprocess;
  if (!jupyter) return { ...subprocess, jupyterMissing: backend === 'jupyter' };
  if (decision.mode === 'require') {
    // `auto` means "Jupyter if you can": under require only the sandboxed process can.
    return backend === 'jupyter' ? { backend: 'jupyter', subprocessSandboxed: decision.sandboxed, refusal: JUPYTER_REQUIRE_REFUSAL } : subprocess;
  }
  return { backend: 'jupyter', subprocessSandboxed: decision.sandboxed };
}

/** The machine's sandbox (cached probe; `SCROLL_BWRAP_PATH` is honoured by probeSandbox itself). */
export function probeMachineSandbox(): SandboxProbe {
  return probeSandbox();
}

/** The sandbox decision for a mode, with the machine's (cached) probe. */
export function sandboxDecision(mode: SandboxMode | undefined): SandboxDecision {
  return decideSandbox(mode ?? 'auto', probeMachineSandbox());
}


export async function createSessionKernel(req: SessionKernelRequest & { logCells?: true }): Promise<LoggedKernel>;
export async function createSessionKernel(req: SessionKernelRequest): Promise<Kernel>;
export async function createSessionKernel(req: SessionKernelRequest): Promise<Kernel> {
  const tell = req.notify ?? ((m: string) => void vscode.window.showWarningMessage(m));
  // Fallbacks (Jupyter missing, access denied, a dead Jupyter kernel replaced) also go to the output channel.
  const notify = (m: string) => {
    out.warn(`kernel of session ${req.session}: ${m.replace(/^Scroll: /, '')}`);
    tell(m);
  };
  const decision = req.sandbox ?? sandboxDecision(req.config.kernelSandbox);
  const plan = planSessionKernel(req.config.kernelBackend, decision, jupyterInstalled());
  if (plan.refusal) throw new KernelRefusedError(plan.refusal);

  const kernelDir = path.join(req.extensionPath, 'kernel');
  const common = {
    session: req.session,
    outputCap: req.config.outputCap,
    defaultTimeoutMs: req.config.kernelTimeoutMs,
  };
  const resource = req.workspace ? vscode.Uri.file(req.workspace) : undefined;
  const python = await resolvePythonPath(req.config.pythonPath, resource);
  out.debug(`kernel of session ${req.session}: python ${python.path} (${python.source}); plan ${plan.backend}${plan.backend === 'subprocess' ? (plan.subprocessSandboxed ? ', sandboxed' : ', not sandboxed') : ''}`);
  // One host answers this session's `ms`, whichever kernel asks (Jupyter, then its fallback).
  const memory = new MemoryHost({ log: req.log, session: req.session, python: python.path });
  let channel: Promise<MemoryChannel> | undefined;
  let subprocessKernel: SubprocessKernel | undefined;
  const confinement = () => {
    if (!decision.sandboxed || !decision.probe.available) return {};
    return {
      sandbox: decision.probe,
      // Removed by the kernel when it is disposed (kept across restarts).
      scratch: ScratchFolder.forSession(req.session, req.workspace),
      hiddenPaths: hiddenPaths(req.log, req.workspace),
    };
  };
  const subprocess = (): Kernel =>
    (subprocessKernel = new SubprocessKernel({ ...common, memory, pythonPath: python.path, kernelDir, cwd: req.workspace, ...confinement() }));

  let inner: Kernel;
  if (plan.backend === 'subprocess') {
    if (plan.jupyterMissing) {
      notify('Scroll: scroll.kernel.backend is "jupyter" but the Jupyter extension is not installed. Using Scroll\'s own Python process.');
    }
    inner = subprocess();
  } else {
    inner = new FallbackKernel({
      primary: async () => {
        channel ??= MemoryChannel.open(memory);
        const ch = await channel;
        return connectJupyterKernel({
          ...common,
          kernelDir,
          memory: { address: ch.address, token: ch.token },
          notebookDir: path.dirname(req.log.path),
          connectTimeoutMs: req.jupyterConnectTimeoutMs,
          notify,
        });
      },
      fallback: subprocess,
      notify,
    });
  }
  const session = new SessionKernel(
    inner,
    () => inner.backend === 'subprocess' && subprocessKernel?.sandboxed === true,
    async () => {
      const ch = channel;
      channel = undefined;
      await ch?.then((c) => c.close(), () => undefined);
      memory.dispose();
    },
  );
  return req.logCells === false ? session : new LoggedKernel(session, req.log);
}

/**
 * What the sandboxed process must not read: the log's folder (`.scroll/` by default), and the
 * payload folder when it lives elsewhere. A log configured to sit in the workspace folder itself (or
 * above it) hides its files instead, not the folder the kernel works in.
 */
export function hiddenPaths(log: { path: string; payloads?: { dir: string } }, workspace: string | undefined): string[] {
  const folder = path.dirname(path.resolve(log.path));
  const inside = (p: string, dir: string) => {
    const rel = path.relative(dir, p);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  };
  const out = workspace && inside(path.resolve(workspace), folder) ? [log.path, `${log.path}-wal`, `${log.path}-shm`, `${log.path}-journal`] : [folder];
  const payloads = log.payloads?.dir;
  if (payloads && !inside(path.resolve(payloads), folder)) out.push(payloads);
  else if (payloads && out[0] === log.path) out.push(payloads);
  return out;
}

/**
 * The session's kernel as KernelPool holds it: the backend's kernel, plus whether its cells
 * run sandboxed right now, plus the session's memory host and channel, released with the kernel.
 */
export class SessionKernel implements Kernel {
  private disposed = false;

  constructor(
    readonly inner: Kernel,
    private readonly sandboxedNow: () => boolean,
    private readonly release: () => Promise<void>,
  ) {}

  get backend(): Kernel['backend'] {
    return this.inner.backend;
  }

  get status(): KernelStatus {
    return this.inner.status;
  }

  /** Cells run in the OS sandbox (Scroll's own process, sandboxed). False for Jupyter. */
  get sandboxed(): boolean {
    return this.sandboxedNow();
  }

  onStatus(listener: (status: KernelStatus) => void): Disposable {
    return this.inner.onStatus(listener);
  }

  execute(code: string, opts?: ExecuteOptions): Promise<KernelResult> {
    return this.inner.execute(code, opts);
  }

  restart(): Promise<void> {
    return this.inner.restart();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    try {
      await this.inner.dispose();
    } finally {
      await this.release();
    }
  }
}

/** Whether a kernel KernelPool holds runs its cells sandboxed (unknown kernels: not). */
export function kernelSandboxed(k: Kernel): boolean {
  const inner = k instanceof LoggedKernel ? k.inner : k;
  return (inner as { sandboxed?: unknown }).sandboxed === true;
}

/** A factory in the shape KernelPool takes (`setFactory`). */
export function sessionKernelFactory(extensionPath: string, options: { notify?: (message: string) => void; logCells?: boolean } = {}) {
  return (opts: { session: string; config: SessionKernelRequest['config']; workspace: string | undefined; log: EventLog; sandbox?: SandboxDecision }): Promise<Kernel> =>
    createSessionKernel({ ...opts, extensionPath, ...options });
}
