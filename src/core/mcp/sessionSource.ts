/**
 * Where a session's events came from, read off its id: a captured agent's transcripts are
 * `<source>:<id>` (src/core/capture/types.ts), a client of `scroll mcp` is `mcp:<client>:<stamp>`
 * (src/core/sessionId.ts), everything else Scroll wrote itself (`@scroll`, `scroll chat`, the
 * editor's tools).
 */
import { CAPTURE_SOURCES } from '../capture/types';

export const SESSION_SOURCES = ['scroll', 'mcp', ...CAPTURE_SOURCES] as const;
export type SessionSource = (typeof SESSION_SOURCES)[number];

const CAPTURED = new Set<string>(CAPTURE_SOURCES);

export function sessionSource(session: string): SessionSource {
  const colon = session.indexOf(':');
  if (colon > 0) {
    const prefix = session.slice(0, colon);
    if (prefix === 'mcp') return 'mcp';
    if (CAPTURED.has(prefix)) return prefix as SessionSource;
  }
  return 'scroll';
}
