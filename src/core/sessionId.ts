/**
 * The one builder of session ids: `<prefix>-YYYYMMDD-HHMMSS-xxxx` (UTC to the second, then four
 * random hex digits, so two sessions started in the same second differ). Ids are opaque to every
 * reader (old logs hold other shapes); the prefix only says who started the session: `s` the event
 * log's default, `chat` an `@scroll` conversation or `scroll chat`, `tools` the editor's tools
 * called by other agents. MCP clients of `scroll mcp` get `mcp:<client name>:YYYYMMDD-HHMMSS-xxxx`
 * (`clientSessionId`), one per connection, so each client's cells are a session of their own.
 */
import { randomBytes } from 'node:crypto';

export type SessionPrefix = 's' | 'chat' | 'tools';

export function newSessionId(prefix: SessionPrefix, now: Date = new Date()): string {
  return `${prefix}-${stamp(now)}`;
}

/**
 * The session of one MCP client connection: `mcp:<name>:<stamp>`, the name as the client gave it in
 * `initialize` (`clientInfo.name`), cut to 40 characters of [A-Za-z0-9._-] (others become `-`).
 */
export function clientSessionId(clientName: string, now: Date = new Date()): string {
  const name = clientName.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 40) || 'client';
  return `mcp:${name}:${stamp(now)}`;
}

function stamp(now: Date): string {
  const t = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, '').replace('T', '-');
  return `${t}-${randomBytes(2).toString('hex')}`;
}
