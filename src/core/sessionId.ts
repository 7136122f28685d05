/**
 * The one builder of session ids: `<prefix>-YYYYMMDD-HHMMSS-xxxx` (UTC to the second, then four
 * random hex digits, so two sessions started in the same second differ). Ids are opaque to every
 * reader (old logs hold other shapes); the prefix only says who started the session: `s` the event
 * log's default, `chat` an `@scroll` conversation or `scroll chat`, `tools` the editor's tools
 * called by other agents.
 */
import { randomBytes } from 'node:crypto';

export type SessionPrefix = 's' | 'chat' | 'tools';

export function newSessionId(prefix: SessionPrefix, now: Date = new Date()): string {
  const t = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, '').replace('T', '-');
  return `${prefix}-${t}-${randomBytes(2).toString('hex')}`;
}
