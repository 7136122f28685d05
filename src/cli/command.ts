/** What every `scroll` sub-command provides; `main.ts` holds the table of them. */
import type { Readable } from 'node:stream';

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdin: Readable;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface CommandContext {
  io: CliIO;
  /** Options after parsing (own options plus the global ones: db, json, help). */
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
  /** The database path: `--db`, else `.scroll/scroll.db` under the current folder. */
  dbPath: string;
  json: boolean;
}

export interface Command {
  name: string;
  /** One line for `scroll --help`. */
  summary: string;
  /** Full usage text for `scroll <name> --help`. */
  usage: string;
  options: OptionSpec;
  run(ctx: CommandContext): Promise<number> | number;
}

/** A problem with how the command was called: printed as one line, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function writeJson(io: CliIO, value: unknown): void {
  io.stdout(JSON.stringify(value) + '\n');
}

export function intOption(values: CommandContext['values'], name: string): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^-?\d+$/.test(v.trim())) throw new UsageError(`--${name} expects an integer (got "${String(v)}")`);
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new UsageError(`--${name} is out of range (got "${v}")`);
  return n;
}

export function stringOption(values: CommandContext['values'], name: string): string | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new UsageError(`--${name} expects a value`);
  return v;
}
