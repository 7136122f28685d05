/**
 * Scroll's language model tools. Coding tools for @scroll (read, list, search text, edit, run,
 * scroll_exec) and history tools any agent may use (#scrollHistory). Edit and run ask the user
 * first (prepareInvocation), and so does scroll_exec when its cell will not run in Scroll's sandbox
 * (execTool); edit, run and exec are refused in untrusted workspaces.
 */
import * as vscode from 'vscode';
import { parseSeqSpec } from '../history/eventMarkdown';
import { cellAsksFirst, unsandboxedReason, type CellConfinement, type ScrollServices } from '../services';
import {
  applyEdit,
  editPreview,
  formatCommandRun,
  listWorkspaceFiles,
  planEdit,
  readWorkspaceFile,
  relativePath,
  runShellCommand,
  searchWorkspaceText,
} from './workspaceFiles';
import { expandHistory, searchHistoryText } from './historyText';

export const TOOL_NAMES = {
  searchHistory: 'scroll_searchHistory',
  expandEvent: 'scroll_expandEvent',
  readFile: 'scroll_readFile',
  listFiles: 'scroll_listFiles',
  searchText: 'scroll_searchText',
  editFile: 'scroll_editFile',
  runCommand: 'scroll_runCommand',
  exec: 'scroll_exec',
} as const;

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

/** What the model is told about a scroll_exec cell the user declined (@scroll's path, agentSession.ts). */
export const DECLINED_CELL_RESULT = 'The user declined to run this cell: nothing ran, the kernel is unchanged. Do not retry it as is; ask the user or go another way.';

export const EXEC_CONFIRMATION_TITLE = 'Run Python in the Scroll kernel?';

/** Why a cell asks first, in one line of the confirmation. */
export function execConsentReason(c: CellConfinement): string {
  if (c.kind === 'jupyter') return 'this is your Jupyter kernel, which Scroll cannot confine';
  const { reason, fix } = unsandboxedReason(c.decision);
  return `the kernel is not sandboxed: ${reason}${fix ? ` (to sandbox it: ${fix})` : ''}`;
}

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

export function registerTools(context: vscode.ExtensionContext, services: ScrollServices): void {
  const tool = (name: string, impl: vscode.LanguageModelTool<Input>) => context.subscriptions.push(vscode.lm.registerTool<Input>(name, impl));

  tool(TOOL_NAMES.searchHistory, {
    prepareInvocation: (o) => ({ invocationMessage: `Searching history for “${String(o.input.query ?? '')}”` }),
    invoke: (o) => {
      const log = services.existingLog();
      if (!log) return text('This workspace has no Scroll history yet.');
      return text(searchHistoryText(log, o.input));
    },
  });

  tool(TOOL_NAMES.expandEvent, {
    prepareInvocation: (o) => ({ invocationMessage: `Reading history seq ${String(o.input.seq ?? '')}` }),
    invoke: (o) => {
      const log = services.existingLog();
      if (!log) return text('This workspace has no Scroll history yet.');
      const budget = o.tokenizationOptions?.tokenBudget;
      const cap = Math.max(2_000, Math.min(services.config.outputCap * 4, budget ? budget * 4 : Infinity));
      return text(expandHistory(log, parseSeqSpec(String(o.input.seq ?? '')), cap));
    },
  });

  tool(TOOL_NAMES.readFile, {
    prepareInvocation: (o) => ({ invocationMessage: `Reading ${String(o.input.path ?? '')}` }),
    invoke: async (o) => text((await readWorkspaceFile(o.input, services.config.outputCap * 4)).text),
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
      const run = await runShellCommand(command, { timeoutMs, token });
      // The whole output goes back: the agent loop logs it (large output lands in the payload store)
      // and shows the model a preview with the seq of the full copy.
      return text(formatCommandRun(run));
    },
  });

  tool(TOOL_NAMES.exec, execTool(services));
}

/**
 * `scroll_exec` for any caller (@scroll, Copilot agent mode, another extension): the same rules for all.
 *
 * Consent: a cell that will not run in Scroll's sandbox (none available, `scroll.kernel.sandbox: off`,
 * or the session's kernel is the user's Jupyter kernel) asks first: prepareInvocation returns
 * confirmationMessages, and VS Code shows them with its own Allow / Allow in this Session / Deny
 * choices; a denied cell is never invoked. @scroll sees the denial (invokeTool rejects with a
 * cancellation) and logs the cell as declined (agentSession.ts). When another agent calls the tool,
 * Scroll never learns of a denial: nothing ran, so nothing is logged. `require` without a sandbox:
 * prepareInvocation and invoke throw the refusal, which says how to install one.
 */
export function execTool(services: ScrollServices): vscode.LanguageModelTool<Input> {
  return {
    prepareInvocation: (o) => {
      requireTrust('The Python kernel');
      const confinement = services.cellConfinement();
      if (confinement.kind === 'refused') throw new Error(confinement.refusal);
      const invocationMessage = confinement.kind === 'sandboxed' ? 'Running Python in the sandboxed kernel…' : 'Running Python…';
      if (!cellAsksFirst(confinement)) return { invocationMessage };
      return { invocationMessage, confirmationMessages: execConfirmation(String(o.input.code ?? ''), confinement) };
    },
    invoke: async (o, token) => {
      requireTrust('The Python kernel');
      if (typeof o.input.code !== 'string' || !o.input.code.trim()) throw new Error('code is required');
      return text((await services.runPython(o.input.code, token)).content);
    },
  };
}
