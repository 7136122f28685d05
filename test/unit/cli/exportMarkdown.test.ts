// `scroll export --format md` and the editor's "Scroll: Export Session" write the same Markdown for a
// session: both go through src/core/log/sessionMarkdown.ts (issue 20).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { renderSessionExport } from '../../../src/vscode/documents/eventMarkdown';

const CLI = join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');

const EVENTS = [
  { kind: 'user_message', role: 'user', content: 'Why does the *report* drop rows? <b>x</b>', session: 'alpha', ts: '2026-03-01T10:00:00.000Z' },
  { kind: 'tool_call', role: 'assistant', content: '{"path":"src/report.ts"}', session: 'alpha', name: 'read_file', ts: '2026-03-01T10:00:01Z' },
  { kind: 'model_turn', role: 'assistant', content: 'Lower-case currency. ```ts\nconst x = `tick`;\n```', session: 'alpha', headline: 'root cause', ts: '2026-03-01T10:00:03Z' },
  { kind: 'user_message', role: 'user', content: 'another session', session: 'beta', ts: '2026-03-02T08:00:00Z' },
];

test('the CLI export and the editor export write the same Markdown for a session', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-export-'));
  try {
    writeFileSync(join(dir, 'in.jsonl'), EVENTS.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const ingest = spawnSync(process.execPath, [CLI, 'ingest', 'in.jsonl'], { cwd: dir, encoding: 'utf8' });
    assert.equal(ingest.status, 0, ingest.stderr);
    const cli = spawnSync(process.execPath, [CLI, 'export', '--session', 'alpha', '--format', 'md'], { cwd: dir, encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    const log = EventLog.open({ path: join(dir, '.scroll', 'scroll.db') });
    let editor: string;
    try {
      editor = renderSessionExport('alpha', [...log.iterateSession('alpha')]);
    } finally {
      log.close();
    }
    assert.equal(cli.stdout, editor, 'byte for byte');
    assert.match(cli.stdout, /^# Scroll session alpha\n/);
    assert.ok(!cli.stdout.includes('another session'));
    // Logged text stays text: the message sits in a fence, its markup never rendered.
    assert.match(cli.stdout, /```text\nWhy does the \*report\* drop rows\? <b>x<\/b>\n```/);

    const all = spawnSync(process.execPath, [CLI, 'export', '--format', 'md'], { cwd: dir, encoding: 'utf8' });
    assert.equal(all.status, 0, all.stderr);
    assert.match(all.stdout, /^# Scroll log: every session\n\n4 events \(seq 1\.\.4,/);
    assert.match(all.stdout, /session beta/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
