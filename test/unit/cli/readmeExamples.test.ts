/**
 * Every `scroll …` example in README.md runs as written against the sample workspace and prints what the
 * README shows. The conventions (console blocks, `# exits N`, skip and setup comments) are described in
 * the README's own `readme-examples` comment.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeOpenAIServer, sse, delta } from '../agent/fakeOpenAIServer';
import { FakeEmbeddingServer } from '../search/fakeEmbeddingServer';

const REPO = join(__dirname, '..', '..', '..', '..');
const CLI = join(REPO, 'out', 'src', 'cli', 'main.js');
const SAMPLE = join(REPO, 'test', 'fixtures', 'sample-workspace');

export interface Example {
  /** 1-based line in README.md where the command starts. */
  line: number;
  command: string;
  /** Lines the output must contain in order (`…` = any text); empty when the README shows none. */
  output: string[];
  exitCode: number;
  /** Set when another program runs the command (`claude mcp add scroll -- scroll mcp …`): that program's part. */
  launchedBy?: string;
}

export interface Block {
  line: number;
  examples: Example[];
  setup: string[];
  skipped: Array<{ line: number; command: string; reason: string }>;
}

const DIRECTIVE = /^<!--\s*readme-examples:\s*(?:skip\s+"([^"]+)":\s*(.*?)|setup:\s*(.*?))\s*-->$/;

/** The `scroll …` examples of each sh/console code block, with the skip/setup comments just before it. */
export function readmeBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  let skips: Array<{ text: string; reason: string }> = [];
  let setup: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const directive = DIRECTIVE.exec(lines[i].trim());
    if (directive) {
      if (directive[1] !== undefined) skips.push({ text: directive[1], reason: directive[2] });
      else setup.push(directive[3]);
      continue;
    }
    const fence = /^```(\w*)\s*$/.exec(lines[i]);
    if (!fence) continue;
    const lang = fence[1];
    const start = i;
    const body: Array<{ text: string; line: number }> = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push({ text: lines[i], line: i + 1 });
    if (lang === 'sh' || lang === 'console') {
      const block: Block = { line: start + 1, examples: [], setup, skipped: [] };
      const commands = lang === 'console' ? consoleCommands(body) : shCommands(body);
      for (const c of commands) {
        const skip = skips.find((s) => c.command.includes(s.text));
        if (skip) block.skipped.push({ line: c.line, command: c.command, reason: skip.reason });
        else block.examples.push(c);
      }
      if (block.examples.length || block.skipped.length) blocks.push(block);
    }
    skips = [];
    setup = [];
  }
  return blocks;
}

const runsScroll = (command: string) => /^scroll\s/.test(command) || /\|\s*scroll\s/.test(command);
const exitCodeOf = (command: string) => Number(/#\s*exits (\d+)\s*$/.exec(command)?.[1] ?? 0);

/** Commands of an sh block (a trailing backslash continues a line); only those that run `scroll`. */
function shCommands(body: Array<{ text: string; line: number }>): Example[] {
  const out: Example[] = [];
  for (let j = 0; j < body.length; j++) {
    const line = body[j].line;
    let command = body[j].text;
    while (/\\\s*$/.test(command) && j + 1 < body.length) command = command.replace(/\\\s*$/, '') + ' ' + body[++j].text.trim();
    command = command.trim();
    const launched = /^(.*?\s)--\s+(scroll\s.*)$/.exec(command);
    if (runsScroll(command)) out.push({ line, command, output: [], exitCode: exitCodeOf(command) });
    else if (launched) out.push({ line, command: launched[2], output: [], exitCode: exitCodeOf(command), launchedBy: launched[1].trim() });
  }
  return out;
}

/** `$ scroll …` lines of a console block, each with the output lines shown under it. */
function consoleCommands(body: Array<{ text: string; line: number }>): Example[] {
  const out: Example[] = [];
  for (const { text, line } of body) {
    if (text.startsWith('$ ')) {
      const command = text.slice(2).trim();
      out.push({ line, command, output: [], exitCode: exitCodeOf(command) });
    } else if (out.length && text.trim() !== '') out[out.length - 1].output.push(text);
  }
  return out.filter((e) => runsScroll(e.command));
}

/** Each shown line must match a later line of `actual`; `…` matches any text (a line of only `…`, any line). */
export function missingOutput(expected: string[], actual: string): string | undefined {
  const lines = actual.split('\n');
  let at = 0;
  for (const want of expected) {
    if (want.trim() === '…') continue;
    const pattern = new RegExp('^' + want.split('…').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
    while (at < lines.length && !pattern.test(lines[at])) at++;
    if (at === lines.length) return want;
    at++;
  }
  return undefined;
}

const MCP_INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'readme-examples-test', version: '0' } } }) + '\n';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one line in sh, as a reader would paste it (async: the fake model server runs in this process). */
function sh(command: string, cwd: string, env: NodeJS.ProcessEnv, stdin?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (stdin !== undefined) child.stdin?.end(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr?.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('README examples (README.md, `scroll …` lines) against the sample workspace', () => {
  const blocks = readmeBlocks(readFileSync(join(REPO, 'README.md'), 'utf8'));
  const fake = new FakeOpenAIServer();
  const embeddings = new FakeEmbeddingServer();
  let modelUrl: string;
  let embeddingsUrl: string;
  let root: string;
  let template: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    modelUrl = await fake.listen();
    embeddingsUrl = await embeddings.listen();
    root = mkdtempSync(join(tmpdir(), 'scroll-readme-'));
    // A `scroll` on PATH that runs the compiled CLI under test.
    const bin = join(root, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'scroll'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`);
    chmodSync(join(bin, 'scroll'), 0o755);
    env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
    // The workspace `npm start` opens: the sample project with its history ingested (scripts/host/lib.mjs, prepareWorkspace).
    template = join(root, 'sample-workspace');
    cpSync(join(SAMPLE, 'project'), template, { recursive: true });
    for (const f of readdirSync(join(SAMPLE, 'history')).filter((n) => n.endsWith('.jsonl')).sort()) {
      const r = spawnSync(process.execPath, [CLI, 'ingest', join(SAMPLE, 'history', f)], { cwd: template, encoding: 'utf8' });
      assert.equal(r.status, 0, `seeding ${f}: ${r.stderr}`);
    }
  });
  after(async () => {
    await fake.close();
    await embeddings.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('the README has examples to run, the ones it shows output for among them', () => {
    const examples = blocks.flatMap((b) => b.examples);
    assert.ok(examples.length >= 10, `found ${examples.length} examples`);
    assert.ok(examples.some((e) => e.command.startsWith('scroll search') && e.output.length > 0), 'a search with its output');
    assert.ok(examples.some((e) => e.command.startsWith('scroll chat')), 'the chat example');
    for (const b of blocks) for (const s of b.skipped) assert.ok(s.reason.trim(), `line ${s.line}: a skip says why`);
  });

  test('the example parser: console output, exit codes, continuation lines, skip and setup comments', () => {
    const md = [
      '<!-- readme-examples: setup: mkdir -p ~/x -->',
      '<!-- readme-examples: skip "--watch": runs until Ctrl-C -->',
      '```sh',
      'scroll stats   # comment',
      'scroll chat --model m \\',
      '  --message "hi"',
      'npm test',
      'claude -p x | scroll import claude-code --path -',
      'scroll import --watch',
      'claude mcp add scroll -- scroll mcp --workspace "$PWD"     # Claude Code',
      '```',
      '```console',
      '$ scroll search x      # exits 2',
      'scroll search: unknown …',
      '```',
    ].join('\n');
    const [sh1, console1] = readmeBlocks(md);
    assert.deepEqual(sh1.setup, ['mkdir -p ~/x']);
    assert.deepEqual(sh1.examples.map((e) => e.command).slice(0, 3), ['scroll stats   # comment', 'scroll chat --model m  --message "hi"', 'claude -p x | scroll import claude-code --path -']);
    assert.deepEqual(sh1.skipped.map((s) => [s.line, s.reason]), [[9, 'runs until Ctrl-C']]);
    assert.deepEqual(sh1.examples[3], { line: 10, command: 'scroll mcp --workspace "$PWD"     # Claude Code', output: [], exitCode: 0, launchedBy: 'claude mcp add scroll' });
    assert.deepEqual(console1.setup, [], 'directives apply to the next block only');
    assert.deepEqual(console1.examples, [{ line: 13, command: 'scroll search x      # exits 2', output: ['scroll search: unknown …'], exitCode: 2 }]);
    assert.equal(missingOutput(['#24  …  user/x', '…', '#3  …'], 'head\n#24  1.0  user/x\n#2  a\n#3  b\n'), undefined);
    assert.equal(missingOutput(['#3  …', '#24  …'], '#24  a\n#3  b\n'), '#24  …', 'in order');
  });

  for (const block of blocks) {
    test(`README.md block at line ${block.line}: ${block.examples.map((e) => e.command.split(/\s+/).slice(0, 2).join(' ')).join(', ')}`, async (t) => {
      for (const s of block.skipped) t.diagnostic(`skipped line ${s.line} (${s.reason}): ${s.command}`);
      const dir = join(root, `block-${block.line}`);
      const home = join(root, `home-${block.line}`);
      cpSync(template, dir, { recursive: true });
      mkdirSync(home);
      const blockEnv = { ...env, HOME: home };
      for (const s of block.setup) {
        const r = await sh(s, dir, blockEnv);
        assert.equal(r.code, 0, `setup ${s}: ${r.stderr}`);
      }
      for (const example of block.examples) {
        let command = example.command;
        const chat = /^scroll chat\s/.test(command);
        if (chat) {
          // The example's local model server is this test's loopback fake.
          command = command.replace(/--model-url\s+\S+/, `--model-url ${modelUrl}`);
          fake.handlers = Array.from({ length: 10 }, () => (_req, _body, res) => sse(res, [delta({ content: 'In parse_rows, with .upper() (seq 19).' })]));
          fake.requests = [];
        }
        // The example's embeddings server (hybrid search) is this test's loopback fake.
        const embedding = /--embeddings-url\s/.test(command);
        if (embedding) command = command.replace(/--embeddings-url\s+\S+/, `--embeddings-url ${embeddingsUrl}`);
        const embeddingRequests = embeddings.requests.length;
        // A server another agent starts (`… -- scroll mcp …`) is started as that agent would: it must answer
        // MCP's initialize on stdin and exit when stdin closes.
        const mcp = example.launchedBy !== undefined && /^scroll mcp\s/.test(command);
        const r = await sh(command, dir, blockEnv, mcp ? MCP_INITIALIZE : undefined);
        const where = `README.md:${example.line}: ${example.command}`;
        assert.equal(r.code, example.exitCode, `${where}\nexit ${r.code}\nstdout: ${r.stdout.slice(0, 2000)}\nstderr: ${r.stderr.slice(0, 2000)}`);
        const missing = missingOutput(example.output, r.stdout + r.stderr);
        assert.equal(missing, undefined, `${where}\nthe README shows "${missing}", the command printed:\n${r.stdout}${r.stderr}`);
        if (mcp) assert.match(r.stdout, /"serverInfo":\{"name":"scroll-memory"/, `${where}: answers initialize`);
        if (embedding) assert.ok(embeddings.requests.length > embeddingRequests, `${where}: the embeddings server was asked`);
        if (chat) {
          assert.ok(fake.requests.length >= 1, `${where}: the model server was asked`);
          assert.match(r.stdout, /In parse_rows, with \.upper\(\) \(seq 19\)\./);
        }
      }
    });
  }
});
