/** Status bar: the working view's tokens / budget and the kernel's state; click opens the panel. */
import * as vscode from 'vscode';
import type { ScrollServices } from './services';

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 100_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  return `${Math.round(n / 1000)}k`;
}

export function statusText(services: ScrollServices): { text: string; tooltip: string } {
  const session = services.activeSession;
  const f = services.sessionFigures(session);
  const kernel = services.kernelState(session);
  const view = f ? `${formatTokens(f.viewTokens)}/${formatTokens(f.budget)}` : '—';
  const kernelLabel = kernel === 'none' ? 'no kernel' : `py ${kernel}`;
  const tooltip = [
    'Scroll — click to open the history panel',
    session ? `Session: ${session}` : 'No @scroll session yet',
    f ? `Working view: ${f.viewTokens} of ${f.budget} tokens; ${f.evictions} eviction${f.evictions === 1 ? '' : 's'}` : 'Working view: not built yet',
    `Kernel: ${kernel === 'none' ? 'not started' : kernel}`,
  ].join('\n');
  return { text: `$(history) ${view} · ${kernelLabel}`, tooltip };
}

export function registerStatusBar(context: vscode.ExtensionContext, services: ScrollServices): vscode.StatusBarItem {
  const item = vscode.window.createStatusBarItem('scroll.status', vscode.StatusBarAlignment.Right, 100);
  item.name = 'Scroll';
  item.command = 'scroll.openHistoryPanel';
  const update = () => {
    const s = statusText(services);
    item.text = s.text;
    item.tooltip = s.tooltip;
  };
  update();
  item.show();
  context.subscriptions.push(item, services.onDidChange(update));
  return item;
}
