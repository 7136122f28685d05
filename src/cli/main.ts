/**
 * `scroll` — the event log from a terminal. Same core as the editor; `--json` for programs;
 * errors are one line on stderr with a non-zero exit code.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage, InvalidInputError } from '../core/errors';
import { UsageError, type CliIO, type Command, type OptionSpec } from './command';
import { nearestName } from './nearestName';

/* eslint-disable @typescript-eslint/no-require-imports */
/** One entry per file in ./commands. Loaded on use, so `scroll search` never loads what `chat` needs. */
const COMMANDS: Record<string, () => Command> = {
  ingest: () => require('./commands/ingest').command,
  search: () => require('./commands/search').command,
  show: () => require('./commands/show').command,
  stats: () => require('./commands/stats').command,
  export: () => require('./commands/export').command,
  reindex: () => require('./commands/reindex').command,
  embed: () => require('./commands/embed').command,
  compact: () => require('./commands/compact').command,
  check: () => require('./commands/check').command,
  purge: () => require('./commands/purge').command,
  gc: () => require('./commands/gc').command,
  chat: () => require('./commands/chat').command,
  import: () => require('./commands/import').command,
  mcp: () => require('./commands/mcp').command,
};
/* eslint-enable @typescript-eslint/no-require-imports */

const GLOBAL_OPTIONS: OptionSpec = {
  db: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

function overview(): string {
  const lines = ['usage: scroll <command> [options]   (scroll help <command> for details; scroll --version)', '', 'commands:'];
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

/** `unknown option --limit (did you mean --k?); scroll search takes --k, …` instead of parseArgs' advice on positionals. */
export function unknownOptionMessage(commandName: string, option: string, options: OptionSpec): string {
  const names = Object.keys(options);
  const bare = option.replace(/^-+/, '').split('=')[0];
  const closest = OPTION_SYNONYMS[bare]?.find((n) => names.includes(n)) ?? nearestName(bare, names);
  const listed = names.map((n) => `--${n}`).join(', ');
  return `unknown option ${option}${closest ? ` (did you mean --${closest}?)` : ''}; scroll ${commandName} takes ${listed} — see scroll help ${commandName}`;
}

/** Words people reach for from other tools, mapped to Scroll's option when the command has it. */
const OPTION_SYNONYMS: Record<string, string[]> = {
  limit: ['k'],
  top: ['k'],
  n: ['k'],
  count: ['k'],
  'max-results': ['k'],
  type: ['kind'],
  from: ['seq-from', 'ts-from'],
  to: ['seq-to', 'ts-to'],
  since: ['ts-from'],
  until: ['ts-to'],
  database: ['db'],
};

/** The package's version, from the package.json above this file (dist/cli.js and out/src/cli/main.js alike). */
export function version(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'scroll-memory' && pkg.version) return pkg.version;
    } catch {
      // no package.json here: look further up
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}

function usageOf(command: Command): string {
  return command.usage.endsWith('\n') ? command.usage : command.usage + '\n';
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === '--version' || name === '-V') {
      io.stdout(`scroll ${version()}\n`);
      return 0;
    }
    if (name === 'help' && rest.length > 0) {
      io.stdout(usageOf(commandNamed(rest[0])));
      return 0;
    }
    if (!name || name === '--help' || name === '-h' || name === 'help') {
      io.stdout(overview());
      return name ? 0 : 2;
    }
    const command = commandNamed(name);
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: { ...GLOBAL_OPTIONS, ...command.options }, allowPositionals: true, strict: true });
    } catch (e) {
      const unknown = (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && /'(-[^']*)'/.exec(errorMessage(e));
      if (unknown) throw new UsageError(unknownOptionMessage(name, unknown[1], { ...command.options, ...GLOBAL_OPTIONS }));
      throw new UsageError(`${errorMessage(e)} — see scroll help ${name}`);
    }
    if (parsed.values.help) {
      io.stdout(usageOf(command));
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

function commandNamed(name: string): Command {
  const load = COMMANDS[name];
  if (!load) {
    const nearest = nearestName(name, Object.keys(COMMANDS));
    throw new UsageError(`unknown command "${name}"${nearest ? ` (did you mean ${nearest}?)` : ''} (commands: ${Object.keys(COMMANDS).join(', ')})`);
  }
  return load();
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
