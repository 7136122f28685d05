/**
 * The editor's toolbox for `@scroll`: the tools of `vscode.lm.tools` it may offer (toolboxSelection.ts
 * decides which), called through `vscode.lm.invokeTool` with the request's toolInvocationToken so
 * their confirmations and progress show as VS Code shows them. The agent loop logs each call and its
 * full result like Scroll's own (a large result goes to the payload store). After a tool that
 * changes files, the result carries the problems the editor then reports in those files
 * (`vscode.languages.getDiagnostics`, after waiting briefly for the language server).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { prompt } from '../../prompts';
import { workspaceRoot } from '../config';
import { EDIT_TOOL_NAME, editedPaths, selectToolbox, type ToolboxChoice } from './toolboxSelection';

/** How long a tool result waits for the language server to report on an edited file. */
const DIAGNOSTICS_WAIT_MS = 4_000;
const MAX_PROBLEMS = 40;
const MCP_TOOL_DESCRIPTIONS = ['search_history', 'read_events', 'history_index', 'run_python'].map((t) => prompt(`mcp/${t}`));

/** `scroll.chat.tools`: names or tags of editor tools @scroll may use (`*`: all). */
export function allowedTools(): string[] {
  const v = vscode.workspace.getConfiguration('scroll').get<unknown>('chat.tools', []);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export function chooseToolbox(own: readonly string[], referenced: readonly string[]): ToolboxChoice {
  return selectToolbox({ available: vscode.lm.tools, allowed: allowedTools(), referenced, own, ownMcpDescriptions: MCP_TOOL_DESCRIPTIONS });
}

export function changesFiles(toolName: string): boolean {
  return toolName === 'scroll_editFile' || EDIT_TOOL_NAME.test(toolName);
}

/** The text of a tool result; parts that are not text are named, not dropped silently. */
export function resultText(result: vscode.LanguageModelToolResult): string {
  return result.content
    .map((p) => {
      if (p instanceof vscode.LanguageModelTextPart) return p.value;
      if (p instanceof vscode.LanguageModelPromptTsxPart) return JSON.stringify(p.value);
      return `[a ${(p as object)?.constructor?.name ?? 'non-text'} part the model cannot read here]`;
    })
    .join('');
}

function toUri(p: string): vscode.Uri {
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(p)) return vscode.Uri.parse(p);
  return vscode.Uri.file(path.isAbsolute(p) ? p : path.join(workspaceRoot() ?? '', p));
}

/**
 * Watches the files a call is about to change; `report()` after the call waits until the editor has
 * new diagnostics for each (or a short while) and returns them as text for the model.
 */
export function watchProblems(input: Record<string, unknown>): { report(): Promise<string>; dispose(): void } | undefined {
  const uris = editedPaths(input).map(toUri);
  if (!uris.length) return undefined;
  const pending = new Set(uris.map((u) => u.toString()));
  let settle: () => void = () => undefined;
  const allReported = new Promise<void>((resolve) => (settle = resolve));
  const sub = vscode.languages.onDidChangeDiagnostics((e) => {
    for (const u of e.uris) pending.delete(u.toString());
    if (pending.size === 0) settle();
  });
  return {
    dispose: () => sub.dispose(),
    async report() {
      // Language servers that pull diagnostics (JSON's, for one) check only documents shown in a tab:
      // an edited file not in one opens in a preview tab, without taking the focus (as other agents do).
      for (const u of uris) await showQuietly(u);
      const timer = new Promise<void>((resolve) => setTimeout(resolve, DIAGNOSTICS_WAIT_MS));
      await Promise.race([allReported, timer]);
      sub.dispose();
      return formatProblems(uris);
    },
  };
}

function inATab(uri: vscode.Uri): boolean {
  const key = uri.toString();
  return vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === key));
}

async function showQuietly(uri: vscode.Uri): Promise<void> {
  try {
    const doc = await vscode.workspace.openTextDocument(uri);
    if (!inATab(uri)) await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true });
  } catch {
    // a file the edit removed, or one the editor cannot open: no problems to report for it
  }
}

function severityName(s: vscode.DiagnosticSeverity): string {
  return s === vscode.DiagnosticSeverity.Error ? 'error' : s === vscode.DiagnosticSeverity.Warning ? 'warning' : s === vscode.DiagnosticSeverity.Information ? 'info' : 'hint';
}

export function formatProblems(uris: vscode.Uri[]): string {
  const lines: string[] = [];
  let total = 0;
  for (const uri of uris) {
    const shown = vscode.workspace.asRelativePath(uri, false);
    const problems = vscode.languages.getDiagnostics(uri).filter((d) => d.severity <= vscode.DiagnosticSeverity.Warning);
    if (problems.length === 0) {
      lines.push(`${shown}: no problems reported`);
      continue;
    }
    for (const d of problems) {
      if (++total > MAX_PROBLEMS) break;
      lines.push(`${shown}:${d.range.start.line + 1}:${d.range.start.character + 1} ${severityName(d.severity)}: ${d.message.replace(/\s+/g, ' ')}${d.source ? ` (${d.source})` : ''}`);
    }
  }
  if (total > MAX_PROBLEMS) lines.push(`… and ${total - MAX_PROBLEMS} more`);
  return `\n\n[problems the editor reports in the edited files now]\n${lines.join('\n')}`;
}
