/**
 * Scroll's language model tools. Coding tools for @scroll (read, list, search text, edit, run,
 * scroll_exec) and history tools any agent may use (#scrollHistory). Edit and run ask the user
 * first (prepareInvocation); edit, run and exec are refused in untrusted workspaces.
 */
import * as vscode from 'vscode';
import { parseSeqSpec } from '../history/eventMarkdown';
import type { ScrollServices } from '../services';
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

  tool(TOOL_NAMES.exec, {
    prepareInvocation: () => ({ invocationMessage: 'Running Python…' }),
    invoke: async (o, token) => {
      requireTrust('The Python kernel');
      if (typeof o.input.code !== 'string' || !o.input.code.trim()) throw new Error('code is required');
      return text((await services.runPython(o.input.code, token)).content);
    },
  });
}
