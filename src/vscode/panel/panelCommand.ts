/** `scroll.openHistoryPanel`: the panel itself is src/vscode/panel (registered here, shown on demand). */
import * as vscode from 'vscode';
import { registerHistoryPanel, type RevealOptions } from './index';
import type { ScrollServices } from '../services';

export function registerPanelCommand(context: vscode.ExtensionContext, services: Pick<ScrollServices, 'logs' | 'sessions'>): void {
  const panel = registerHistoryPanel(context, {
    getLog: () => services.logs.log(),
    currentSession: () => services.sessions.active,
  });
  context.subscriptions.push(
    vscode.commands.registerCommand('scroll.openHistoryPanel', (options?: RevealOptions) => {
      panel.show(options && typeof options === 'object' ? options : undefined);
      return panel.isOpen;
    }),
  );
}
