/**
 * The kernel of one chat session, as the extension builds it: setting `scroll.kernel.backend`
 * (auto | jupyter | subprocess) picks Jupyter or Scroll's own Python process; whichever runs,
 * every cell and its output go to the event log (LoggedKernel).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EventLog } from '../../core/log/eventLog';
import type { Kernel } from '../../core/kernel/kernel';
import { LoggedKernel } from '../../core/kernel/loggedKernel';
import { SubprocessKernel } from '../../core/kernel/subprocessKernel';
import { FallbackKernel } from './fallbackKernel';
import { connectJupyterKernel, jupyterInstalled } from './jupyterSession';
import { resolvePythonPath } from './pythonPath';

export type KernelBackendChoice = 'auto' | 'jupyter' | 'subprocess';

export interface SessionKernelRequest {
  session: string;
  config: {
    kernelBackend: KernelBackendChoice;
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

export async function createSessionKernel(req: SessionKernelRequest & { logCells?: true }): Promise<LoggedKernel>;
export async function createSessionKernel(req: SessionKernelRequest): Promise<Kernel>;
export async function createSessionKernel(req: SessionKernelRequest): Promise<Kernel> {
  const notify = req.notify ?? ((m: string) => void vscode.window.showWarningMessage(m));
  const kernelDir = path.join(req.extensionPath, 'kernel');
  const common = {
    dbPath: req.log.path,
    payloadDir: req.log.payloads.dir,
    session: req.session,
    outputCap: req.config.outputCap,
    defaultTimeoutMs: req.config.kernelTimeoutMs,
  };
  const resource = req.workspace ? vscode.Uri.file(req.workspace) : undefined;
  const python = await resolvePythonPath(req.config.pythonPath, resource);
  const subprocess = (): Kernel => new SubprocessKernel({ ...common, pythonPath: python.path, kernelDir, cwd: req.workspace });

  let inner: Kernel;
  const backend = req.config.kernelBackend;
  if (backend === 'subprocess') inner = subprocess();
  else if (!jupyterInstalled()) {
    if (backend === 'jupyter') {
      notify('Scroll: scroll.kernel.backend is "jupyter" but the Jupyter extension is not installed. Using Scroll\'s own Python process.');
    }
    inner = subprocess();
  } else {
    inner = new FallbackKernel({
      primary: () =>
        connectJupyterKernel({
          ...common,
          kernelDir,
          notebookDir: path.dirname(req.log.path),
          connectTimeoutMs: req.jupyterConnectTimeoutMs,
          notify,
        }),
      fallback: subprocess,
      notify,
    });
  }
  return req.logCells === false ? inner : new LoggedKernel(inner, req.log);
}

/** A factory in the shape ScrollServices takes (`setKernelFactory`). */
export function sessionKernelFactory(extensionPath: string, options: { notify?: (message: string) => void; logCells?: boolean } = {}) {
  return (opts: { session: string; config: SessionKernelRequest['config']; workspace: string | undefined; log: EventLog }): Promise<Kernel> =>
    createSessionKernel({ ...opts, extensionPath, ...options });
}
