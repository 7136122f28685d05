// A kernel started on one log must not outlive it: when `scroll.log.path` changes, the log closes
// and every kernel is stopped, so the next cell's `ms` answers from the log the setting names now
// (and its sandbox hides that log's folder). Before, the running kernel kept answering from the
// closed log (`ms.search` failed with "The database connection is not open").
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ScrollApi } from '../../../src/api';
import { scrollApi, scrollChannelText, waitFor } from './helpers';

const config = () => vscode.workspace.getConfiguration('scroll');

describe('a log path change reaches the kernels', function () {
  this.timeout(120_000);
  const session = `log-path-change-${Date.now()}`;
  let api: ScrollApi;
  let dir: string;

  before(async () => {
    api = await scrollApi();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scroll-log-path-'));
  });

  after(async () => {
    await api.services.kernels.stop(session);
    await config().update('log.path', undefined, vscode.ConfigurationTarget.Global);
    await waitFor('log.path reset', () => config().inspect('log.path')?.globalValue === undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const search = async (word: string) => {
    const k = await api.services.kernels.get(session);
    const r = await k.execute(`hits = ms.search(${JSON.stringify(word)}, k=3)\nprint([e.content for e in ms.expand(hits)])`);
    return r.stdout + (r.error ? `${r.error.ename}: ${r.error.evalue}` : '');
  };

  it("the next cell's ms searches the new log; the old kernel was stopped", async () => {
    const first = api.services.logs.log();
    first.append({ kind: 'note', role: 'user', content: 'the first log says marigold', session });
    assert.match(await search('marigold'), /the first log says marigold/);
    const before = api.services.kernels.startedKernel(session);
    assert.ok(before, 'a kernel runs for the session');

    const next = path.join(dir, 'other.db');
    await config().update('log.path', next, vscode.ConfigurationTarget.Global);
    await waitFor('the new log path', () => api.services.config.logPath === next);
    const second = api.services.logs.log();
    assert.equal(second.path, next);
    second.append({ kind: 'note', role: 'user', content: 'the second log says heliotrope', session });
    assert.match(await search('heliotrope'), /the second log says heliotrope/);
    assert.doesNotMatch(await search('marigold'), /marigold/, 'the first log is not the one searched any more');
    assert.notEqual(api.services.kernels.startedKernel(session), before, 'a new kernel');
    const stopped = new RegExp(`kernel of session ${session} stopped: its log closed`);
    await waitFor('the stop in the output channel', () => stopped.test(scrollChannelText()));
  });
});
