// Where the editor looks for a source's transcripts of this workspace: Claude Code only in the
// project folders named after the workspace's folders (and their subfolders), never the whole ~/.claude.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { locateForWorkspace } from '../../../../src/vscode/capture/captureLocate';

test('claude-code: the project folders of each workspace folder and its subfolders, with their sub-agent files', () => {
  const home = mkdtempSync(join(tmpdir(), 'scroll-capture-locate-'));
  try {
    const projects = join(home, '.claude', 'projects');
    const put = (rel: string) => {
      const p = join(projects, rel);
      mkdirSync(join(p, '..'), { recursive: true });
      writeFileSync(p, '{}\n');
      return p;
    };
    const mine = put('-ws-app/s1.jsonl');
    const sub = put('-ws-app/s1/subagents/agent-1.jsonl');
    const inner = put('-ws-app-pkg/s2.jsonl');
    const second = put('-ws-lib/s3.jsonl');
    put('-ws-other/s4.jsonl');
    put('-ws-ap/s5.jsonl');
    const got = locateForWorkspace('claude-code', { home, scope: ['/ws/app', '/ws/lib'] });
    assert.deepEqual(got.files.sort(), [mine, sub, inner, second].sort());
    assert.ok(got.dirs.includes(projects), 'the projects folder is watched (a new project folder appears there)');
    assert.ok(got.dirs.includes(join(projects, '-ws-app')));
    assert.ok(!got.dirs.includes(join(projects, '-ws-other')));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('a missing ~/.claude gives nothing to read or watch', () => {
  assert.deepEqual(locateForWorkspace('claude-code', { home: '/nonexistent-scroll-home', scope: ['/ws/app'] }), { files: [], dirs: [] });
});

test("copilot-chat: a chat file in this window's own workspace storage belongs to the workspace, workspace.json or not", async () => {
  const { cwdForWorkspace } = await import('../../../../src/vscode/capture/captureLocate');
  const storage = '/u/User/workspaceStorage/abc';
  const scope = ['/ws/app', '/ws/lib'];
  const none = () => undefined;
  // code-server writes no workspace.json (the source's own cwdOf finds nothing): the window's workspace.
  assert.equal(cwdForWorkspace('copilot-chat', `${storage}/chatSessions/s.jsonl`, { scope, workspaceStorage: storage, sourceCwdOf: none }), '/ws/app');
  // What the source's own cwdOf says comes first.
  assert.equal(cwdForWorkspace('copilot-chat', `${storage}/chatSessions/s.jsonl`, { scope, workspaceStorage: storage, sourceCwdOf: () => '/ws/lib' }), '/ws/lib');
  // Another window's storage, or no storage known, or another source: not guessed.
  assert.equal(cwdForWorkspace('copilot-chat', '/u/User/workspaceStorage/other/chatSessions/s.jsonl', { scope, workspaceStorage: storage, sourceCwdOf: none }), undefined);
  assert.equal(cwdForWorkspace('copilot-chat', `${storage}/chatSessions/s.jsonl`, { scope, sourceCwdOf: none }), undefined);
  assert.equal(cwdForWorkspace('cline', `${storage}/chatSessions/s.jsonl`, { scope, workspaceStorage: storage, sourceCwdOf: none }), undefined);
  assert.equal(cwdForWorkspace('copilot-chat', `${storage}/chatSessions/s.jsonl`, { scope: [], workspaceStorage: storage, sourceCwdOf: none }), undefined);
});
