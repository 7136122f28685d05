// The one session id builder (src/core/sessionId.ts) and the one `.scroll/.gitignore` writer
// (src/core/logFolder.ts), which the CLI's log and `scroll chat` use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSessionId } from '../../src/core/sessionId';
import { prepareLogFolder } from '../../src/core/logFolder';

test('newSessionId: <prefix>-YYYYMMDD-HHMMSS-xxxx in UTC, distinct within one second', () => {
  const at = new Date(Date.UTC(2026, 2, 1, 9, 5, 7, 123));
  for (const prefix of ['s', 'chat', 'tools'] as const) {
    assert.match(newSessionId(prefix, at), new RegExp(`^${prefix}-20260301-090507-[0-9a-f]{4}$`));
  }
  assert.match(newSessionId('chat'), /^chat-\d{8}-\d{6}-[0-9a-f]{4}$/);
  const ids = new Set(Array.from({ length: 50 }, () => newSessionId('s', at)));
  assert.ok(ids.size > 40, `random suffixes (${ids.size} distinct of 50)`);
});

test('prepareLogFolder: .scroll gets a .gitignore of *, other folders none, an existing one is kept', () => {
  const root = mkdtempSync(join(tmpdir(), 'scroll-folder-'));
  try {
    const owned = join(root, 'ws', '.scroll');
    prepareLogFolder(owned);
    assert.equal(readFileSync(join(owned, '.gitignore'), 'utf8'), '*\n');
    writeFileSync(join(owned, '.gitignore'), '*\n!keep\n');
    prepareLogFolder(owned);
    assert.equal(readFileSync(join(owned, '.gitignore'), 'utf8'), '*\n!keep\n');
    const other = join(root, 'elsewhere', 'db');
    prepareLogFolder(other);
    assert.ok(existsSync(other));
    assert.ok(!existsSync(join(other, '.gitignore')));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
