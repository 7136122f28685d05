/**
 * `scroll` — the event log from a terminal. Same core as the editor; `--json` for programs;
 * errors are one line on stderr with a non-zero exit code.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage, InvalidInputError } from '../core/errors';
import { UsageError, type CliIO, type Command, type OptionSpec } from './command';

/* eslint-disable @typescript-eslint/no-require-imports */
/** One entry per file in ./commands. Loaded on use, so `scroll search` never loads what `chat` needs. */
const COMMANDS: Record<string, () => Command> = {
  ingest: () => require('./commands/ingest').command,
  search: () => require('./commands/search').command,
  show: () => require('./commands/show').command,
  stats: () => require('./commands/stats').command,
  export: () => require('./commands/export').command,
  reindex: () => require('./commands/reindex').command,
  compact: () => require('./commands/compact').command,
  check: () => require('./commands/check').command,
  purge: () => require('./commands/purge').command,
  gc: () => require('./commands/gc').command,
  chat: () => require('./commands/chat').command,
  import: () => require('./commands/import').command,
};
/* eslint-enable @typescript-eslint/no-require-imports */

const GLOBAL_OPTIONS: OptionSpec = {
  db: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

function overview(): string {
  const lines = ['usage: scroll <command> [options]   (scroll <command> --help for details)', '', 'commands:'];
  for (const [name, load] of Object.entries(COMMANDS)) {
    let summary = '';
    try {
      summary = load().summary;
    } catch (e) {
      summary = `(unavailable: ${errorMessage(e)})`;
    }
    lines.push(`  ${name.padEnd(8)} ${summary}`);
  }
  lines.push('', 'global options:', '  --db PATH   event log (default .scroll/scroll.db under the current folder)', '  --json      machine-readable output');
  return lines.join('\n') + '\n';
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (!name || name === '--help' || name === '-h' || name === 'help') {
      io.stdout(overview());
      return name ? 0 : 2;
    }
    const load = COMMANDS[name];
    if (!load) throw new UsageError(`unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')})`);
    const command = load();
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: { ...GLOBAL_OPTIONS, ...command.options }, allowPositionals: true, strict: true });
    } catch (e) {
      throw new UsageError(`${errorMessage(e)} — see scroll ${name} --help`);
    }
    if (parsed.values.help) {
      io.stdout(command.usage.endsWith('\n') ? command.usage : command.usage + '\n');
      return 0;
    }
    const db = parsed.values.db;
    const dbPath = resolve(io.cwd, typeof db === 'string' ? db : '.scroll/scroll.db');
    return await command.run({ io, values: parsed.values, positionals: parsed.positionals, dbPath, json: parsed.values.json === true });
  } catch (e) {
    io.stderr(`scroll${name && COMMANDS[name] ? ` ${name}` : ''}: ${oneLine(errorMessage(e))}\n`);
    if (e instanceof UsageError) return 2;
    if (!(e instanceof Error) || (!('code' in e) && !(e instanceof InvalidInputError))) {
      // An unexpected failure: keep the stack for debugging when asked.
      if (io.env.SCROLL_DEBUG && e instanceof Error && e.stack) io.stderr(e.stack + '\n');
    }
    return 1;
  }
}

export function processIO(): CliIO {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    stdin: process.stdin,
    cwd: process.cwd(),
    env: process.env,
  };
}

/** Runs the CLI in this process with its real stdin/stdout and sets the exit code. */
export function runCli(argv: string[] = process.argv.slice(2)): Promise<void> {
  // EPIPE when piped into `head`: stop quietly, as other CLI tools do.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  return main(argv, processIO()).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`scroll: ${oneLine(errorMessage(e))}\n`);
      process.exitCode = 1;
    },
  );
}

if (require.main === module) void runCli();
