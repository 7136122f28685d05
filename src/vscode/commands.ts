/** The "Scroll" commands: search, open by seq, index, kernel restart, export, log folder. */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SearchHit } from '../core/types';
import { openScrollDocument } from './documents/contentProvider';
import { parseSeqSpec, renderSessionExport, type SeqSpec } from './documents/eventMarkdown';
import { latestSession, sessionEvents } from './documents/historyQueries';
import { previewOnlySeqs } from '../core/log/previewOnly';
import { sessionSources, sourcesOf } from '../core/log/historyQueries';
import { hitItemText, sourceChoices } from './searchHistoryItems';
import { sourceDisplay } from '../shared/sourceDisplay';
import { forEditor } from './maintenance/editorHint';
import { out } from './output';
import type { ScrollServices } from './services';

/** What the commands need of Scroll's services. */
export type CommandServices = Pick<ScrollServices, 'settings' | 'logs' | 'kernels' | 'sessions' | 'search'>;

export const SEARCH_DEBOUNCE_MS = 150;
const SEARCH_RESULTS = 50;
const SEARCH_TITLE = 'Scroll: Search History';

interface HitItem extends vscode.QuickPickItem {
  seq: number;
}

/** `source`: the hit's meta.source when it was captured from another agent's transcript. */
export function hitItem(h: SearchHit, source?: string): HitItem {
  const { codicon, ...text } = hitItemText(h, source);
  return {
    ...text,
    iconPath: codicon ? new vscode.ThemeIcon(codicon) : undefined,
    alwaysShow: true, // FTS already filtered; the QuickPick's own fuzzy filter must not hide hits
  };
}

/** What `scroll.searchHistory` takes besides the query (also set by the quick pick's filter button). */
export interface SearchHistoryOptions {
  /** Only events captured from this agent's transcripts (meta.source, e.g. 'claude-code'). */
  source?: string;
}

export function registerCommands(context: vscode.ExtensionContext, services: CommandServices): void {
  const reg = (id: string, fn: (...args: any[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));

  reg('scroll.searchHistory', (initialQuery?: string, options?: SearchHistoryOptions) =>
    searchHistory(services, typeof initialQuery === 'string' ? initialQuery : '', {
      source: options && typeof options === 'object' && typeof options.source === 'string' && options.source ? options.source : undefined,
    }));

  reg('scroll.openEvent', async (arg?: number | string | SeqSpec) => {
    let spec: SeqSpec;
    if (typeof arg === 'number') spec = { seq: arg };
    else if (arg && typeof arg === 'object') spec = arg;
    else {
      const text =
        typeof arg === 'string'
          ? arg
          : await vscode.window.showInputBox({
              title: 'Scroll: Open Event',
              prompt: 'A seq (42) or an inclusive range (40..45)',
              validateInput: (v) => {
                try {
                  parseSeqSpec(v);
                  return undefined;
                } catch (e) {
                  return (e as Error).message;
                }
              },
            });
      if (text === undefined) return undefined;
      try {
        spec = parseSeqSpec(text);
      } catch (e) {
        void vscode.window.showErrorMessage(`Scroll: ${(e as Error).message}`);
        return undefined;
      }
    }
    const editor = await openScrollDocument('seq' in spec ? { kind: 'event', seq: spec.seq } : { kind: 'range', from: spec.from, to: spec.to });
    return editor.document.uri.toString();
  });

  reg('scroll.showEvictionIndex', async (session?: string) => {
    const chosen = typeof session === 'string' ? session : await pickSession(services, 'Show the eviction index of which session?', { evictionsFirst: true });
    if (!chosen) return undefined;
    const editor = await openScrollDocument({ kind: 'index', session: chosen });
    return editor.document.uri.toString();
  });

  reg('scroll.restartKernel', async (session?: string) => {
    if (!services.settings.trusted) {
      void vscode.window.showWarningMessage('Scroll: the Python kernel is disabled in untrusted workspaces.');
      return false;
    }
    const target = typeof session === 'string' ? session : services.sessions.execSession();
    if (!target || !services.kernels.has(target)) {
      out.info(`restart kernel: session ${target} has no kernel`);
      void vscode.window.showInformationMessage('Scroll: no kernel is running; one starts when @scroll first runs Python.');
      return false;
    }
    await services.kernels.restart(target);
    void vscode.window.showInformationMessage(`Scroll: kernel of session ${target} restarted (variables cleared).`);
    return true;
  });

  reg('scroll.exportSession', async (session?: string, to?: 'untitled' | vscode.Uri) => {
    const chosen = typeof session === 'string' ? session : await pickSession(services, 'Export which session as Markdown?');
    if (!chosen) return undefined;
    const log = services.logs.existingLog();
    if (!log) return undefined;
    const events = sessionEvents(log, chosen);
    const markdown = renderSessionExport(chosen, events);
    const partial = previewOnlySeqs(events);
    if (partial.length) {
      // The export is written anyway (each such event marked in it): the rest of the session is whole.
      void vscode.window.showWarningMessage(
        `Scroll: ${partial.length} event(s) of session ${chosen} are exported from their stored preview only: their payload file is missing or damaged (seq ${partial.slice(0, 10).join(', ')}${partial.length > 10 ? ', …' : ''}). "Scroll: Check History Integrity" lists them all.`,
      );
    }
    let destination: 'untitled' | vscode.Uri | undefined = to;
    if (!destination) {
      const pick = await vscode.window.showQuickPick(['Open in an untitled editor', 'Save to a file…'], { title: `Export session ${chosen}` });
      if (!pick) return undefined;
      if (pick.startsWith('Open')) destination = 'untitled';
      else {
        destination = await vscode.window.showSaveDialog({
          defaultUri: vscode.Uri.file(path.join(services.settings.workspace ?? path.dirname(services.settings.config.logPath), `scroll-${safeFileName(chosen)}.md`)),
          filters: { Markdown: ['md'] },
        });
        if (!destination) return undefined;
      }
    }
    if (destination === 'untitled') {
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: markdown });
      await vscode.window.showTextDocument(doc);
      return doc.uri.toString();
    }
    await vscode.workspace.fs.writeFile(destination, Buffer.from(markdown, 'utf8'));
    void vscode.window.showInformationMessage(`Scroll: session ${chosen} exported to ${destination.fsPath}`);
    return destination.toString();
  });

  reg('scroll.revealLogFolder', async () => {
    const logPath = services.settings.config.logPath;
    const folder = vscode.Uri.file(path.dirname(logPath));
    const root = services.settings.workspace;
    if (root && !path.relative(root, logPath).startsWith('..')) {
      await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(logPath));
    } else if (vscode.env.remoteName) {
      void vscode.window.showInformationMessage(`Scroll: the log is at ${logPath}`);
    } else {
      await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(logPath));
    }
    return folder.fsPath;
  });
}

/**
 * QuickPick that runs an FTS query as you type (debounced); Enter opens the event's tab. Its filter
 * button (shown when the log holds captured sessions) narrows the hits to one agent's transcripts.
 */
async function searchHistory(services: CommandServices, initialQuery: string, options: SearchHistoryOptions): Promise<void> {
  let log;
  try {
    log = services.logs.existingLog();
  } catch (e) {
    void vscode.window.showWarningMessage(`Scroll: ${(e as Error).message}`);
    return;
  }
  if (!log) {
    void vscode.window.showInformationMessage('Scroll: this workspace has no history yet. Ask @scroll something first.');
    return;
  }
  const qp = vscode.window.createQuickPick<HitItem>();
  const placeholder = 'Search every logged message, tool call and output (full text)';
  qp.placeholder = placeholder;
  qp.matchOnDescription = false;
  qp.matchOnDetail = false;
  let source = options.source;
  const filterButton = (): vscode.QuickInputButton => ({
    iconPath: new vscode.ThemeIcon(source ? 'filter-filled' : 'filter'),
    tooltip: source ? `Source: ${sourceDisplay(source).label} (choose another)` : 'Filter by source (another agent whose sessions were captured)',
  });
  const showTitle = () => {
    const title = source ? `${SEARCH_TITLE} · from ${sourceDisplay(source).label} only` : SEARCH_TITLE;
    // An index built by an older Scroll is rebuilt in the background after the open; until then
    // searches answer from it, and say so.
    qp.title = services.logs.indexRebuilding ? `${title} (the index is being rebuilt: results from the previous index)` : title;
  };
  const showFilter = () => {
    showTitle();
    // Offered when there is something to filter (or a filter to undo).
    qp.buttons = source || sessionSources(log).size ? [filterButton()] : [];
  };
  showFilter();
  let choosing = false;
  let timer: NodeJS.Timeout | undefined;
  let generation = 0;
  const run = async (query: string) => {
    const mine = ++generation;
    if (!query.trim()) {
      qp.items = [];
      qp.busy = false;
      return;
    }
    try {
      const result = await services.search.search(log, query, { k: SEARCH_RESULTS, snippet: true, ...(source ? { source } : {}) });
      if (mine !== generation) return;
      const sources = sourcesOf(log, result.hits.map((h) => h.seq));
      qp.items = result.hits.map((h) => hitItem(h, sources.get(h.seq)));
      showTitle();
      qp.placeholder = result.message ? forEditor(result.message) : placeholder;
    } catch (e) {
      qp.items = [];
      qp.placeholder = `Search failed: ${(e as Error).message}`;
    } finally {
      qp.busy = false;
    }
  };
  qp.onDidChangeValue((v) => {
    qp.busy = true;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(v), SEARCH_DEBOUNCE_MS);
  });
  qp.onDidTriggerButton(async () => {
    // The source list is a second quick pick: this one hides meanwhile and comes back after.
    choosing = true;
    const choices = sourceChoices(sessionSources(log), source).map((c) => ({ ...c, iconPath: c.codicon ? new vscode.ThemeIcon(c.codicon) : undefined }));
    const picked = await vscode.window.showQuickPick(choices, { title: `${SEARCH_TITLE} · filter by source`, placeHolder: 'Show hits from which agent?' });
    choosing = false;
    if (picked) source = picked.source;
    showFilter();
    qp.show();
    void run(qp.value);
  });
  const done = new Promise<void>((resolve) => {
    qp.onDidAccept(async () => {
      const item = qp.selectedItems[0] ?? qp.activeItems[0];
      qp.hide();
      if (item) await openScrollDocument({ kind: 'event', seq: item.seq }, { preview: false });
      resolve();
    });
    qp.onDidHide(() => {
      if (choosing) return;
      if (timer) clearTimeout(timer);
      qp.dispose();
      resolve();
    });
  });
  qp.show();
  if (initialQuery) {
    qp.value = initialQuery;
    void run(initialQuery);
  }
  await done;
}

/** `evictionsFirst`: sessions that have evictions lead (newest first), so the preselected one has an index to show. */
async function pickSession(services: CommandServices, title: string, opts: { evictionsFirst?: boolean } = {}): Promise<string | undefined> {
  const log = services.logs.existingLog();
  if (!log) {
    void vscode.window.showInformationMessage('Scroll: this workspace has no history yet.');
    return undefined;
  }
  const sessions = log.sessions().sort((a, b) => b.lastSeq - a.lastSeq);
  if (!sessions.length) {
    void vscode.window.showInformationMessage('Scroll: the log holds no sessions yet.');
    return undefined;
  }
  const active = services.sessions.active ?? latestSession(log);
  const items = sessions.map((s) => ({
    label: s.session,
    description: `${s.events} events · seq ${s.firstSeq}..${s.lastSeq}${s.session === active ? ' · current' : ''}`,
    detail: `${s.firstTs.slice(0, 16).replace('T', ' ')} – ${s.lastTs.slice(0, 16).replace('T', ' ')} · ~${s.tokens} tokens`,
  }));
  items.sort((a, b) => (a.label === active ? -1 : b.label === active ? 1 : 0));
  if (opts.evictionsFirst) {
    const evicted = new Set(sessions.filter((s) => log.lastEviction(s.session)).map((s) => s.session));
    for (const it of items) if (evicted.has(it.label)) it.description += ' · has evictions';
    // Stable: within each group the order above (current first, then newest) is kept.
    items.sort((a, b) => Number(evicted.has(b.label)) - Number(evicted.has(a.label)));
  }
  return (await vscode.window.showQuickPick(items, { title, matchOnDescription: true }))?.label;
}

function safeFileName(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
}

