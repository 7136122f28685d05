/**
 * Entry point. activate() only wires things up — one register* call per feature — and opens
 * nothing: the log, kernels and models are created on first use, so activation stays cheap (figures: docs/PERFORMANCE.md).
 */
import * as vscode from 'vscode';
import { createApi, type ScrollApi } from './api';
import { registerCapture } from './vscode/capture/captureService';
import { registerChatParticipant } from './vscode/chat/participant';
import { registerCommands } from './vscode/commands';
import { registerIndexCompaction } from './vscode/maintenance/indexCompaction';
import { registerGcCommand } from './vscode/maintenance/gcCommand';
import { registerIntegrityCommands } from './vscode/maintenance/integrityCommands';
import { registerScrollDocuments } from './vscode/documents/contentProvider';
import { registerOpenAIProvider } from './vscode/lm/openaiProvider';
import { mcpLaunch, registerMcpServerProvider } from './vscode/mcp/mcpServerProvider';
import { out, registerOutputChannel } from './vscode/output';
import { registerPanelCommand } from './vscode/panel/panelCommand';
import { registerPurgeCommand } from './vscode/maintenance/purgeCommand';
import { ScrollServices } from './vscode/services';
import { registerEmbeddingsKeyCommand } from './vscode/hybridSearch';
import { registerStatusBar } from './vscode/statusBar';
import { registerTools } from './vscode/tools/registerTools';

export function activate(context: vscode.ExtensionContext): ScrollApi {
  const t0 = performance.now();
  registerOutputChannel(context);
  const services = new ScrollServices(context);
  context.subscriptions.push(services);
  registerScrollDocuments(context, services);
  registerCommands(context, services);
  registerIntegrityCommands(context, services);
  registerGcCommand(context, services);
  registerPurgeCommand(context, services);
  registerIndexCompaction(context, services);
  registerPanelCommand(context, services);
  registerTools(context, services);
  registerChatParticipant(context, services);
  registerOpenAIProvider(context);
  registerEmbeddingsKeyCommand(context);
  registerMcpServerProvider(context, services);
  registerStatusBar(context, services);
  registerCapture(context, services);
  services.activationMs = performance.now() - t0;
  out.info(
    `Scroll ${String(context.extension.packageJSON.version)} activated in ${services.activationMs.toFixed(1)} ms ` +
      `(VS Code ${vscode.version}, ${vscode.env.appHost}${vscode.env.remoteName ? `, remote ${vscode.env.remoteName}` : ''}; ` +
      `${vscode.workspace.workspaceFolders?.length ?? 0} folder(s), ${vscode.workspace.isTrusted ? 'trusted' : 'not trusted: history is read-only, no agent or kernel'})`,
  );
  return createApi(services, () => mcpLaunch(context, services));
}

export function deactivate(): void {
  // Everything is in context.subscriptions; the services close the log and stop the kernels.
}
