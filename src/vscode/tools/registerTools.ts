/**
 * Scroll's language model tools. Coding tools for @scroll (read, list, search text, edit, run) and
 * history tools any agent may use (#scrollHistory); scroll_exec for other agents (@scroll runs its
 * cells in the agent loop, agentSession.ts). Edit and run ask the user first (prepareInvocation), and
 * so does scroll_exec when its cell will not run in Scroll's sandbox (execTool); edit, run and exec
 * are refused in untrusted workspaces. Each invocation is written to the "Scroll" output channel
 * (trace: name, duration, size of the result; an error's name), never its input or result.
 */
import * as vscode from 'vscode';
import { TOOL_NAMES } from '../../core/agent/toolTable';
import type { ToolOutput } from '../../core/agent/tools';
import { parseSeqSpec } from '../documents/eventMarkdown';
import { cellAsksFirst, EXEC_CONFIRMATION_TITLE, execConsentReason, type CellConfinement } from '../kernel/cellConfinement';
import { msSince, out } from '../output';
import type { ScrollServices } from '../services';
import {
  applyEdit,
  editPreview,
  formatCommandRun,
  listWorkspaceFiles,
  planEdit,
  readWorkspaceFile,
  relativePath,
  runWorkspaceCommand,
  searchWorkspaceText,
} from './workspaceFiles';
import { expandHistory, searchHistoryText } from './historyText';

export { TOOL_NAMES };

/** Tools @scroll offers its model, in this order. */
export const PARTICIPANT_TOOLS: readonly string[] = [
  TOOL_NAMES.exec,
  TOOL_NAMES.readFile,
  TOOL_NAMES.listFiles,
  TOOL_NAMES.searchText,
  TOOL_NAMES.editFile,
  TOOL_NAMES.runCommand,
  TOOL_NAMES.searchHistory,
  TOOL_NAMES.expandEvent,
];

/** Tools that change things or run code: refused in untrusted workspaces. */
export const TRUSTED_ONLY_TOOLS: ReadonlySet<string> = new Set([TOOL_NAMES.editFile, TOOL_NAMES.runCommand, TOOL_NAMES.exec]);

const RUN_TIMEOUT_MS = 120_000;

function text(s: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(s)]);
}

function requireTrust(name: string): void {
  if (!vscode.workspace.isTrusted) throw new Error(`${name} is disabled in untrusted workspaces (trust the workspace to enable it).`);
}

type Input = Record<string, unknown>;

/** What the tools need of Scroll's services. */
export type ToolServices = Pick<ScrollServices, 'settings' | 'logs' | 'kernels' | 'sessions'>;

/** Plain text as Markdown that renders as that text (appendText would turn spaces into &nbsp;). */
export function escapeMarkdown(t: string): string {
  return t.replace(/[\\`*_{}[\]<>#|~]/g, (ch) => `\\${ch}`);
}

/** The question VS Code shows before an unconfined cell: the code, and why it asks. */
export function execConfirmation(code: string, c: CellConfinement): { title: string; message: vscode.MarkdownString } {
  const md = new vscode.MarkdownString();
  md.appendCodeblock(code, 'python');
  md.appendMarkdown('\n\n');
  md.appendMarkdown(escapeMarkdown(`Scroll asks because ${execConsentReason(c)}.`));
  return { title: EXEC_CONFIRMATION_TITLE, message: md };
}

/** Times each invocation into the output channel: name, duration, result size or error name. */
function traced(name: string, impl: vscode.LanguageModelTool<Input>): vscode.LanguageModelTool<Input> {
  return {
    prepareInvocation: impl.prepareInvocation?.bind(impl),
    invoke: async (o, token) => {
      const t0 = performance.now();
      try {
        const r = await impl.invoke(o, token);
        const size = r ? r.content.reduce((n: number, p) => n + (p instanceof vscode.LanguageModelTextPart ? p.value.length : 0), 0) : 0;
        out.trace(`tool ${name}: ${msSince(t0)}, ${size} characters`);
        return r;
      } catch (e) {
        out.debug(`tool ${name} failed after ${msSince(t0)}: ${e instanceof Error ? e.name : 'Error'}`);
        throw e;
      }
    },
  };
}

export function registerTools(context: vscode.ExtensionContext, services: ToolServices): void {
  const tool = (name: string, impl: vscode.LanguageModelTool<Input>) => context.subscriptions.push(vscode.lm.registerTool<Input>(name, traced(name, impl)));
  const { logs, settings } = services;

  tool(TOOL_NAMES.searchHistory, {
    prepareInvocation: (o) => ({ invocationMessage: `Searching history for “${String(o.input.query ?? '')}”` }),
    invoke: (o) => {
      const log = logs.existingLog();
      if (!log) return text('This workspace has no Scroll history yet.');
      return text(searchHistoryText(log, o.input));
    },
  });

  tool(TOOL_NAMES.expandEvent, {
    prepareInvocation: (o) => ({ invocationMessage: `Reading history seq ${String(o.input.seq ?? '')}` }),
    invoke: (o) => {
      const log = logs.existingLog();
      if (!log) return text('This workspace has no Scroll history yet.');
      const budget = o.tokenizationOptions?.tokenBudget;
      const cap = Math.max(2_000, Math.min(settings.config.outputCap * 4, budget ? budget * 4 : Infinity));
      return text(expandHistory(log, parseSeqSpec(String(o.input.seq ?? '')), cap));
    },
  });

  tool(TOOL_NAMES.readFile, {
    prepareInvocation: (o) => ({ invocationMessage: `Reading ${String(o.input.path ?? '')}` }),
    invoke: async (o) => text((await readWorkspaceFile(o.input, settings.config.outputCap * 4)).text),
  });

  tool(TOOL_NAMES.listFiles, {
    prepareInvocation: (o) => ({ invocationMessage: `Listing ${String(o.input.pattern ?? 'files')}` }),
    invoke: async (o) => text(await listWorkspaceFiles(o.input)),
  });

  tool(TOOL_NAMES.searchText, {
    prepareInvocation: (o) => ({ invocationMessage: `Searching the workspace for “${String(o.input.query ?? '')}”` }),
    invoke: async (o) => text(await searchWorkspaceText(o.input)),
  });

  tool(TOOL_NAMES.editFile, {
    prepareInvocation: async (o) => {
      requireTrust('Editing files');
      const plan = await planEdit(o.input);
      const md = new vscode.MarkdownString();
      md.appendMarkdown(`${plan.create ? 'Create' : 'Edit'} \`${relativePath(plan.uri)}\`:\n\n`);
      md.appendCodeblock(editPreview(plan), 'diff');
      return {
        invocationMessage: `${plan.create ? 'Creating' : 'Editing'} ${relativePath(plan.uri)}`,
        confirmationMessages: { title: `Scroll wants to ${plan.create ? 'create' : 'edit'} ${relativePath(plan.uri)}`, message: md },
      };
    },
    invoke: async (o) => {
      requireTrust('Editing files');
      return text(await applyEdit(await planEdit(o.input)));
    },
  });

  tool(TOOL_NAMES.runCommand, {
    prepareInvocation: (o) => {
      requireTrust('Running commands');
      const command = String(o.input.command ?? '');
      const md = new vscode.MarkdownString();
      md.appendMarkdown(`Run in \`${vscode.workspace.workspaceFolders?.[0]?.name ?? 'the workspace'}\`:\n\n`);
      md.appendCodeblock(command, 'sh');
      return { invocationMessage: `Running \`${command.slice(0, 80)}\``, confirmationMessages: { title: 'Scroll wants to run a command', message: md } };
    },
    invoke: async (o, token) => {
      requireTrust('Running commands');
      const command = typeof o.input.command === 'string' ? o.input.command.trim() : '';
      if (!command) throw new Error('command is required');
      const timeoutMs = typeof o.input.timeoutMs === 'number' && o.input.timeoutMs > 0 ? Math.min(o.input.timeoutMs, 3_600_000) : RUN_TIMEOUT_MS;
      const run = await runWorkspaceCommand(command, { timeoutMs, token });
      // The whole output goes back: the agent loop logs it (large output lands in the payload store)
      // and shows the model a preview with the seq of the full copy.
      return text(formatCommandRun(run));
    },
  });

  tool(TOOL_NAMES.exec, execTool(services));
}

/**
 * `scroll_exec` for other agents (Copilot agent mode, another extension): the cell runs in the kernel
 * of `sessions.execSession()` (the @scroll session used last, else this window's tools session) and
 * is logged there as kernel_exec/kernel_output. @scroll does not come this way: its loop holds its
 * session's kernel (agentSession.ts), so no call can land in another session's kernel.
 *
 * Consent: a cell that will not run in Scroll's sandbox (none available, `scroll.kernel.sandbox: off`,
 * or the session's kernel is the user's Jupyter kernel) asks first: prepareInvocation returns
 * confirmationMessages, and VS Code shows them with its own Allow / Allow in this Session / Skip
 * choices; a denied cell is never invoked, and Scroll never learns of it (nothing ran, nothing is
 * logged). `require` without a sandbox: prepareInvocation and invoke throw the refusal, which says
 * how to install one.
 */
export function execTool(services: ToolServices): vscode.LanguageModelTool<Input> {
  const { kernels, sessions } = services;
  return {
    prepareInvocation: (o) => {
      requireTrust('The Python kernel');
      const confinement = kernels.cellConfinement(sessions.execSession());
      if (confinement.kind === 'refused') throw new Error(confinement.refusal);
      const invocationMessage = confinement.kind === 'sandboxed' ? 'Running Python in the sandboxed kernel…' : 'Running Python…';
      if (!cellAsksFirst(confinement)) return { invocationMessage };
      out.debug(`tool scroll_exec: asking first (${confinement.kind}) through VS Code's confirmation`);
      return { invocationMessage, confirmationMessages: execConfirmation(String(o.input.code ?? ''), confinement) };
    },
    invoke: async (o, token) => {
      requireTrust('The Python kernel');
      if (typeof o.input.code !== 'string' || !o.input.code.trim()) throw new Error('code is required');
      return text((await runCell(services, o.input.code, token)).content);
    },
  };
}

/* eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on the first cell, not at activation */
const loggedKernelModule = () => require('../../core/kernel/loggedKernel') as typeof import('../../core/kernel/loggedKernel');

/** Runs a cell of another agent in `execSession()`'s kernel, logged as kernel_exec/kernel_output there. */
async function runCell(services: ToolServices, code: string, token?: vscode.CancellationToken): Promise<ToolOutput> {
  const { settings, logs, kernels, sessions } = services;
  const session = sessions.execSession();
  // `require` without a sandbox: nothing runs (prepareInvocation said so already).
  const confinement = kernels.cellConfinement(session);
  if (confinement.kind === 'refused') throw new Error(confinement.refusal);
  const abort = new AbortController();
  const sub = token?.onCancellationRequested(() => abort.abort());
  try {
    const { LoggedKernel, formatKernelResult } = loggedKernelModule();
    const config = settings.config;
    const kernel = new LoggedKernel(await kernels.get(session), logs.log());
    const r = await kernel.execute(code, { session, timeoutMs: config.kernelTimeoutMs, signal: abort.signal });
    logs.notifyChanged();
    out.debug(`tool scroll_exec in session ${session}: seq ${r.execSeq}→${r.outputSeq}, ${Math.round(r.durationMs)} ms${r.error ? `, ${r.error.ename}` : ''}`);
    const content = formatKernelResult(r);
    const cap = config.outputCap;
    return {
      content: content.length > cap ? `${content.slice(0, cap)}\n… [cut at ${cap} characters; full output: seq ${r.outputSeq}]` : content,
      isError: r.error !== null,
    };
  } finally {
    sub?.dispose();
  }
}
