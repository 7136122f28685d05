// Consent before unsandboxed Python, in the real workbench: with `scroll.kernel.sandbox: off` every
// scroll_exec cell @scroll's (scripted) model sends asks the user first, in a modal dialog (the agent
// loop's confirm hook, src/vscode/chat/cellConsent.ts): "Allow" runs the cell; "Deny" (or Escape) runs
// nothing, tells the model the user did not allow it and logs the cell as declined; "Allow for this
// session" stops the asking for the rest of the chat session. (Other agents' calls to scroll_exec ask
// through VS Code's own tool confirmation: test/host/suite/kernelSandbox.test.ts.)
'use strict';
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { Workbench, e2eEnv, waitFor } = require('./workbench');

const repoRoot = path.resolve(__dirname, '..', '..');

/** Every event of the folder's log, read with the CLI (its own connection). */
function logEvents(folder) {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'scroll.js'), 'export', '--format', 'jsonl', '--db', path.join(folder, '.scroll', 'scroll.db')], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`scroll export failed: ${r.stderr || r.stdout}`);
  return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** The text of the last tool result the scripted model was sent. */
function lastToolResult(wb) {
  const reqs = wb.recordedRequests();
  const parts = reqs.flatMap((r) => r.messages.flatMap((m) => m.parts)).filter((p) => p.type === 'toolResult');
  const last = parts[parts.length - 1];
  return last ? last.content.map((c) => c.value || '').join('') : '';
}

const cell = (file, marker) => `open(${JSON.stringify(file)}, 'w').write('ran')\nprint(${JSON.stringify(marker)} + str(6 * 7))`;

describe('@scroll asks before unsandboxed Python (UI)', function () {
  /** @type {Workbench} */
  let wb;
  let folder;

  before(async () => {
    // A seeded copy of our own, with the sandbox off in its workspace settings.
    const env = e2eEnv();
    folder = fs.mkdtempSync(path.join(path.dirname(env.workspaceTemplate), 'consent-'));
    fs.cpSync(env.workspaceTemplate, folder, { recursive: true });
    fs.mkdirSync(path.join(folder, '.vscode'), { recursive: true });
    fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), JSON.stringify({ 'scroll.kernel.sandbox': 'off' }, null, 2));
    wb = await Workbench.open({ folder });
    await wb.useScriptedModel();
  });
  after(async () => {
    await wb?.close();
  });

  // The workbench's own modal dialog (VS Code in a browser draws it in the page).
  const dialog = () => wb.page.locator('.monaco-dialog-box').filter({ visible: true }).last();
  const button = (name) => dialog().getByRole('button', { name, exact: true });
  const waitForDialog = () => waitFor(async () => (await dialog().count()) > 0, { timeoutMs: 90000, what: 'the consent dialog' });
  const waitForNoDialog = () => waitFor(async () => (await dialog().count()) === 0, { timeoutMs: 10000, what: 'the dialog to close' });

  it('shows the cell and why it asks; Allow runs it', async () => {
    wb.setScript({
      turns: [
        { text: 'Running it. ', toolCalls: [{ name: 'scroll_exec', input: { code: cell('allowed.txt', 'ALLOWED-') } }] },
        { text: 'ALLOW-DONE' },
      ],
    });
    const answered = wb.sendChat('@scroll run the allowed cell', { timeoutMs: 120000 });
    answered.catch(() => {});
    await waitForDialog();
    const shown = await dialog().innerText();
    assert.match(shown, /Run Python in the Scroll kernel\?/, 'the title is shown');
    assert.match(shown, /ALLOWED-/, 'the code is shown');
    assert.match(shown, /not sandboxed: scroll\.kernel\.sandbox is off/);
    for (const name of ['Allow', 'Allow for this session', 'Deny']) assert.equal(await button(name).count(), 1, `a "${name}" button`);
    assert.equal(fs.existsSync(path.join(folder, 'allowed.txt')), false, 'nothing runs before the user allows it');
    await wb.screenshot('consent-dialog');
    await button('Allow').click();
    await waitForNoDialog();
    const reply = await answered;
    assert.match(reply, /ALLOW-DONE/);
    assert.equal(fs.readFileSync(path.join(folder, 'allowed.txt'), 'utf8'), 'ran');
    assert.match(lastToolResult(wb), /ALLOWED-42/, 'the cell output reached the model');
    const out = logEvents(folder).filter((e) => e.kind === 'kernel_output' && e.content.includes('ALLOWED-42'));
    assert.equal(out.length, 1, 'the output is in the log');
  });

  it('Deny runs nothing: the model is told, the chat says so, the log has the cell as declined', async () => {
    wb.setScript({
      turns: [
        { toolCalls: [{ name: 'scroll_exec', input: { code: cell('denied.txt', 'DENIED-') } }] },
        { text: 'DENY-DONE' },
      ],
    });
    const answered = wb.sendChat('@scroll run the denied cell', { timeoutMs: 120000 });
    answered.catch(() => {});
    await waitForDialog();
    await button('Deny').click();
    await waitForNoDialog();
    const reply = await answered;
    assert.match(reply, /DENY-DONE/);
    assert.match(reply, /You declined the Python cell/);
    assert.equal(fs.existsSync(path.join(folder, 'denied.txt')), false, 'the cell never ran');
    assert.match(lastToolResult(wb), /the user did not allow scroll_exec to run/);
    const events = logEvents(folder);
    const declined = events.filter((e) => e.kind === 'kernel_exec' && e.content.includes('DENIED-'));
    assert.equal(declined.length, 1, 'the declined cell is logged once');
    assert.equal(declined[0].meta.denied, true);
    assert.ok(!events.some((e) => e.kind === 'kernel_output' && e.content.includes('DENIED-42')), 'no output: it did not run');
    const result = events.find((e) => e.kind === 'tool_result' && e.tool_call_id === declined[0].tool_call_id);
    assert.ok(result && /did not allow/.test(result.content) && result.meta.isError === true, JSON.stringify(result));
  });

  it('Escape closes the dialog and denies', async () => {
    wb.setScript({
      turns: [{ toolCalls: [{ name: 'scroll_exec', input: { code: cell('escaped.txt', 'ESCAPED-') } }] }, { text: 'ESCAPE-DONE' }],
    });
    const answered = wb.sendChat('@scroll run the escaped cell', { timeoutMs: 120000 });
    answered.catch(() => {});
    await waitForDialog();
    await wb.page.keyboard.press('Escape');
    await waitForNoDialog();
    assert.match(await answered, /ESCAPE-DONE/);
    assert.equal(fs.existsSync(path.join(folder, 'escaped.txt')), false, 'the cell never ran');
    const declined = logEvents(folder).filter((e) => e.kind === 'kernel_exec' && e.content.includes('ESCAPED-'));
    assert.equal(declined.length, 1);
    assert.equal(declined[0].meta.denied, true);
  });

  it('"Allow for this session" runs the cell and stops asking for the next cells', async () => {
    wb.setScript({
      turns: [
        { toolCalls: [{ name: 'scroll_exec', input: { code: cell('session-1.txt', 'FIRST-') } }] },
        { toolCalls: [{ name: 'scroll_exec', input: { code: cell('session-2.txt', 'SECOND-') } }] },
        { text: 'SESSION-DONE' },
      ],
    });
    const answered = wb.sendChat('@scroll run two cells', { timeoutMs: 120000 });
    answered.catch(() => {});
    await waitForDialog();
    await button('Allow for this session').click();
    await waitForNoDialog();
    const reply = await answered; // would time out if the second cell asked again
    assert.match(reply, /SESSION-DONE/);
    for (const f of ['session-1.txt', 'session-2.txt']) assert.equal(fs.readFileSync(path.join(folder, f), 'utf8'), 'ran', f);

    // The next turn of the same chat does not ask either.
    wb.setScript({
      turns: [{ toolCalls: [{ name: 'scroll_exec', input: { code: cell('session-3.txt', 'THIRD-') } }] }, { text: 'NEXT-DONE' }],
    });
    const next = await wb.sendChat('@scroll one more cell', { timeoutMs: 120000 });
    assert.match(next, /NEXT-DONE/);
    assert.equal(fs.readFileSync(path.join(folder, 'session-3.txt'), 'utf8'), 'ran');
    assert.match(lastToolResult(wb), /THIRD-42/);
    assert.equal(await dialog().count(), 0, 'no dialog');
  });
});
