import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { prompt, SYSTEM_PROMPT, toolDescription } from '../../../src/prompts';

const root = join(__dirname, '..', '..', '..', '..');

describe('prompts', () => {
  test('the generated module matches the .md files (run node src/prompts/build-prompts.mjs after editing)', () => {
    const url = pathToFileURL(join(root, 'src', 'prompts', 'build-prompts.mjs')).href;
    // An ES module: ask a child Node for what it would generate.
    const expected = execFileSync(process.execPath, ['-e', `import(${JSON.stringify(url)}).then((m) => process.stdout.write(m.generatedSource()))`], { encoding: 'utf8' });
    const committed = readFileSync(join(root, 'src', 'prompts', 'prompts.generated.ts'), 'utf8');
    assert.equal(committed, expected, 'src/prompts/prompts.generated.ts is stale: run node src/prompts/build-prompts.mjs');
  });

  test('the system prompt covers what the method needs the model to know', () => {
    const s = SYSTEM_PROMPT();
    for (const needle of ['ms.search', 'ms.expand', 'ms.range', 'ms.sql', 'ms.index', 'print', 'first plausible hit', 'coverage', 'never lost', 'map back into the log']) {
      assert.ok(s.includes(needle), `system prompt lacks "${needle}"`);
    }
    assert.match(toolDescription('scroll_exec'), /Only what the code prints/);
    assert.throws(() => prompt('nope'), /no prompt named "nope"/);
  });
});
