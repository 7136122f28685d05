// The "Scroll memory" MCP server definition in an UNTRUSTED workspace: started read-only (the server
// writes nothing and offers no run_python), it still answers from the log.
import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { scrollApi } from '../suite/helpers';

describe('the MCP server definition in an untrusted workspace', function () {
  this.timeout(120_000);

  it('passes --read-only; the server answers tools/list and reads, and the log is unchanged', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const api = await scrollApi();
    const launch = api.mcpServer();
    assert.ok(launch);
    assert.ok(launch.args.includes('--read-only'), launch.args.join(' '));
    const dbPath = api.logPath();
    const hash = () => (fs.existsSync(dbPath) ? crypto.createHash('sha256').update(fs.readFileSync(dbPath)).digest('hex') : 'none');
    const before = hash();
    const client = new Client({ name: 'host-test-untrusted', version: '1' });
    await client.connect(new StdioClientTransport({ command: launch.command, args: launch.args, env: { ...(process.env as Record<string, string>), ...launch.env }, cwd: launch.cwd, stderr: 'pipe' }));
    try {
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['history_index']);
      const r = (await client.callTool({ name: 'history_index', arguments: {} })) as { content: { text: string }[]; isError?: boolean };
      assert.ok(!r.isError, r.content[0].text);
      assert.ok(JSON.parse(r.content[0].text).sessions.length > 0, 'the seeded history is there');
    } finally {
      await client.close();
    }
    assert.equal(hash(), before, 'nothing written');
  });
});
