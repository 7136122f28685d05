/**
 * The "Scroll" output channel (View → Output → Scroll): one log channel per extension, created at
 * activation and disposed with it. Anything Scroll wants the user to be able to look up later
 * (which kernel sandbox is in force and why, ...) goes here; `scrollOutput()` reaches it from
 * anywhere in the editor layer.
 */
import * as vscode from 'vscode';

let channel: vscode.LogOutputChannel | undefined;

export const OUTPUT_CHANNEL_NAME = 'Scroll';

/** Creates the channel (once per activation) and registers it for disposal. */
export function registerOutputChannel(context: vscode.ExtensionContext): vscode.LogOutputChannel {
  if (channel) return channel;
  const created = vscode.window.createOutputChannel(OUTPUT_CHANNEL_NAME, { log: true });
  channel = created;
  context.subscriptions.push(created, { dispose: () => (channel === created ? (channel = undefined) : undefined) });
  return created;
}

/** The channel, or undefined before activation / after deactivation (callers then log nowhere). */
export function scrollOutput(): vscode.LogOutputChannel | undefined {
  return channel;
}
