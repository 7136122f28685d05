import { constants as bufferConstants, isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { BulkAppend } from '../../core/log/ingest/bulkAppend';
import { InvalidInputError, errorMessage } from '../../core/errors';
import type { NewEvent } from '../../core/types';
import { UsageError, stringOption, writeJson, type Command } from '../command';
import { jsonToNewEvent } from '../eventJson';
import { openForWriting } from '../openLog';

/** Events per batch: large enough to amortise per-batch cost, small enough to pipeline. */
const BATCH = 1000;
/** A batch is also sent once its lines add up to this many bytes, so a few huge lines do not pile up. */
const BATCH_BYTES = 32 * 1024 * 1024;
/** The longest line ingest accepts by default (--max-line-bytes). */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
/** No line can be longer than the longest string Node holds (about 512 MiB). */
const MAX_LINE_BYTES_CAP = bufferConstants.MAX_STRING_LENGTH;
/**
 * Batches submitted but not yet inserted, beyond the one inserting: two held by the worker, and
 * two more that this thread prepares itself when their turn comes before the worker reaches them.
 */
const IN_FLIGHT = 4;

export const command: Command = {
  name: 'ingest',
  summary: 'append events from a JSONL file (or - for stdin)',
  usage: `usage: scroll ingest FILE.jsonl|- [--db P] [--session S] [--no-redact] [--max-line-bytes N]

One event per line: {"kind", "role", "content"} required; "session", "name", "ts", "meta",
"headline", "step", "tool_call_id", "parent_seq" optional ("seq", "bytes", "tokens", "payload"
from an export are ignored: they are assigned anew). The whole input is one transaction: a bad
line aborts the ingest with an error naming it, and no event is appended (payload files the
aborted ingest wrote are left for \`scroll gc\`). Bad lines include one longer than
--max-line-bytes and invalid UTF-8 (named with its line and byte offset: text is kept exactly or
not at all, never with bytes replaced).
Prints {"appended", "first_seq", "last_seq"}.
  --session S          session for lines that do not name one (default: a new session id)
  --no-redact          store secrets as given (redaction is on by default)
  --max-line-bytes N   refuse a line longer than N bytes (default 64M; K, M, G suffixes; at most
                       536870888, the longest string Node can hold)`,
  options: {
    session: { type: 'string' },
    'no-redact': { type: 'boolean' },
    'max-line-bytes': { type: 'string' },
  },
  async run(ctx) {
    if (ctx.positionals.length !== 1) throw new UsageError('ingest expects one FILE.jsonl (or - for stdin)');
    const source = ctx.positionals[0];
    const label = source === '-' ? 'stdin' : source;
    const maxLineBytes = byteSizeOption(stringOption(ctx.values, 'max-line-bytes'));
    const lines = readJsonLines(source, ctx.io.stdin, label, maxLineBytes);
    // Read the first line before opening the log: a missing or unreadable file creates nothing.
    const firstLine = await lines.next();
    const log = openForWriting(ctx, {
      session: stringOption(ctx.values, 'session'),
      redact: ctx.values['no-redact'] !== true,
    });
    let bulk: BulkAppend | undefined;
    try {
      const unknown = new Set<string>();
      let batch: NewEvent[] = [];
      let batchLines: number[] = [];
      let batchBytes = 0;
      let appended = 0;
      let first: number | null = null;
      let last: number | null = null;
      // Batches are prepared on a worker thread while earlier ones are inserted; at most
      // IN_FLIGHT wait at once, so memory stays bounded however long the input.
      const inFlight: Promise<void>[] = [];
      const flush = () => {
        if (batch.length === 0) return;
        bulk ??= log.beginBulk();
        const lineOf = batchLines;
        const done = bulk.submit(batch).then(
          (seqs) => {
            first ??= seqs[0];
            last = seqs[seqs.length - 1];
            appended += seqs.length;
          },
          (e: unknown) => {
            // The preparer names "event N" of the batch; say which input line that was.
            const m = e instanceof InvalidInputError ? /^event(?: (\d+))?/.exec(e.message) : null;
            if (m) throw new InvalidInputError(`line ${lineOf[m[1] ? Number(m[1]) - 1 : 0]} of ${label}${e instanceof Error ? e.message.slice(m[0].length) : ''}`);
            throw e;
          },
        );
        done.catch(() => undefined); // awaited below, in order
        inFlight.push(done);
        batch = [];
        batchLines = [];
        batchBytes = 0;
      };
      // Lines stream in; each batch joins the one transaction.
      for (let next = firstLine; !next.done; next = await lines.next()) {
        const { line, value, bytes } = next.value;
        batch.push(jsonToNewEvent(value, `line ${line} of ${label}`, unknown));
        batchLines.push(line);
        batchBytes += bytes;
        if (batch.length >= BATCH || batchBytes >= BATCH_BYTES) {
          flush();
          if (inFlight.length > IN_FLIGHT) await inFlight.shift();
        }
      }
      flush();
      for (const done of inFlight) await done;
      await bulk?.commit();
      if (unknown.size) ctx.io.stderr(`scroll ingest: ignored unknown field(s): ${[...unknown].sort().join(', ')}\n`);
      writeJson(ctx.io, { appended, first_seq: first, last_seq: last });
      return 0;
    } catch (e) {
      bulk?.rollback();
      throw e;
    } finally {
      log.close();
      await lines.return(undefined); // closes the file when a line after the reader's failed
    }
  },
};

/** `--max-line-bytes`: bytes, with an optional K/M/G suffix (powers of 1024). */
function byteSizeOption(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MAX_LINE_BYTES;
  const m = /^\s*(\d+)\s*([kmg])?i?b?\s*$/i.exec(text);
  if (!m) throw new UsageError(`--max-line-bytes expects a number of bytes such as 1048576, 512K or 64M (got "${text}")`);
  const n = Number(m[1]) * 1024 ** ({ k: 1, m: 2, g: 3 }[(m[2] ?? '').toLowerCase() as 'k' | 'm' | 'g'] ?? 0);
  if (!(n >= 1 && n <= MAX_LINE_BYTES_CAP)) throw new UsageError(`--max-line-bytes must be between 1 and ${MAX_LINE_BYTES_CAP} (the longest string Node can hold; got "${text}")`);
  return n;
}

interface JsonLine {
  line: number;
  value: Record<string, unknown>;
  /** The line's length in bytes. */
  bytes: number;
}

/**
 * Yields each non-blank line parsed as a JSON object; throws naming the first bad line. The input
 * is read as bytes in chunks and split on "\n" (a "\r" before it is dropped): a line's length is
 * measured as it arrives, so a line longer than `maxLineBytes` is refused before it is ever held
 * whole (a 560 MB line would not fit in a string), and its bytes are checked to be UTF-8 before they
 * are decoded (decoding would silently turn invalid bytes into U+FFFD).
 */
async function* readJsonLines(source: string, stdin: Readable, label: string, maxLineBytes: number): AsyncGenerator<JsonLine> {
  let input: Readable;
  if (source === '-') input = stdin;
  else {
    input = createReadStream(source, { highWaterMark: 1 << 20 });
    // Surface "no such file" as a clear error instead of an unhandled stream error.
    await new Promise<void>((ok, fail) => {
      input.once('open', () => ok());
      input.once('error', (e) => fail(new InvalidInputError(`cannot read ${source}: ${errorMessage(e)}`)));
    });
  }
  try {
    for await (const raw of rawLines(input, maxLineBytes, label)) {
      const value = parseLine(raw, label);
      if (value) yield { line: raw.line, value, bytes: raw.bytes.length };
    }
  } finally {
    if (source !== '-') input.destroy();
  }
}

interface RawLine {
  line: number;
  /** Byte offset of the line's first byte in the input. */
  offset: number;
  bytes: Buffer;
}

async function* rawLines(input: AsyncIterable<Buffer | string>, maxLineBytes: number, label: string): AsyncGenerator<RawLine> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  let line = 1;
  let lineStart = 0;
  let chunkStart = 0;
  const tooLong = (length: number, complete: boolean) =>
    new InvalidInputError(
      `line ${line} of ${label} is ${complete ? '' : 'at least '}${length} bytes long, over the limit of ${maxLineBytes} bytes ` +
        '(--max-line-bytes); nothing was appended',
    );
  for await (const raw of input) {
    // stdin may have been given an encoding by someone: then its text is all there is.
    const chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      const length = partBytes + (end - start);
      if (length > maxLineBytes) throw tooLong(length, nl !== -1);
      if (nl === -1) {
        if (end > start) parts.push(chunk.subarray(start, end));
        partBytes = length;
        break;
      }
      const piece = chunk.subarray(start, nl);
      const bytes = parts.length ? Buffer.concat([...parts, piece], length) : piece;
      yield { line, offset: lineStart, bytes };
      parts = [];
      partBytes = 0;
      line++;
      lineStart = chunkStart + nl + 1;
      start = nl + 1;
    }
    chunkStart += chunk.length;
  }
  if (partBytes > 0) yield { line, offset: lineStart, bytes: Buffer.concat(parts, partBytes) };
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** A `\u` escape of a UTF-16 surrogate: only then can JSON.parse make a string UTF-8 cannot hold. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

function parseLine(raw: RawLine, label: string): Record<string, unknown> | undefined {
  let bytes = raw.bytes;
  let offset = raw.offset;
  if (bytes.length && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
  if (offset === 0 && bytes.subarray(0, 3).equals(BOM)) {
    bytes = bytes.subarray(3); // the encoding mark some editors write, not content
    offset = 3;
  }
  const where = `line ${raw.line} of ${label}`;
  if (!isUtf8(bytes)) {
    const at = firstInvalidUtf8(bytes);
    const sample = [...bytes.subarray(at, at + 4)].map((b) => `0x${b.toString(16).padStart(2, '0')}`).join(' ');
    throw new InvalidInputError(
      `${where}: invalid UTF-8 at byte ${at} of the line (byte ${offset + at} of the input: ${sample}); ` +
        'text is stored exactly or not at all, so nothing was appended (convert the file to UTF-8 first, e.g. with iconv)',
    );
  }
  const text = bytes.toString('utf8');
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new InvalidInputError(`${where}: not valid JSON (${errorMessage(e)})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new InvalidInputError(`${where}: expected a JSON object`);
  if (SURROGATE_ESCAPE.test(text)) {
    const field = loneSurrogateAt(value, '');
    if (field !== undefined) {
      throw new InvalidInputError(
        `${where}: ${field ? `"${field}"` : 'a key'} holds half of a UTF-16 surrogate pair (a lone \\uD800-\\uDFFF escape), ` +
          'which UTF-8 text cannot store exactly; nothing was appended',
      );
    }
  }
  return value as Record<string, unknown>;
}

/** The path of the first string (or key) with a lone surrogate, or undefined. */
function loneSurrogateAt(v: unknown, path: string): string | undefined {
  const wellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();
  if (typeof v === 'string') return wellFormed(v) ? undefined : path;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const found = loneSurrogateAt(v[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      const at = path ? `${path}.${k}` : k;
      if (!wellFormed(k)) return at;
      const found = loneSurrogateAt(x, at);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence (RFC 3629). */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0; // overlong
      if (c === 0xed) hi = 0x9f; // surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90; // overlong
      if (c === 0xf4) hi = 0x8f; // past U+10FFFF
    } else return i;
    if (i + need >= b.length) return i; // cut short
    if (b[i + 1] < lo || b[i + 1] > hi) return i;
    for (let k = 2; k <= need; k++) if (b[i + k] < 0x80 || b[i + k] > 0xbf) return i;
    i += need + 1;
  }
  return b.length;
}
