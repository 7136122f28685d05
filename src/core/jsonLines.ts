/**
 * Reads a child process's stdout as JSON lines: one object per line, blank lines and lines that are
 * not JSON objects skipped (the helpers' protocols only ever write JSON lines; anything else is noise).
 */
import type { Readable } from 'node:stream';

export function onJsonLines(stream: Readable, onMessage: (msg: Record<string, unknown>) => void): void {
  let buffer = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!text.trim()) continue;
      let msg: unknown;
      try {
        msg = JSON.parse(text);
      } catch {
        continue;
      }
      if (msg && typeof msg === 'object' && !Array.isArray(msg)) onMessage(msg as Record<string, unknown>);
    }
  });
}
