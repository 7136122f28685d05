// Issue 23 in the editor: (1) a log whose index an older tokenizer built opens at once and is
// rebuilt on the maintenance worker, searches meanwhile answering from the previous index; (2) opt-in
// hybrid search: with an embeddings endpoint set, the open log is embedded in the background and
// Search History's search fuses; with the endpoint down it is BM25's, said once in the channel.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ScrollApi } from '../../../src/api';
import { EventLog } from '../../../src/core/log/eventLog';
import { indexIsCurrent } from '../../../src/core/log/rebuildIndex';
import { vectorStats } from '../../../src/core/search/vectorStore';
import { FakeEmbeddingServer } from '../../unit/search/fakeEmbeddingServer';
import { scrollApi, scrollChannelText, waitFor } from './helpers';

const EVENTS = 5_000;

/** A log as an older Scroll left it: index rows without CJK bigrams and no index_version. */
function staleLog(file: string): void {
  const log = EventLog.open({ path: file, onWarning: () => undefined });
  log.appendMany(Array.from({ length: EVENTS }, (_, i) => ({ kind: 'note', role: 'user', session: 'old', content: i === 9 ? '재시도 retry cap of the old log' : `filler ${i} about the build and its runner` })));
  const db = log.database;
  db.exec("INSERT INTO events_fts(events_fts) VALUES('delete-all')");
  const insert = db.prepare("INSERT INTO events_fts(rowid, body, code, parts, headline) VALUES (?, ?, '', '', '')");
  db.transaction(() => {
    for (const r of db.prepare('SELECT seq, content FROM events').all() as { seq: number; content: string }[]) insert.run(r.seq, r.content);
  });
  db.prepare("DELETE FROM scroll_meta WHERE key = 'index_version'").run();
  log.close();
}

describe('search indexing in the editor (issue 23)', function () {
  this.timeout(180_000);
  let api: ScrollApi;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scroll-host-index-'));
  const config = () => vscode.workspace.getConfiguration('scroll');

  before(async () => {
    api = await scrollApi();
  });
  after(async () => {
    await config().update('search.embeddings.endpoint', undefined, vscode.ConfigurationTarget.Global);
    await config().update('search.embeddings.model', undefined, vscode.ConfigurationTarget.Global);
    await config().update('log.path', undefined, vscode.ConfigurationTarget.Workspace);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a log with an index of an older tokenizer opens at once; the rebuild runs in the background and searches meanwhile use the previous index', async () => {
    const file = path.join(dir, 'stale', 'scroll.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    staleLog(file);
    await config().update('log.path', file, vscode.ConfigurationTarget.Workspace);
    await waitFor('the setting to apply', () => api.services.config.logPath === file);
    const log = api.services.log();
    // The open returned before the rebuild did anything: the index is still the old one.
    assert.equal(log.path, file);
    assert.equal(api.services.logs.indexRebuilding, true);
    assert.equal(indexIsCurrent(log.database), false);
    assert.deepEqual(log.search('retry cap').hits.map((h) => h.seq).slice(0, 1), [10], 'searches answer from the previous index');
    await api.services.logs.indexRebuilt();
    assert.equal(api.services.logs.indexRebuilding, false);
    assert.equal(indexIsCurrent(log.database), true);
    assert.equal(log.search('시도').hits[0]?.seq, 10, 'the rebuilt index finds a Korean substring');
    await waitFor('the rebuild in the channel', () => new RegExp(`search index rebuilt: ${EVENTS} events`).test(scrollChannelText()), 10_000, 200);
    assert.match(scrollChannelText(), /rebuilding it from the log on a worker thread/);
    await config().update('log.path', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('hybrid search (opt-in): the open log is embedded in the background, search fuses; endpoint down: BM25, said once', async () => {
    const server = new FakeEmbeddingServer();
    server.concepts = { car: 'vehicle', automobile: 'vehicle' };
    const url = await server.listen();
    try {
      const file = path.join(dir, 'hybrid', 'scroll.db');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const seed = EventLog.open({ path: file, onWarning: () => undefined });
      seed.appendMany(['the car park ticket printer jammed', 'we moved the build to the new runner', 'the automobile would not start', 'left the car keys at home'].map((content, i) => ({ kind: 'user_message', role: 'user', content, session: `h${i}` })));
      seed.close();
      await config().update('log.path', file, vscode.ConfigurationTarget.Workspace);
      await waitFor('the setting to apply', () => api.services.config.logPath === file);
      const log = api.services.log();
      assert.deepEqual((await api.services.search.search(log, 'car', { k: 3 })).hybrid, undefined, 'off by default');
      await config().update('search.embeddings.endpoint', url, vscode.ConfigurationTarget.Global);
      await config().update('search.embeddings.model', 'fake-a', vscode.ConfigurationTarget.Global);
      api.services.logs.notifyChanged();
      await waitFor('every event embedded', () => vectorStats(log.database, 'fake-a').vectors === 4, 20_000, 100);
      const fused = await api.services.search.search(log, 'car', { k: 3 });
      assert.equal(fused.hybrid?.model, 'fake-a');
      assert.ok(fused.hits.some((h) => h.seq === 3 && h.match === 'similar'), JSON.stringify(fused.hits));
      await server.close();
      const plain = log.search('keys', { k: 3 });
      assert.deepEqual(await api.services.search.search(log, 'keys', { k: 3 }), plain);
      assert.deepEqual(await api.services.search.search(log, 'runner', { k: 3 }), log.search('runner', { k: 3 }));
      await waitFor('the fallback in the channel', () => /hybrid search: .*searching with BM25 only/.test(scrollChannelText()), 10_000, 200);
      assert.equal(scrollChannelText().match(/searching with BM25 only/g)?.length, 1, 'said once, not per query');
    } finally {
      await server.close().catch(() => undefined);
    }
  });
});
