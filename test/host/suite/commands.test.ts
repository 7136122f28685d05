// Commands, scroll: editor tabs, export and the history LM tools, against the seeded sample history.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ScrollApi } from '../../../src/api';
import { closeAllEditors, scrollApi, toolText, waitFor } from './helpers';

describe('Scroll commands and tabs', () => {
  let api: ScrollApi;
  before(async () => {
    api = await scrollApi();
  });
  afterEach(closeAllEditors);

  it('the seeded history is there', () => {
    assert.ok(api.sessions().length > 0, 'sessions in the seeded log');
    assert.ok(api.services.existingLog()!.maxSeq() > 5);
  });

  it('openEvent opens an event tab with header and exact content', async () => {
    const e = api.get(3)!;
    const uri = await vscode.commands.executeCommand<string>('scroll.openEvent', 3);
    // The tab is titled by what it shows (issue 20): "seq 3 · <kind>".
    const titled = vscode.Uri.from({ scheme: 'scroll', path: `/event/3/seq 3 · ${e.kind.replace(/_/g, ' ')}.md` }).toString();
    assert.equal(uri, titled);
    const editor = vscode.window.activeTextEditor!;
    assert.equal(editor.document.uri.toString(), titled);
    assert.equal(editor.document.languageId, 'markdown');
    const text = editor.document.getText();
    assert.match(text, /^# Event 3 · /);
    assert.ok(text.includes(`**session:** ${e.session.replace(/_/g, '\\_')}`) || text.includes(e.session), 'header names the session');
    assert.ok(text.includes(e.content), 'content complete');
  });

  it('openEvent takes a range a..b; an unknown seq shows a document saying so', async () => {
    await vscode.commands.executeCommand('scroll.openEvent', '2..4');
    const text = vscode.window.activeTextEditor!.document.getText();
    assert.match(text, /^# Events 2\.\.4/);
    for (const s of [2, 3, 4]) assert.ok(text.includes(`## seq ${s} · `), `seq ${s}`);
    await vscode.commands.executeCommand('scroll.openEvent', 999999);
    assert.match(vscode.window.activeTextEditor!.document.getText(), /# Event 999999 not found/);
  });

  it('searchHistory is a QuickPick searching as you type; Enter opens the hit', async () => {
    const hits = api.search('ledger report', { k: 1 });
    assert.ok(hits.hits.length, 'the seeded log has a hit for "ledger report"');
    // The chat view (earlier tests) may take focus back and close a QuickPick: put it away first.
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar').then(undefined, () => undefined);
    await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
    let running: Thenable<unknown> | undefined;
    let finished = true;
    await waitFor('the hit to open from the QuickPick', async () => {
      if (finished) {
        finished = false;
        running = vscode.commands.executeCommand('scroll.searchHistory', 'ledger report');
        running.then(() => (finished = true), () => (finished = true));
        await new Promise((r) => setTimeout(r, 300));
      }
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      return vscode.window.activeTextEditor?.document.uri.scheme === 'scroll' || undefined;
    }, 30_000, 250);
    await running;
    assert.match(vscode.window.activeTextEditor!.document.uri.path, new RegExp(`^/event/${hits.hits[0].seq}/seq ${hits.hits[0].seq} · `));
  });

  it('payload documents show the full externalised content with a language from the content', async () => {
    const log = api.services.log();
    const json = JSON.stringify({ rows: Array.from({ length: 600 }, (_, i) => ({ i, note: `row ${i}` })) });
    const ev = log.append({ kind: 'tool_result', role: 'tool', name: 'probe', content: json, session: 'payload-test' });
    assert.ok(ev.payload, 'large content went to the payload store');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(`scroll:/payload/${ev.payload}.json`));
    assert.equal(doc.getText(), json);
    assert.equal(doc.languageId, 'json');
    const evDoc = await vscode.workspace.openTextDocument(vscode.Uri.parse(`scroll:/event/${ev.seq}.md`));
    assert.ok(evDoc.getText().includes(json), 'the event tab resolves the payload');
  });

  it('exportSession writes Markdown to an untitled editor or a file', async () => {
    const session = api.sessions()[0].session;
    const events = api.services.existingLog()!.sessions().find((s) => s.session === session)!.events;
    const uri = await vscode.commands.executeCommand<string>('scroll.exportSession', session, 'untitled');
    assert.match(uri!, /^untitled:/);
    const text = vscode.window.activeTextEditor!.document.getText();
    assert.match(text, new RegExp(`^# Scroll session ${session.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.equal((text.match(/^### .* — seq \d+$/gm) ?? []).length, events);
    const file = vscode.Uri.file(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'scroll-export-')), 'out.md'));
    await vscode.commands.executeCommand('scroll.exportSession', session, file);
    const stamp = (s: string) => s.replace(/Exported \S+\./, 'Exported <time>.');
    assert.equal(stamp(fs.readFileSync(file.fsPath, 'utf8')), stamp(text));
  });

  it('history LM tools search and expand for any agent', async () => {
    const found = toolText(await vscode.lm.invokeTool('scroll_searchHistory', { input: { query: 'ledger report', k: 3 }, toolInvocationToken: undefined }));
    assert.match(found, /hit\(s\) for "ledger report"/);
    const seq = Number(/seq (\d+)/.exec(found)![1]);
    const expanded = toolText(await vscode.lm.invokeTool('scroll_expandEvent', { input: { seq: String(seq) }, toolInvocationToken: undefined }));
    assert.ok(expanded.includes(api.get(seq)!.content));
    await assert.rejects(Promise.resolve(vscode.lm.invokeTool('scroll_expandEvent', { input: { seq: 'abc' }, toolInvocationToken: undefined })), /not a seq/);
  });

  it('workspace tools read, list and search files', async () => {
    const read = toolText(await vscode.lm.invokeTool('scroll_readFile', { input: { path: 'ledger_sync/report.py', startLine: 1, endLine: 2 }, toolInvocationToken: undefined }));
    assert.match(read, /^ledger_sync\/report\.py lines 1-2 of \d+\n"""Monthly ledger report/);
    const list = toolText(await vscode.lm.invokeTool('scroll_listFiles', { input: { pattern: '**/*.py' }, toolInvocationToken: undefined }));
    assert.ok(list.includes('ledger_sync/report.py') && !list.includes('.scroll/'));
    const grep = toolText(await vscode.lm.invokeTool('scroll_searchText', { input: { query: 'def monthly_totals' }, toolInvocationToken: undefined }));
    assert.match(grep, /ledger_sync\/report\.py:\d+: def monthly_totals/);
    await assert.rejects(Promise.resolve(vscode.lm.invokeTool('scroll_readFile', { input: { path: '../../etc/passwd' }, toolInvocationToken: undefined })), /outside the workspace/);
  });

  it('scroll_exec run by another agent runs Python in a kernel and logs the cell', async () => {
    const before = api.services.existingLog()!.maxSeq();
    const out = toolText(await vscode.lm.invokeTool('scroll_exec', { input: { code: 'x = 6 * 7\nprint(x, ms is not None)' }, toolInvocationToken: undefined }));
    assert.equal(out.trim(), '42 True');
    const again = toolText(await vscode.lm.invokeTool('scroll_exec', { input: { code: 'print(x + 1)' }, toolInvocationToken: undefined }));
    assert.equal(again.trim(), '43', 'variables persist between calls');
    const logged = api.range(before + 1, before + 10).map((e) => e.kind);
    assert.deepEqual(logged.slice(0, 4), ['kernel_exec', 'kernel_output', 'kernel_exec', 'kernel_output']);
  });

  it('restartKernel clears the kernel variables', async () => {
    await vscode.lm.invokeTool('scroll_exec', { input: { code: 'kept = 1' }, toolInvocationToken: undefined });
    assert.equal(await vscode.commands.executeCommand('scroll.restartKernel'), true);
    const out = toolText(await vscode.lm.invokeTool('scroll_exec', { input: { code: "print('kept' in globals())" }, toolInvocationToken: undefined }));
    assert.equal(out.trim(), 'False');
  });

  it('openHistoryPanel opens the panel', async () => {
    assert.equal(await vscode.commands.executeCommand('scroll.openHistoryPanel'), true);
  });

  it('checkHistory finds a damaged search index; rebuildSearchIndex repairs it from the events', async () => {
    type Report = { ok: boolean; database: string[]; index: string[]; payloads: { checked: number }; ranOn?: string };
    const log = api.services.existingLog()!;
    const intact = await vscode.commands.executeCommand<Report>('scroll.checkHistory', { quiet: true });
    assert.equal(intact?.ok, true, JSON.stringify(intact));
    // The bundled maintenance worker loads here (its own connection, this host's driver): the check
    // and the rebuild do not hold the extension host's thread.
    assert.equal(intact?.ranOn, 'worker');
    assert.ok(intact!.payloads.checked > 0, 'the seeded history has payload files, all verified');
    const query = 'ledger report';
    const hits = log.search(query).hits.map((h) => h.seq);
    assert.ok(hits.length > 0);
    // Damage only the derived index, through a connection of our own (the events stay intact).
    const scramble = spawnSync('python3', ['-c', 'import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.execute("UPDATE events_fts_data SET block = X\'00\' WHERE id > 10")\nc.commit()', api.logPath()], { encoding: 'utf8' });
    assert.equal(scramble.status, 0, scramble.stderr);
    const damaged = log.search(query);
    assert.deepEqual(damaged.hits, []);
    assert.match(damaged.message ?? '', /search index may be damaged/);
    const found = await vscode.commands.executeCommand<Report>('scroll.checkHistory', { quiet: true });
    assert.equal(found?.ok, false);
    assert.deepEqual(found!.database, [], 'the log itself is intact');
    assert.ok(found!.index.length > 0, JSON.stringify(found));
    assert.equal(await vscode.commands.executeCommand('scroll.rebuildSearchIndex'), log.stats().events);
    assert.deepEqual(log.search(query).hits.map((h) => h.seq), hits, 'the same hits as before the damage');
    assert.equal((await vscode.commands.executeCommand<Report>('scroll.checkHistory', { quiet: true }))?.ok, true);
  });

  it('compactSearchIndex merges a fragmented index on the worker; search answers the same', async () => {
    const log = api.services.existingLog()!;
    // One small transaction per event, as the participant writes: each leaves an index segment.
    for (let i = 0; i < 80; i++) log.append({ kind: 'note', role: 'user', content: `compaction probe ${i}: ledger report quokka_${i % 7}` });
    const segments = log.indexSegments();
    assert.ok(segments > 4, `a fragmented index (${segments} segments)`);
    const before = log.search('ledger report', { k: 50 }).hits.map((h) => `${h.seq}:${h.score}`);
    const result = await vscode.commands.executeCommand<{ segmentsBefore: number; segmentsAfter: number; stopped: boolean }>('scroll.compactSearchIndex');
    assert.ok(result, 'it ran (on the maintenance worker: workerOnly)');
    assert.equal(result.segmentsBefore, segments);
    assert.equal(result.segmentsAfter, 1);
    assert.equal(log.indexSegments(), 1);
    assert.deepEqual(log.search('ledger report', { k: 50 }).hits.map((h) => `${h.seq}:${h.score}`), before);
  });

  it('revealLogFolder and the status bar item are there', async () => {
    const folder = await vscode.commands.executeCommand<string>('scroll.revealLogFolder');
    assert.equal(folder, path.dirname(api.logPath()));
  });
});
