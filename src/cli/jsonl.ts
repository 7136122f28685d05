/** Reading JSONL input line by line (file or stdin), with errors that name the line. */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { InvalidInputError, errorMessage } from '../core/errors';

export interface JsonLine {
  line: number;
  value: Record<string, unknown>;
}

/** Yields each non-blank line parsed as a JSON object; throws naming the first bad line. */
export async function* readJsonLines(source: string, stdin: Readable, label = source === '-' ? 'stdin' : source): AsyncGenerator<JsonLine> {
  let input: Readable;
  if (source === '-') input = stdin;
  else {
    input = createReadStream(source, { encoding: 'utf8', highWaterMark: 1 << 20 });
    // Surface "no such file" as a clear error instead of an unhandled stream error.
    await new Promise<void>((ok, fail) => {
      input.once('open', () => ok());
      input.once('error', (e) => fail(new InvalidInputError(`cannot read ${source}: ${errorMessage(e)}`)));
    });
  }
  const rl = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const text of rl) {
      n++;
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        throw new InvalidInputError(`line ${n} of ${label}: not valid JSON (${errorMessage(e)})`);
      }
      if (!value || typeof value !== 'object' || Array.isArray(value)) {
        throw new InvalidInputError(`line ${n} of ${label}: expected a JSON object`);
      }
      yield { line: n, value: value as Record<string, unknown> };
    }
  } finally {
    rl.close();
    if (source !== '-') input.destroy();
  }
}
