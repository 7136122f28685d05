/**
 * `run_python` of `scroll mcp`: one persistent sandboxed kernel per client connection, its `ms`
 * answered by a MemoryHost on the log, every cell and its output logged (LoggedKernel) under the
 * client's own session. Started on the first cell, so a client that only reads never starts Python
 * and never opens the log for writing. Offered only with a sandbox (the caller decides): cells
 * then need no confirmation, and the sandbox hides the log folder, so nothing a cell runs can
 * write the log.
 */
import { dirname } from 'node:path';
import type { DriverChoice } from '../db';
import { errorMessage } from '../errors';
import { EventLog } from '../log/eventLog';
import { formatKernelResult, LoggedKernel } from '../kernel/loggedKernel';
import { ScratchFolder, type SandboxAvailable } from '../kernel/sandbox';
import { SubprocessKernel } from '../kernel/subprocessKernel';
import { MemoryHost } from '../memory/memoryHost';

export interface PythonCellsOptions {
  dbPath: string;
  /** The kernel's working folder (read-only inside the sandbox). */
  workspace: string;
  sandbox: SandboxAvailable;
  /** The session the cells are logged under; asked on the first cell (the client has introduced itself by then). */
  session: () => string;
  python?: string;
  driver?: DriverChoice;
  onWarning?: (message: string) => void;
}

export interface CellOutcome {
  text: string;
  isError: boolean;
  session: string;
  execSeq: number;
  outputSeq: number;
}

export class PythonCells {
  private started?: Promise<{ kernel: SubprocessKernel; logged: LoggedKernel; log: EventLog; memory: MemoryHost; session: string }>;
  private disposed = false;

  constructor(private readonly opts: PythonCellsOptions) {}

  async run(code: string, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<CellOutcome> {
    const k = await this.kernel();
    const r = await k.logged.execute(code, { timeoutMs: opts.timeoutMs, signal: opts.signal, session: k.session });
    return { text: formatKernelResult(r), isError: r.error !== null, session: k.session, execSeq: r.execSeq, outputSeq: r.outputSeq };
  }

  private kernel() {
    if (this.disposed) return Promise.reject(new Error('the server is shutting down'));
    this.started ??= this.start().catch((e) => {
      // A failed start is retried by the next cell (Python may have been missing).
      this.started = undefined;
      throw new Error(`the Python kernel did not start: ${errorMessage(e)}`);
    });
    return this.started;
  }

  private async start() {
    const session = this.opts.session();
    const log = EventLog.open({ path: this.opts.dbPath, session, driver: this.opts.driver, onWarning: this.opts.onWarning });
    const memory = new MemoryHost({ log, session });
    const kernel = new SubprocessKernel({
      memory,
      session,
      cwd: this.opts.workspace,
      pythonPath: this.opts.python,
      sandbox: this.opts.sandbox,
      scratch: ScratchFolder.forSession(session, this.opts.workspace),
      hiddenPaths: [dirname(log.path)],
    });
    try {
      await kernel.start();
    } catch (e) {
      await kernel.dispose().catch(() => undefined);
      memory.dispose();
      log.close();
      throw e;
    }
    return { kernel, logged: new LoggedKernel(kernel, log), log, memory, session };
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const started = this.started;
    this.started = undefined;
    if (!started) return;
    const k = await started.catch(() => undefined);
    if (!k) return;
    await k.kernel.dispose().catch(() => undefined);
    k.memory.dispose();
    k.log.close();
  }
}
