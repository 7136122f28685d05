/**
 * Status bar: the working view's tokens / budget and the Python kernel's state ("Scroll · no chat yet"
 * before the first @scroll chat); click opens the panel. The
 * tooltip says whether the Python kernel is sandboxed (cellConfinement: the same answer scroll_exec
 * asks the user by). When cells go to the user's Jupyter kernel, a second item offers Scroll's
 * sandboxed kernel ("Scroll: Use Sandboxed Python Kernel"). The "Scroll" output channel gets the mode
 * in force at start-up and whenever the kernel settings change.
 */
import * as vscode from 'vscode';
import { unsandboxedReason, type CellConfinement } from './kernel/cellConfinement';
import { scrollOutput } from './output';
import type { ScrollServices } from './services';

/** What the status bar needs of Scroll's services. */
export type StatusServices = Pick<ScrollServices, 'settings' | 'kernels' | 'sessions' | 'onDidChange'>;

export const USE_SANDBOXED_KERNEL_COMMAND = 'scroll.useSandboxedKernel';

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 100_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  return `${Math.round(n / 1000)}k`;
}

/** One line: which kernel mode is in force for the session's next cell. */
export function kernelModeLine(c: CellConfinement): string {
  switch (c.kind) {
    case 'sandboxed':
      return `Python kernel: ${c.decision.summary}`;
    case 'jupyter':
      return 'Jupyter kernel: every cell asks first (Scroll cannot sandbox your Jupyter kernel)';
    case 'refused':
      return `Python kernel: cells are refused — ${c.refusal}`;
    case 'unsandboxed': {
      const { reason, fix } = unsandboxedReason(c.decision);
      return `Python kernel: not sandboxed: ${reason} — every cell asks first${fix ? `; fix: ${fix}` : ''}`;
    }
  }
}

/** The session's kernel mode, or undefined when it cannot be told (untrusted workspace: no kernel at all). */
function confinementOf(services: StatusServices, session: string | undefined): CellConfinement | undefined {
  if (!services.settings.trusted) return undefined;
  try {
    return services.kernels.cellConfinement(session ?? services.sessions.execSession());
  } catch {
    return undefined;
  }
}

/** `checkSandbox: false` leaves the kernel mode out (activation: no probe before the first paint). */
export function statusText(services: StatusServices, opts: { checkSandbox?: boolean } = {}): { text: string; tooltip: string; confinement?: CellConfinement } {
  const session = services.sessions.active;
  const f = services.sessions.figuresOf(session);
  const kernel = services.kernels.state(session);
  // Words a person reads at a glance: before the first @scroll chat there are no figures to show.
  const view = f ? `${formatTokens(f.viewTokens)}/${formatTokens(f.budget)} tokens` : 'Scroll';
  const kernelLabel = kernel !== 'none' ? `Python ${kernel}` : f ? 'Python not started' : 'no chat yet';
  const confinement = opts.checkSandbox === false ? undefined : confinementOf(services, session);
  const mode = !services.settings.trusted
    ? 'Python kernel: disabled in untrusted workspaces'
    : confinement
      ? kernelModeLine(confinement)
      : 'Python kernel: checking the sandbox…';
  const tooltip = [
    'Scroll — click to open the history panel',
    session ? `Session: ${session}` : 'No @scroll chat yet: ask @scroll in the Chat view to start one',
    f ? `Working view: ${f.viewTokens} of ${f.budget} tokens; ${f.evictions} eviction${f.evictions === 1 ? '' : 's'}` : 'Working view: not built yet',
    `Kernel: ${kernel === 'none' ? 'not started' : kernel}`,
    mode,
  ].join('\n');
  return { text: `$(history) ${view} · ${kernelLabel}`, tooltip, confinement };
}

export function registerStatusBar(context: vscode.ExtensionContext, services: StatusServices): vscode.StatusBarItem {
  const item = vscode.window.createStatusBarItem('scroll.status', vscode.StatusBarAlignment.Right, 100);
  item.name = 'Scroll';
  item.command = 'scroll.openHistoryPanel';
  // Shown while cells go to the user's Jupyter kernel: the way back to the sandbox.
  const offer = vscode.window.createStatusBarItem('scroll.sandboxOffer', vscode.StatusBarAlignment.Right, 99);
  offer.name = 'Scroll: Sandboxed Kernel';
  offer.text = '$(shield) Sandbox';
  offer.tooltip = 'Scroll runs Python in your Jupyter kernel, which it cannot sandbox: every cell asks first. Click to use Scroll\'s sandboxed Python kernel instead.';
  offer.command = USE_SANDBOXED_KERNEL_COMMAND;
  // The sandbox is probed (a short process) after activation, not during it.
  let checkSandbox = false;
  const update = () => {
    const s = statusText(services, { checkSandbox });
    item.text = s.text;
    item.tooltip = s.tooltip;
    if (s.confinement?.kind === 'jupyter') offer.show();
    else offer.hide();
  };
  update();
  item.show();

  let lastLogged = '';
  const logMode = (why: string) => {
    try {
      logModeNow(why);
    } catch (e) {
      scrollOutput()?.error(`could not tell the kernel's sandbox mode: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const logModeNow = (why: string) => {
    const out = scrollOutput();
    if (!out || !services.settings.trusted) return;
    const c = confinementOf(services, services.sessions.active);
    if (!c) return;
    const line = kernelModeLine(c);
    if (line === lastLogged && why !== 'settings changed') return;
    lastLogged = line;
    const sandbox = c.decision;
    const backend = services.settings.config.kernelBackend;
    const log = c.kind === 'sandboxed' ? out.info.bind(out) : out.warn.bind(out);
    log(`${line} [${why}; scroll.kernel.sandbox: ${sandbox.mode}, scroll.kernel.backend: ${backend}]`);
    if (!sandbox.probe.available && c.kind !== 'jupyter') out.info(`sandbox unavailable: ${sandbox.probe.reason}; to fix: ${sandbox.probe.fix}`);
  };
  const timer = setTimeout(() => {
    checkSandbox = true;
    update();
    logMode('start-up');
  }, 0);

  context.subscriptions.push(
    item,
    offer,
    { dispose: () => clearTimeout(timer) },
    services.onDidChange(() => {
      if (checkSandbox) update();
      else {
        // Before the deferred first check: figures only.
        const s = statusText(services, { checkSandbox: false });
        item.text = s.text;
        item.tooltip = s.tooltip;
      }
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!checkSandbox) return;
      if (e.affectsConfiguration('scroll.kernel.sandbox') || e.affectsConfiguration('scroll.kernel.backend')) {
        update();
        logMode('settings changed');
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      if (!checkSandbox) return;
      update();
      logMode('workspace trusted');
    }),
    vscode.commands.registerCommand(USE_SANDBOXED_KERNEL_COMMAND, async () => {
      const replaced = await services.kernels.useSandboxedKernel();
      const c = confinementOf(services, services.sessions.active);
      const mode = c ? kernelModeLine(c) : 'Python kernel: Scroll\'s own process';
      scrollOutput()?.info(`scroll.kernel.backend set to "subprocess" for this workspace${replaced.length ? `; kernel restarted for ${replaced.join(', ')}` : ''}. ${mode}`);
      void vscode.window.showInformationMessage(`Scroll: ${mode}${replaced.length ? ' (the session\'s kernel was restarted: its variables are gone)' : ''}.`);
      return replaced;
    }),
  );
  return item;
}
