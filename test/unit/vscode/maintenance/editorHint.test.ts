import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DAMAGED_INDEX_HINT } from '../../../../src/core/search/search';
import { forEditor } from '../../../../src/vscode/maintenance/editorHint';

test('forEditor: the CLI repair named in core messages becomes the editor command', () => {
  const searchMessage = `search failed: database disk image is malformed (${DAMAGED_INDEX_HINT})`;
  assert.equal(
    forEditor(searchMessage),
    'search failed: database disk image is malformed (the search index may be damaged: the command "Scroll: Rebuild Search Index" rebuilds it from the log)',
  );
  assert.equal(forEditor('nothing to replace'), 'nothing to replace');
});
