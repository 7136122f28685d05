/**
 * The "Scroll" output channel (View → Output → Scroll): one log channel per extension, created at
 * activation and disposed with it; its level is VS Code's ("Developer: Set Log Level…" → Scroll).
 * What Scroll does goes here so that a user with a problem has something to send: activation, the
 * log opened, kernels started/stopped/restarted with backend and sandbox mode, each tool call,
 * recoveries, integrity findings, settings changes.
 *
 * Never log content (messages, cells, outputs, file text may hold secrets): names, seqs, sizes,
 * durations, and Scroll's own error messages.
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

/** Writes to the channel at a level; nothing before activation or after deactivation. */
export const out = {
  trace: (message: string) => channel?.trace(message),
  debug: (message: string) => channel?.debug(message),
  info: (message: string) => channel?.info(message),
  warn: (message: string) => channel?.warn(message),
  error: (message: string) => channel?.error(message),
};

/** Milliseconds since `t0` (a performance.now() reading), for log lines. */
export function msSince(t0: number): string {
  return `${Math.round(performance.now() - t0)} ms`;
}

/** An error's name and Scroll's message about it, for log lines (never a cell or a file's text). */
export function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
