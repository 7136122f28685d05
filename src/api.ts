/**
 * Scroll's public API: what `activate()` returns to other extensions (and to the in-host tests).
 * Small on purpose: search and read the workspace history, know the current session.
 */
import type { LogEvent, SearchOptions, SearchResult, SessionInfo } from './core/types';
import type { ScrollServices } from './vscode/services';
import type { McpLaunch } from './vscode/mcp/mcpServerProvider';

export interface ScrollApi {
  readonly version: 1;
  /** Absolute path of the workspace event log (it may not exist yet). */
  logPath(): string;
  /** Full-text search of the workspace history; empty when there is no history yet. */
  search(query: string, opts?: SearchOptions): SearchResult;
  /** One event, complete; undefined for an unknown seq. */
  get(seq: number): LogEvent | undefined;
  /** Events with from ≤ seq ≤ to. */
  range(from: number, to: number): LogEvent[];
  sessions(): SessionInfo[];
  /** The @scroll session used last in this window. */
  activeSession(): string | undefined;
  /** How the editor starts the "Scroll memory" MCP server for this workspace (its definition provider's answer). */
  mcpServer(): McpLaunch | undefined;
  /** The services object itself, for tests in the extension host. Not a stable interface. */
  readonly services: ScrollServices;
}

export function createApi(services: ScrollServices, mcpServer: () => McpLaunch | undefined = () => undefined): ScrollApi {
  const log = () => services.logs.existingLog();
  return {
    version: 1,
    logPath: () => services.settings.config.logPath,
    search: (query, opts) => log()?.search(query, opts) ?? { hits: [], broadened: false, terms: [], pruned: [], message: 'no history yet' },
    get: (seq) => log()?.get(seq),
    range: (from, to) => log()?.range(from, to) ?? [],
    sessions: () => log()?.sessions() ?? [],
    activeSession: () => services.sessions.active,
    mcpServer,
    services,
  };
}
