/**
 * Splits a byte stream into lines without holding more than one line (and one read chunk) at a time,
 * keeping each line's byte offsets: a capture cursor is the end of the last complete line read.
 */
import type { Readable } from 'node:stream';

export interface SourceLine {
  /** 1-based line number in the file. */
  line: number;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past the line's newline (or past its last byte when it has none). */
  end: number;
  /** The line's bytes, without the newline (and without a `\r` before it). */
  bytes: Buffer;
  /** False for the last piece of the input when no newline ends it: perhaps a line still being written. */
  complete: boolean;
}

/** A line longer than this is reported and skipped, never held whole (Node's strings end near 512 MiB). */
export const MAX_CAPTURE_LINE_BYTES = 256 * 1024 * 1024;

export async function* sourceLines(input: Readable, from: { offset: number; line: number }): AsyncGenerator<SourceLine | { line: number; start: number; end: number; tooLong: number }> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  let line = from.line + 1;
  let lineStart = from.offset;
  let chunkStart = from.offset;
  let skipping = false; // inside a line over the limit: its bytes are dropped until its newline
  for await (const raw of input as AsyncIterable<Buffer | string>) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
    let at = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, at);
      const stop = nl === -1 ? chunk.length : nl;
      if (!skipping) {
        partBytes += stop - at;
        if (partBytes > MAX_CAPTURE_LINE_BYTES) {
          skipping = true;
          parts = [];
        } else if (stop > at) parts.push(chunk.subarray(at, stop));
      } else partBytes += stop - at;
      if (nl === -1) break;
      const end = chunkStart + nl + 1;
      if (skipping) yield { line, start: lineStart, end, tooLong: partBytes };
      else {
        let bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts, partBytes);
        if (bytes.length && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
        yield { line, start: lineStart, end, bytes, complete: true };
      }
      parts = [];
      partBytes = 0;
      skipping = false;
      line++;
      lineStart = end;
      at = nl + 1;
    }
    chunkStart += chunk.length;
  }
  if (partBytes > 0) {
    if (skipping) yield { line, start: lineStart, end: chunkStart, tooLong: partBytes };
    else yield { line, start: lineStart, end: chunkStart, bytes: Buffer.concat(parts, partBytes), complete: false };
  }
}
