/**
 * Opt-in hybrid search in the editor (`scroll.search.embeddings.*`, off by default): while an
 * endpoint and a model are set and the workspace is trusted, the open log's events are embedded in
 * the background (after each append, in batches, with backoff) and Search History fuses BM25 with
 * the vectors (src/core/search/hybrid.ts). Anything wrong with the endpoint makes search BM25's,
 * said once in the "Scroll" output channel. The API key comes from the editor's secret storage,
 * else from the environment variable the settings name; it is never a setting itself.
 */
import * as vscode from 'vscode';
import type { EventLog } from '../core/log/eventLog';
import type { SearchOptions, SearchResult } from '../core/types';
import type { EmbeddingClient } from '../core/search/embeddingClient';
import type { HybridSearch } from '../core/search/hybrid';
import type { VectorBackfill } from '../core/search/embedBackfill';
import { errorText, out } from './output';
import type { LogService } from './logService';
import type { Settings } from './settings';

export const EMBEDDINGS_KEY_SECRET = 'scroll.search.embeddings.apiKey';

/* eslint-disable @typescript-eslint/no-require-imports -- loaded when hybrid search is configured, never at activation */
const clientModule = () => require('../core/search/embeddingClient') as typeof import('../core/search/embeddingClient');
const hybridModule = () => require('../core/search/hybrid') as typeof import('../core/search/hybrid');
const backfillModule = () => require('../core/search/embedBackfill') as typeof import('../core/search/embedBackfill');
/* eslint-enable @typescript-eslint/no-require-imports */

export class HybridSearchService implements vscode.Disposable {
  private configured: { key: string; client: EmbeddingClient; hybrid: HybridSearch } | undefined;
  private filling: { log: EventLog; model: string; fill: VectorBackfill } | undefined;
  private building: Promise<void> | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly settings: Settings,
    private readonly logs: LogService,
  ) {
    this.subscriptions = [
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('scroll.search.embeddings')) this.reset('its settings changed');
      }),
      secrets.onDidChange((e) => {
        if (e.key === EMBEDDINGS_KEY_SECRET) this.reset('its API key changed');
      }),
      logs.onDidChange(() => void this.keepFilled()),
    ];
  }

  /** True when an endpoint and a model are set (the opt-in). */
  get enabled(): boolean {
    const c = this.settings.config.embeddings;
    return c.endpoint !== '' && c.model !== '';
  }

  /**
   * Search History's search: hybrid when configured and trusted, else the log's own search. Never
   * fails because of the endpoint (see HybridSearch).
   */
  async search(log: EventLog, query: string, opts: SearchOptions): Promise<SearchResult> {
    if (!this.enabled || !this.settings.trusted) return log.search(query, opts);
    const c = await this.current();
    return c ? c.hybrid.search(log.database, query, opts) : log.search(query, opts);
  }

  /** The client for the settings now, built once per settings + key. */
  private async current(): Promise<{ client: EmbeddingClient; hybrid: HybridSearch } | undefined> {
    const c = this.settings.config.embeddings;
    const apiKey = (await this.secrets.get(EMBEDDINGS_KEY_SECRET)) || (c.apiKeyEnv ? process.env[c.apiKeyEnv] : undefined) || undefined;
    const key = JSON.stringify([c.endpoint, c.model, apiKey ?? '']);
    if (this.configured?.key === key) return this.configured;
    try {
      const client = new (clientModule().EmbeddingClient)({ endpoint: c.endpoint, model: c.model, apiKey });
      const hybrid = new (hybridModule().HybridSearch)(client, { onNote: (m) => out.warn(m) });
      this.configured = { key, client, hybrid };
      out.info(`hybrid search on: BM25 fused with ${c.model} embeddings (the endpoint is sent each event's redacted text and each query)`);
      return this.configured;
    } catch (e) {
      if (this.configured?.key !== key) out.warn(`hybrid search off: ${errorText(e)}`);
      this.configured = undefined;
      return undefined;
    }
  }

  /** Keeps the open log's vectors filled in the background (trusted workspace, log open for writing). */
  private async keepFilled(): Promise<void> {
    if (this.building) return;
    this.building = (async () => {
      const log = this.logs.isOpen && this.settings.trusted && this.enabled ? this.logs.existingLog() : undefined;
      const c = log && !log.readonly ? await this.current() : undefined;
      if (!log || !c) return this.stopFilling();
      if (this.filling?.log !== log || this.filling.model !== c.client.model) {
        this.stopFilling();
        const fill = new (backfillModule().VectorBackfill)(log.database, c.client, { onNote: (m) => out.warn(m) });
        this.filling = { log, model: c.client.model, fill };
        out.info(`hybrid search: ${fill.missing()} events to embed with ${c.client.model}, in the background`);
      }
      this.filling.fill.kick();
    })()
      .catch((e) => out.warn(`hybrid search: the background embedding could not start: ${errorText(e)}`))
      .finally(() => (this.building = undefined));
  }

  private stopFilling(): void {
    this.filling?.fill.dispose();
    this.filling = undefined;
  }

  private reset(why: string): void {
    this.stopFilling();
    if (this.configured) out.info(`hybrid search: restarted (${why})`);
    this.configured = undefined;
    void this.keepFilled();
  }

  dispose(): void {
    this.stopFilling();
    for (const s of this.subscriptions) s.dispose();
  }
}

/** "Scroll: Set Embeddings API Key (Hybrid Search)": the key in the editor's secret storage. */
export function registerEmbeddingsKeyCommand(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('scroll.setEmbeddingsKey', async (key?: string) => {
      const value =
        typeof key === 'string'
          ? key
          : await vscode.window.showInputBox({
              title: 'Scroll: API key of the embeddings server (hybrid search)',
              prompt: "Stored in the editor's secret storage. Leave empty to remove the key (local servers usually need none).",
              password: true,
              ignoreFocusOut: true,
            });
      if (value === undefined) return false;
      if (value.trim()) await context.secrets.store(EMBEDDINGS_KEY_SECRET, value.trim());
      else await context.secrets.delete(EMBEDDINGS_KEY_SECRET);
      if (typeof key !== 'string') void vscode.window.showInformationMessage(value.trim() ? 'Scroll: embeddings API key saved.' : 'Scroll: embeddings API key removed.');
      return true;
    }),
  );
}
