import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { main } from '../../../src/cli/main';
import type { CliIO } from '../../../src/cli/command';
import { EventLog } from '../../../src/core/log/eventLog';

function memoryIO(cwd: string): CliIO & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    stdin: Readable.from(['']),
    cwd,
    env: {},
  };
  return io;
}

async function scroll(cwd: string, ...args: string[]) {
  const io = memoryIO(cwd);
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

describe('CLI usage errors, --version and help <command>', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'scroll-cli-usage-'));
    mkdirSync(join(dir, '.scroll'));
    const log = EventLog.open({ path: join(dir, '.scroll', 'scroll.db') });
    log.appendMany([
      { kind: 'user_message', role: 'user', content: 'why does the retry cap stop at 8 s', session: 's1' },
      { kind: 'tool_result', role: 'tool', content: 'BACKOFF_CAP_S = 8.0 retry', session: 's1', name: 'search_text' },
      { kind: 'capture_note', role: 'importer', content: 'a retry note an importer wrote', session: 's1' },
    ]);
    log.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('an unknown option names the valid ones and the closest, not parseArgs advice on positionals', async () => {
    const r = await scroll(dir, 'search', 'retry', '--limit', '3');
    assert.equal(r.code, 2);
    assert.equal(r.out, '');
    assert.match(r.err, /^scroll search: unknown option --limit \(did you mean --k\?\); scroll search takes --k, --kind, --role, /);
    assert.match(r.err, /--session/);
    assert.match(r.err, /--json/);
    assert.doesNotMatch(r.err, /positional/);
    assert.equal(r.err.trim().split('\n').length, 1, 'one line');

    const typo = await scroll(dir, 'search', 'retry', '--knd', 'tool_result');
    assert.equal(typo.code, 2);
    assert.match(typo.err, /unknown option --knd \(did you mean --kind\?\)/);
    const eq = await scroll(dir, 'search', 'retry', '--limit=3');
    assert.match(eq.err, /unknown option --limit \(did you mean --k\?\)/);
    const short = await scroll(dir, 'stats', '-x');
    assert.equal(short.code, 2);
    assert.match(short.err, /^scroll stats: unknown option -x; scroll stats takes --db, --json, --help/);
    assert.doesNotMatch(short.err, /did you mean/, 'nothing near enough: no suggestion');
  });

  test('a kind that is neither a core kind nor in the log is an error listing the valid ones', async () => {
    const r = await scroll(dir, 'search', 'retry', '--kind', 'tool_reslt');
    assert.equal(r.code, 2, r.err);
    assert.equal(r.out, '', 'no "no hits"');
    assert.match(r.err, /unknown --kind tool_reslt \(did you mean tool_result\?\): kinds are user_message, model_turn, tool_call, tool_result/);
    assert.match(r.err, /also in this log: capture_note/);

    const second = await scroll(dir, 'search', 'retry', '--kind', 'tool_result,modle_turn');
    assert.equal(second.code, 2);
    assert.match(second.err, /unknown --kind modle_turn \(did you mean model_turn\?\)/);

    // A core kind with no events is a valid filter with no hits; a kind only this log has is valid too.
    const core = await scroll(dir, 'search', 'retry', '--kind', 'eviction');
    assert.equal(core.code, 0, core.err);
    assert.match(core.out, /no hits/);
    const logged = await scroll(dir, 'search', 'retry', '--kind', 'capture_note', '--json');
    assert.equal(logged.code, 0, logged.err);
    assert.deepEqual(JSON.parse(logged.out).hits.map((h: { seq: number }) => h.seq), [3]);
  });

  test('a role that is neither a core role nor in the log is an error listing the valid ones', async () => {
    const r = await scroll(dir, 'search', 'retry', '--role', 'assistnt');
    assert.equal(r.code, 2);
    assert.match(r.err, /unknown --role assistnt \(did you mean assistant\?\): roles are user, assistant, tool, system, kernel; also in this log: importer/);
    const logged = await scroll(dir, 'search', 'retry', '--role', 'importer', '--json');
    assert.equal(logged.code, 0, logged.err);
    assert.deepEqual(JSON.parse(logged.out).hits.map((h: { seq: number }) => h.seq), [3]);
    const batch = await scroll(dir, 'search', '--batch', '-', '--role', 'bot');
    assert.equal(batch.code, 2, 'the --batch filters are checked too');
  });

  test('scroll --version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8'));
    const r = await scroll(dir, '--version');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, `scroll ${pkg.version}\n`);
  });

  test('scroll help <command> prints that command\'s usage; an unknown one is an error', async () => {
    const help = await scroll(dir, 'help', 'search');
    assert.equal(help.code, 0, help.err);
    const flag = await scroll(dir, 'search', '--help');
    assert.equal(help.out, flag.out);
    assert.match(help.out, /^usage: scroll search QUERY/);
    const overview = await scroll(dir, 'help');
    assert.equal(overview.code, 0);
    assert.match(overview.out, /^usage: scroll <command>/);
    assert.match(overview.out, /--version/);
    const unknown = await scroll(dir, 'help', 'serch');
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /unknown command "serch" \(did you mean search\?\)/);
    assert.equal(unknown.out, '');
  });
});
