// @scroll with a tool of another extension (test/fixtures/toolbox-tool, allowed by its tag through
// scroll.chat.tools), in the real Chat view: the tool's own confirmation appears as VS Code shows it;
// "Skip" runs nothing and the model is told; "Allow" runs it and its result reaches the model and the log.
'use strict';
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { Workbench, e2eEnv } = require('./workbench');

const repoRoot = path.resolve(__dirname, '..', '..');

function logEvents(folder) {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'scroll.js'), 'export', '--format', 'jsonl', '--db', path.join(folder, '.scroll', 'scroll.db')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`scroll export failed: ${r.stderr || r.stdout}`);
  return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

function lastToolResult(wb) {
  const parts = wb.recordedRequests().flatMap((r) => r.messages.flatMap((m) => m.parts)).filter((p) => p.type === 'toolResult');
  const last = parts[parts.length - 1];
  return last ? last.content.map((c) => c.value || '').join('') : '';
}

function calls(folder) {
  const f = path.join(folder, '.toolbox-tool-calls.jsonl');
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
}

describe("@scroll uses another extension's tool, with its confirmation (UI)", function () {
  /** @type {Workbench} */
  let wb;
  let folder;

  before(async () => {
    const env = e2eEnv();
    folder = fs.mkdtempSync(path.join(path.dirname(env.workspaceTemplate), 'toolbox-'));
    fs.cpSync(env.workspaceTemplate, folder, { recursive: true });
    fs.mkdirSync(path.join(folder, '.vscode'), { recursive: true });
    fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), JSON.stringify({ 'scroll.chat.tools': ['scroll-fixture'] }, null, 2));
    wb = await Workbench.open({ folder });
    await wb.useScriptedModel();
  });
  after(async () => {
    await wb?.close();
  });

  const button = (name) => wb.page.getByRole('button', { name }).first();

  it('Skip runs nothing; the model is told and the log has the call and its outcome', async () => {
    wb.setScript({ turns: [{ toolCalls: [{ name: 'fixture_lookupForecast', input: { city: 'Faro' } }] }, { text: 'FORECAST-SKIPPED' }] });
    const answered = wb.sendChat('@scroll what is the forecast for Faro?', { timeoutMs: 120000 });
    answered.catch(() => {});
    const skip = button(/^Skip/);
    await skip.waitFor({ state: 'visible', timeout: 90000 });
    await skip.click();
    assert.match(await answered, /FORECAST-SKIPPED/);
    assert.deepEqual(calls(folder), [], 'the skipped call never ran');
    const events = logEvents(folder);
    const call = events.filter((e) => e.kind === 'tool_call' && e.name === 'fixture_lookupForecast').at(-1);
    assert.match(call.content, /Faro/);
    const result = events.find((e) => e.kind === 'tool_result' && e.tool_call_id === call.tool_call_id);
    assert.ok(result, 'the outcome is logged');
    assert.doesNotMatch(result.content, /FIXTURE-SUNNY/);
    assert.doesNotMatch(lastToolResult(wb), /FIXTURE-SUNNY/, 'the model was not given a forecast');
  });

  it('Allow runs the tool; its result reaches the model and the log', async () => {
    wb.setScript({ turns: [{ toolCalls: [{ name: 'fixture_lookupForecast', input: { city: 'Porto' } }] }, { text: 'FORECAST-ALLOWED' }] });
    const answered = wb.sendChat('@scroll and for Porto?', { timeoutMs: 120000 });
    answered.catch(() => {});
    // This editor's primary button is "Allow in this Session" (later calls would not ask): Skip is tested first.
    const allow = button(/^Allow/);
    await allow.waitFor({ state: 'visible', timeout: 90000 });
    assert.deepEqual(calls(folder), [], 'nothing runs before the user allows it');
    await wb.screenshot('toolbox-confirmation');
    await allow.click();
    assert.match(await answered, /FORECAST-ALLOWED/);
    assert.deepEqual(calls(folder), [{ city: 'Porto' }]);
    assert.match(lastToolResult(wb), /Forecast for Porto: FIXTURE-SUNNY-5/);
    const results = logEvents(folder).filter((e) => e.kind === 'tool_result' && e.name === 'fixture_lookupForecast');
    assert.equal(results.length, 2, 'the skipped call and this one');
    assert.equal(results[1].content, 'Forecast for Porto: FIXTURE-SUNNY-5', 'the full result is logged');
  });
});
