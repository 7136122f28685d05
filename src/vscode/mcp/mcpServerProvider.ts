/**
 * "Scroll memory" for every MCP-aware agent in the editor (Copilot's agent mode and other
 * extensions), without configuration: an MCP server definition provider that starts `scroll mcp`
 * (dist/cli.js) with the editor's own runtime, `process.execPath` with ELECTRON_RUN_AS_NODE=1, on
 * the built-in `node:sqlite` (the better-sqlite3 addon is built for another Node than the editor's).
 * Untrusted workspaces get `--read-only`. The server leaves out the tools Scroll's own language-model
 * tools already give agent mode (scroll_searchHistory, scroll_expandEvent, scroll_exec), so no agent
 * sees the same tool twice; what it adds there is `history_index` and the `scroll:` resources.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { workspaceRoot } from '../config';
import { out } from '../output';
import type { ScrollServices } from '../services';

/** The id in package.json's `contributes.mcpServerDefinitionProviders`. */
export const MCP_PROVIDER_ID = 'scroll.memory';
export const MCP_SERVER_LABEL = 'Scroll memory';
/** What Scroll's language-model tools already offer agent mode (scroll_searchHistory, scroll_expandEvent, scroll_exec). */
export const OMITTED_IN_EDITOR = ['search_history', 'read_events', 'run_python'];

export interface McpLaunch {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  version: string;
}

/** How the editor starts the server for this workspace; undefined without a folder. */
export function mcpLaunch(context: vscode.ExtensionContext, services: ScrollServices): McpLaunch | undefined {
  const root = workspaceRoot();
  if (!root) return undefined;
  const cfg = services.settings.config;
  const args = [path.join(context.extensionPath, 'dist', 'cli.js'), 'mcp', '--workspace', root, '--db', cfg.logPath, '--omit', OMITTED_IN_EDITOR.join(',')];
  if (!services.settings.trusted) args.push('--read-only');
  args.push('--sandbox', cfg.kernelSandbox);
  if (cfg.pythonPath) args.push('--python', cfg.pythonPath);
  const env: Record<string, string> = { ELECTRON_RUN_AS_NODE: '1' };
  // node:sqlite exists from Node 22.5 (every current editor's runtime); an older one keeps the default choice.
  if (Number(process.versions.node.split('.')[0]) >= 22) env.SCROLL_SQLITE_DRIVER = 'node:sqlite';
  const version = `${String(context.extension.packageJSON.version)}${services.settings.trusted ? '' : '-read-only'}`;
  return { label: MCP_SERVER_LABEL, command: process.execPath, args, env, cwd: root, version };
}

export function registerMcpServerProvider(context: vscode.ExtensionContext, services: ScrollServices): void {
  // Older editors have no MCP API: nothing to register.
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider !== 'function') return;
  const changed = new vscode.EventEmitter<void>();
  const fire = () => changed.fire();
  context.subscriptions.push(
    changed,
    vscode.workspace.onDidGrantWorkspaceTrust(fire),
    vscode.workspace.onDidChangeWorkspaceFolders(fire),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('scroll')) fire();
    }),
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => {
        const launch = mcpLaunch(context, services);
        if (!launch) return [];
        const def = new vscode.McpStdioServerDefinition(launch.label, launch.command, launch.args, launch.env, launch.version);
        def.cwd = vscode.Uri.file(launch.cwd);
        out.debug(`MCP server "${launch.label}" offered to the editor: ${launch.args.slice(1).join(' ')}`);
        return [def];
      },
    }),
  );
}
