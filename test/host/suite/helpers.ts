// Helpers shared by Scroll's in-host tests (not a test file itself).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ScrollApi } from '../../../src/api';
import type { LogEvent } from '../../../src/core/types';

export const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
export const scrollId = `${manifest.publisher}.${manifest.name}`;

export async function scrollApi(): Promise<ScrollApi> {
  const ext = vscode.extensions.getExtension<ScrollApi>(scrollId);
  if (!ext) throw new Error(`${scrollId} is not loaded`);
  return ext.activate();
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns a value (not undefined/false) or the time runs out. */
export async function waitFor<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const until = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`);
    await sleep(everyMs);
  }
}

export function workspaceRoot(): string {
  const f = vscode.workspace.workspaceFolders?.[0];
  if (!f) throw new Error('no workspace folder');
  return f.uri.fsPath;
}

export async function closeAllEditors(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

export function toolText(r: vscode.LanguageModelToolResult): string {
  return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

/**
 * What the "Scroll" output channel holds so far (its log file under the run's user-data folder, which
 * sits beside the workspace: scripts/host/run-host-tests.mjs). Lines below the channel's level (info by
 * default) are not written.
 */
export function scrollChannelText(): string {
  const logs = path.join(path.dirname(process.env.SCROLL_TEST_WORKSPACE ?? workspaceRoot()), 'user-data', 'logs');
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/Scroll\.log$/.test(e.name) && p.includes(scrollId)) files.push(p);
    }
  };
  if (fs.existsSync(logs)) walk(logs);
  return files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

/**
 * Sends one message to @scroll through the Chat view (`[tag] text`, with the model of `vendor`) and
 * waits until it has answered. `approveTools`: meanwhile press Allow on each tool confirmation, as a
 * user would (the chat's acceptTool action).
 */
export async function sendToScroll(api: ScrollApi, vendor: string, tag: string, text: string, opts: { approveTools?: boolean } = {}): Promise<void> {
  const before = api.services.sessions.turnsCompleted;
  await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@scroll [${tag}] ${text}`, modelSelector: { vendor } });
  let approving = opts.approveTools;
  const approver = (async () => {
    while (approving) {
      await vscode.commands.executeCommand('workbench.action.chat.acceptTool').then(undefined, () => undefined);
      await sleep(300);
    }
  })();
  try {
    await waitFor(`@scroll to answer [${tag}]`, () => api.services.sessions.turnsCompleted > before, 120_000, 200);
  } finally {
    approving = false;
    await approver;
  }
}

/** Every event of a session, in order, full (payloads resolved). */
export function eventsOfSession(api: ScrollApi, session: string): LogEvent[] {
  const log = api.services.existingLog()!;
  return log.expand(log.database.prepare('SELECT seq FROM events WHERE session = ? ORDER BY seq').all(session).map((r: any) => Number(r.seq)));
}
