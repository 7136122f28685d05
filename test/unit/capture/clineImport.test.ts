/**
 * Cline, Roo Code and Kilo Code through the importer: task folders in a fake VS Code user-data
 * folder's global storage; scope by each task's recorded working directory (the metadata file by its
 * sibling's); once, again appending nothing, a grown history appending only the new message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLINE_EXTENSION_IDS, importFiles, SOURCES, type ClineFamilySource } from '../../../src/core/capture';
import { capturedEvents, FIXTURES, missingOrDoubled, openLog, type Expected } from './captureTestKit';

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-cline-import-'));
  const home = join(dir, 'home');
  const gs = join(home, '.config', 'Code', 'User', 'globalStorage');
  for (const [source, id] of Object.entries(CLINE_EXTENSION_IDS)) cpSync(join(FIXTURES, source, id), join(gs, id), { recursive: true });
  return { home, gs, dbPath: join(dir, 'ws', '.scroll', 'scroll.db'), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Each text, tool call and tool result block of an API history, read from the fixture itself. */
function expected(history: Array<Record<string, any>>): Expected[] {
  const out: Expected[] = [];
  for (const m of history) {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of blocks) {
      if (b.type === 'text') out.push({ kind: m.isSummary ? 'compaction' : m.role === 'user' ? 'user_message' : 'model_turn', content: b.text });
      if (b.type === 'tool_use') out.push({ kind: 'tool_call', name: b.name, content: JSON.stringify(b.input) });
      if (b.type === 'tool_result') out.push({ kind: 'tool_result', content: typeof b.content === 'string' ? b.content : b.content.filter((c: any) => c.type === 'text').map((c: any) => c.text).join('\n') });
    }
  }
  return out;
}

const history = (source: string, task: string) =>
  JSON.parse(readFileSync(join(FIXTURES, source, CLINE_EXTENSION_IDS[source as ClineFamilySource], 'tasks', task, 'api_conversation_history.json'), 'utf8'));

test('cline family import: each source\'s tasks in scope once, byte-exact; out of scope and unknown cwd skipped; again 0; grown only new', async () => {
  const h = setup();
  const log = openLog(h.dbPath);
  try {
    const scope = ['/home/dev/sync', '/home/dev/etl'];
    const run = async (source: ClineFamilySource) => {
      const spec = SOURCES[source]!;
      return importFiles(log, spec.reader, spec.locate({ home: h.home, scope }), { scope, cwdOf: (p) => spec.cwdOf!(p, scope) });
    };
    const cline = await run('cline');
    assert.deepEqual(cline.problems.map((p) => p.message), ['ui message 11 has no type say/ask: kept as a note']);
    assert.equal(cline.files, 3);
    assert.deepEqual(cline.noCwd, [], 'task_metadata.json takes the task\'s working directory from its sibling');
    const roo = await run('roo-code');
    assert.deepEqual(roo.problems, []);
    const kilo = await run('kilo-code');
    assert.equal(kilo.noCwd.length, 2, 'Kilo\'s task records no working directory: offered, not imported');
    assert.equal(kilo.appended, 0);

    const events = capturedEvents(log);
    assert.equal(events.length, cline.appended + roo.appended);
    const want = [...expected(history('cline', '1764590400000')), ...expected(history('roo-code', '0f4e2c1a-7b9d-4e3f-a2c5-1d8e6b4f9a70'))];
    // The same environment details are sent twice (two records): each must appear as often as the fixture has it.
    const unique = want.filter((x, i) => want.findIndex((y) => y.kind === x.kind && y.content === x.content) === i);
    assert.deepEqual(missingOrDoubled(events, unique.filter((x) => want.filter((y) => y.kind === x.kind && y.content === x.content).length === 1)), []);
    for (const x of unique) {
      const n = want.filter((y) => y.kind === x.kind && y.content === x.content).length;
      assert.equal(events.filter((e) => e.kind === x.kind && e.content === x.content).length, n, `${x.kind} ${x.content.slice(0, 40)}`);
    }
    assert.deepEqual([...new Set(events.map((e) => e.meta.source))].sort(), ['cline', 'roo-code']);
    assert.ok(events.filter((e) => e.meta.source === 'cline').every((e) => e.session === 'cline:1764590400000' && e.meta.cwd === '/home/dev/sync'));
    assert.ok(events.some((e) => e.name === 'metadata.model_usage'), 'the metadata entries are in');

    const narrow = ['/home/dev/etl'];
    const spec = SOURCES.cline!;
    const outside = await importFiles(log, spec.reader, spec.locate({ home: h.home, scope: narrow }), { scope: narrow, cwdOf: (p) => spec.cwdOf!(p, narrow) });
    assert.equal(outside.appended, 0);
    assert.equal(outside.outOfScope.length, 3);
    assert.deepEqual(outside.problems, [], 'a file not imported reports no problems of its records');

    const again = [await run('cline'), await run('roo-code')];
    assert.deepEqual(again.map((s) => s.appended), [0, 0]);

    const rooFile = join(h.gs, CLINE_EXTENSION_IDS['roo-code'], 'tasks', '0f4e2c1a-7b9d-4e3f-a2c5-1d8e6b4f9a70', 'api_conversation_history.json');
    const grownHistory = [...history('roo-code', '0f4e2c1a-7b9d-4e3f-a2c5-1d8e6b4f9a70'), { role: 'user', ts: 1764600009000, content: [{ type: 'text', text: 'Also run.py, please.' }] }];
    writeFileSync(rooFile, JSON.stringify(grownHistory, null, 2));
    const grown = await run('roo-code');
    assert.equal(grown.appended, 1);
    assert.equal(capturedEvents(log).at(-1)!.content, 'Also run.py, please.');
  } finally {
    log.close();
    h.dispose();
  }
});
