// `scroll mcp`: a search_history round trip over MCP (the SDK's Client, stdio, the built CLI as a
// child process) against the same search in this process (EventLog.search), same log, same
// queries, measured alternately in one run. Target: p50 over MCP at most 5 ms above in process.
// Usage: node bench/mcp.bench.mjs [--tokens 1e6] [--queries 200]
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { HistoryGenerator } from './lib/synthetic.mjs';
import { SMOKE, check, option, pct, verdict } from './lib/measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const tokens = Number(option(args, '--tokens', SMOKE ? '5e4' : '1e6'));
const nQueries = Number(option(args, '--queries', SMOKE ? 10 : 200));
const K = 10;
const TARGET_MS = 5;

const cli = join(root, 'out', 'src', 'cli', 'main.js');
if (!existsSync(cli)) {
  console.error('mcp bench: run `npx tsc -p .` first (needs out/src/cli)');
  process.exit(2);
}
const { EventLog } = require(join(root, 'out', 'src', 'core', 'log', 'eventLog.js'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const dir = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'scroll-mcp-bench-'));
try {
  const gen = new HistoryGenerator(11);
  const events = [...gen.history(tokens)];
  const ws = join(dir, 'ws');
  const log = EventLog.open({ workspace: ws });
  for (let i = 0; i < events.length; i += 1000) log.appendMany(events.slice(i, i + 1000));
  const queries = gen.queries(events, nQueries).map((q) => q.query);
  console.log(`log: ${events.length} events, about ${tokens} tokens; ${queries.length} queries, k = ${K}`);

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', '--workspace', ws, '--read-only'],
    env: { ...process.env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'scroll-bench', version: '1' });
  await client.connect(transport);
  const overMcp = async (q) => {
    const r = await client.callTool({ name: 'search_history', arguments: { query: q, k: K } });
    if (r.isError) throw new Error(`search_history failed for ${JSON.stringify(q)}: ${r.content[0].text}`);
    return JSON.parse(r.content[0].text).hits.map((h) => h.seq);
  };
  const inProcess = (q) => log.search(q, { k: K }).hits.map((h) => h.seq);

  // Warm both sides (prepared statements, caches, the child's JIT), and check they agree.
  for (const q of queries.slice(0, Math.min(20, queries.length))) {
    const a = await overMcp(q);
    const b = inProcess(q);
    check(JSON.stringify(a) === JSON.stringify(b), `MCP and in-process hits differ for ${JSON.stringify(q)}: ${a} vs ${b}`);
  }
  const mcpMs = [];
  const localMs = [];
  for (const q of queries) {
    let t = performance.now();
    inProcess(q);
    localMs.push(performance.now() - t);
    t = performance.now();
    await overMcp(q);
    mcpMs.push(performance.now() - t);
  }
  await client.close();
  log.close();

  const p50Local = pct(localMs, 50);
  const p50Mcp = pct(mcpMs, 50);
  const fmt = (x) => x.toFixed(2);
  console.log(`search in process (EventLog.search)    p50 ${fmt(p50Local)} ms   p95 ${fmt(pct(localMs, 95))} ms`);
  console.log(`search_history over MCP (stdio, SDK)   p50 ${fmt(p50Mcp)} ms   p95 ${fmt(pct(mcpMs, 95))} ms`);
  console.log(`overhead of MCP at p50: +${fmt(p50Mcp - p50Local)} ms (target ≤ +${TARGET_MS} ms): ${verdict(p50Mcp - p50Local <= TARGET_MS)}`);
  console.log('(wall time: the child process runs the same search on its own connection, plus JSON-RPC over pipes)');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
