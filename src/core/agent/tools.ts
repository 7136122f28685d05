/**
 * Tools the agent loop offers the model. `scroll_exec` is always there when a kernel is; hosts add
 * their own (`AgentTool`): the CLI its workspace tools, the editor its own.
 */
import { TOOL_NAMES, toolDefinition } from './toolTable';
import type { Kernel, KernelResult } from '../kernel/kernel';
import { LoggedKernel, type LoggedExecuteOptions } from '../kernel/loggedKernel';
import type { NewEvent, LogEvent } from '../types';
import type { ToolDefinition } from './model';

export interface ToolContext {
  signal?: AbortSignal;
  session: string;
  step: number;
  callId: string;
  /** Seq of the tool_call event being answered. */
  callSeq: number;
  /** Appends an event of this session and step to the log (and the view) before the result. */
  appendEvent(e: Omit<NewEvent, 'session' | 'step'>): LogEvent;
}

export interface ToolOutput {
  /** What the model sees (the view may show a preview of it; the log keeps it whole). */
  content: string;
  isError?: boolean;
  /** Extra facts for the tool_result event's meta (e.g. kernel `variables`). */
  meta?: Record<string, unknown>;
}

export interface AgentTool {
  readonly definition: ToolDefinition;
  /** The host must ask the user before each run (writes, commands). */
  readonly needsConfirmation?: boolean;
  invoke(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput | string>;
}

export const SCROLL_EXEC = TOOL_NAMES.exec;

export interface ScrollExecOptions {
  /** Per-cell timeout (default 60 s). */
  timeoutMs?: number;
  /**
   * True when the kernel appends its own kernel_exec/kernel_output events; default: true for a
   * LoggedKernel, else the tool appends them.
   */
  kernelLogsCells?: boolean;
}

/** `scroll_exec`: run Python in the session kernel; the result is what the cell printed. */
export function scrollExecTool(kernel: Kernel, opts: ScrollExecOptions = {}): AgentTool {
  return {
    definition: toolDefinition(TOOL_NAMES.exec),
    async invoke(input, ctx) {
      const code = input.code;
      if (typeof code !== 'string' || !code.trim()) {
        return { content: 'scroll_exec needs {"code": "<python source>"} with non-empty code.', isError: true };
      }
      const logsItself = opts.kernelLogsCells ?? kernel instanceof LoggedKernel;
      const cell = logsItself
        ? null
        : ctx.appendEvent({ kind: 'kernel_exec', role: 'kernel', name: SCROLL_EXEC, content: code, toolCallId: ctx.callId, parentSeq: ctx.callSeq });
      // A logged kernel files its cell under this step and call (extra options are ignored by others).
      const execOpts: LoggedExecuteOptions = {
        timeoutMs: opts.timeoutMs ?? 60_000,
        signal: ctx.signal,
        step: ctx.step,
        toolCallId: ctx.callId,
        parentSeq: ctx.callSeq,
        session: ctx.session,
      };
      const r = await kernel.execute(code, execOpts);
      const content = formatKernelResult(r);
      if (cell) {
        ctx.appendEvent({
          kind: 'kernel_output',
          role: 'kernel',
          name: SCROLL_EXEC,
          content,
          toolCallId: ctx.callId,
          parentSeq: cell.seq,
          meta: kernelMeta(r),
        });
      }
      return { content, isError: r.error !== null, meta: kernelMeta(r) };
    },
  };
}

export function kernelMeta(r: KernelResult): Record<string, unknown> {
  const meta: Record<string, unknown> = { variables: r.variables, durationMs: r.durationMs };
  if (r.error) meta.error = r.error.ename;
  if (r.restarted) meta.restarted = true;
  if (r.truncated) meta.truncated = true;
  return meta;
}

/** What the model sees of a cell: what it printed, then the error, then notes about the kernel. */
export function formatKernelResult(r: KernelResult): string {
  const parts: string[] = [];
  if (r.stdout) parts.push(r.stdout.replace(/\n$/, ''));
  if (r.stderr) parts.push(`[stderr]\n${r.stderr.replace(/\n$/, '')}`);
  if (r.error) {
    const tb = r.error.traceback.slice(-6).join('\n');
    parts.push(`[error] ${r.error.ename}: ${r.error.evalue}${tb ? `\n${tb}` : ''}`);
  }
  if (r.truncated) parts.push('[output cut at the cap: print less — slices, counts, excerpts]');
  if (r.restarted) parts.push('[the kernel was restarted: variables from earlier cells are gone]');
  if (!parts.length) parts.push('(no output — only what the code prints is returned)');
  return parts.join('\n');
}
