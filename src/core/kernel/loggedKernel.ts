/**
 * LoggedKernel: every cell goes into the event log before it runs (`kernel_exec`), and what it
 * printed right after (`kernel_output`, parent = the exec event). Large outputs go to the payload
 * store — EventLog.append does that above its threshold. Works with any Kernel backend.
 */
import type { LogEvent, NewEvent } from '../types';
import type { Disposable, ExecuteOptions, Kernel, KernelResult, KernelStatus } from './kernel';

/** The part of EventLog this needs. */
export interface EventAppender {
  append(e: NewEvent): LogEvent;
}

export interface LoggedExecuteOptions extends ExecuteOptions {
  /** Agent-loop step the cell belongs to. */
  step?: number | null;
  /** Tool call that asked for the cell (scroll_exec), so results can be joined back. */
  toolCallId?: string | null;
  /** Event the cell answers (e.g. the model turn). */
  parentSeq?: number | null;
  session?: string;
}

export interface LoggedKernelResult extends KernelResult {
  execSeq: number;
  outputSeq: number;
}

/** The text a cell's result becomes in the log and in the model's view. */
export function formatKernelResult(r: KernelResult): string {
  const parts: string[] = [];
  if (r.stdout) parts.push(r.stdout.endsWith('\n') ? r.stdout.slice(0, -1) : r.stdout);
  if (r.stderr) parts.push(`[stderr]\n${r.stderr.endsWith('\n') ? r.stderr.slice(0, -1) : r.stderr}`);
  if (r.error) {
    const tb = r.error.traceback.join('').trimEnd();
    parts.push(tb && tb.includes(r.error.ename) ? tb : `${r.error.ename}: ${r.error.evalue}${tb ? `\n${tb}` : ''}`);
  }
  if (r.restarted) parts.push('[the kernel restarted: variables from earlier cells were lost]');
  return parts.length ? parts.join('\n') : '(no output)';
}

export class LoggedKernel implements Kernel {
  constructor(
    readonly inner: Kernel,
    private readonly log: EventAppender,
  ) {}

  get backend(): Kernel['backend'] {
    return this.inner.backend;
  }

  get status(): KernelStatus {
    return this.inner.status;
  }

  onStatus(listener: (status: KernelStatus) => void): Disposable {
    return this.inner.onStatus(listener);
  }

  async execute(code: string, opts: LoggedExecuteOptions = {}): Promise<LoggedKernelResult> {
    const common = {
      role: 'kernel',
      name: 'python',
      step: opts.step ?? null,
      toolCallId: opts.toolCallId ?? null,
      ...(opts.session ? { session: opts.session } : {}),
    };
    // Logged before it runs: a cell that kills the kernel is still on record.
    const exec = this.log.append({
      ...common,
      kind: 'kernel_exec',
      content: code,
      parentSeq: opts.parentSeq ?? null,
      meta: { backend: this.inner.backend, ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}) },
    });
    let result: KernelResult;
    try {
      result = await this.inner.execute(code, { timeoutMs: opts.timeoutMs, signal: opts.signal });
    } catch (e) {
      // The cell never ran (no Python, kernel disposed): the log says so next to the cell.
      const message = e instanceof Error ? e.message : String(e);
      this.log.append({
        ...common,
        kind: 'kernel_output',
        content: `[the cell did not run: ${message}]`,
        parentSeq: exec.seq,
        meta: { execSeq: exec.seq, error: e instanceof Error ? e.name : 'Error', ran: false },
      });
      throw e;
    }
    const output = this.log.append({
      ...common,
      kind: 'kernel_output',
      content: formatKernelResult(result),
      parentSeq: exec.seq,
      meta: {
        execSeq: exec.seq,
        durationMs: result.durationMs,
        error: result.error ? result.error.ename : null,
        truncated: !!result.truncated,
        restarted: !!result.restarted,
        variables: result.variables,
      },
    });
    return { ...result, execSeq: exec.seq, outputSeq: output.seq };
  }

  restart(): Promise<void> {
    return this.inner.restart();
  }

  dispose(): Promise<void> {
    return this.inner.dispose();
  }
}
