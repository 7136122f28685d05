// The attacks of the sandboxed-kernel issue on the editor's path: each cell goes through the
// `scroll_exec` tool (vscode.lm.invokeTool, as Copilot's agent or @scroll would call it) into the
// session kernel the extension builds (default settings: sandboxed), against the workspace's real
// log. Afterwards: every row up to the pre-attack maximum seq identical in every column,
// sqlite_master identical, the payload folder identical apart from handles Scroll itself wrote for
// the new events, the triggers present, no process left once the kernel is gone.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ScrollApi } from '../../../src/api';
import { attacks, processesMatching, snapshot, type Snapshot } from '../../unit/kernel/attackCells';
import { scrollApi, sleep, workspaceRoot } from './helpers';

function toolText(r: vscode.LanguageModelToolResult): string {
  return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

describe('kernel attacks through scroll_exec in the editor', function () {
  this.timeout(180_000);
  let api: ScrollApi;
  let dbPath: string;
  let payloadDir: string;
  let maxSeq: number;
  let before0: Snapshot;
  let server: net.Server;
  let port: number;
  let home: string;
  let handle: string;

  before(async () => {
    api = await scrollApi();
    const log = api.services.log();
    dbPath = log.path;
    payloadDir = log.payloads.dir;
    const big = log.append({ kind: 'tool_result', role: 'tool', session: 'attack-setup', content: 'a long build log line\n'.repeat(4000) });
    assert.ok(big.payload, 'a payload to aim at');
    handle = big.payload as string;
    maxSeq = log.maxSeq();
    before0 = snapshot(dbPath, payloadDir, maxSeq);
    server = net.createServer((c) => {
      c.on('error', () => undefined);
      c.end('hello');
    }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    port = (server.address() as net.AddressInfo).port;
    home = os.homedir();
    // The session's kernel is (re)built with the default settings: sandboxed.
    await api.services.kernels.stop(api.services.sessions.execSession());
    assert.equal(api.services.kernels.cellConfinement(api.services.sessions.execSession()).kind, 'sandboxed');
  });

  after(async () => {
    server?.close();
    await api?.services.kernels.stop(api.services.sessions.execSession());
  });

  it('every attack fails; honest memory work still works', async () => {
    const run = async (code: string) => toolText(await vscode.lm.invokeTool('scroll_exec', { input: { code }, toolInvocationToken: undefined }));
    const honest = await run(`h = ms.search('retry cap', k=3)\nprint(len(h) >= 0, len(ms.expand(${maxSeq})[0].content))`);
    assert.match(honest, new RegExp(`True ${'a long build log line\n'.length * 4000}`), honest);
    const failures: string[] = [];
    for (const [name, code] of attacks(workspaceRoot(), home, dbPath, payloadDir, handle, process.pid, port)) {
      const out = await run(code);
      if (/(^|\n)OK\b/.test(out)) failures.push(`${name}: ${out.slice(0, 200)}`);
    }
    assert.deepEqual(failures, []);
  });

  it('processes started by a cell die with the kernel', async () => {
    const marker = `31${process.pid % 1000}7`;
    await vscode.lm.invokeTool('scroll_exec', {
      input: { code: `import subprocess\nsubprocess.Popen(['setsid', 'sleep', '${marker}'])\nprint('started')` },
      toolInvocationToken: undefined,
    });
    await sleep(300);
    assert.ok(processesMatching(`sleep ${marker}`).length >= 1, 'the child runs while the kernel does');
    await api.services.kernels.stop(api.services.sessions.execSession());
    await sleep(500);
    assert.deepEqual(processesMatching(`sleep ${marker}`), []);
  });

  it('the log and payloads up to the pre-attack seq are what they were; the triggers are there', () => {
    const after0 = snapshot(dbPath, payloadDir, maxSeq);
    assert.equal(after0.rows, before0.rows);
    assert.equal(after0.master, before0.master);
    assert.deepEqual(after0.triggers, before0.triggers);
    assert.ok(after0.triggers.includes('events_no_update') && after0.triggers.includes('events_no_delete'));
    // New files only: the payloads of the cells' own kernel_exec/kernel_output events, none changed or gone.
    const kept = new Set(after0.payloads);
    for (const p of before0.payloads) assert.ok(kept.has(p), `payload changed or gone: ${p}`);
    for (const f of ['pwned.txt', 'pwned2.txt']) assert.ok(!fs.existsSync(path.join(workspaceRoot(), f)), f);
    for (const f of ['pwned.txt', 'pwned3.txt']) assert.ok(!fs.existsSync(path.join(home, f)), f);
  });
});
