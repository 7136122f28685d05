/**
 * Scroll's settings and the workspace they apply to: `config` (read fresh each time, see config.ts),
 * the workspace folder, whether it is trusted. Every change of a `scroll.*` setting is written to the
 * "Scroll" output channel (names and values; never a value that may hold a credential).
 */
import * as vscode from 'vscode';
import { readConfig, workspaceRoot, type ScrollConfig } from './config';
import { configChanges } from './configChanges';
import { out } from './output';

export class Settings implements vscode.Disposable {
  private last: ScrollConfig;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly globalStorageDir: string) {
    this.last = this.config;
    this.subscriptions = [
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('scroll')) return;
        const now = this.config;
        for (const line of configChanges(this.last, now)) out.info(`setting changed: ${line}`);
        this.last = now;
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => out.info('the workspace is trusted now: the agent, the kernel and writing the log are enabled')),
    ];
  }

  get config(): ScrollConfig {
    return readConfig(this.globalStorageDir);
  }

  get workspace(): string | undefined {
    return workspaceRoot();
  }

  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  /** Sets `scroll.<key>` for this workspace (its folder's settings; the user's without a folder). */
  async setForWorkspace(key: string, value: unknown): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const target = folder ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await vscode.workspace.getConfiguration('scroll', folder?.uri ?? null).update(key, value, target);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
