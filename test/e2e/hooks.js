// Mocha root hooks for the e2e run (loaded with --require by scripts/host/run-e2e.mjs): a failed test
// leaves a screenshot of every workbench it had open in test-results/e2e/, and workbenches a test forgot
// to close are closed at the end.
'use strict';
const { openWorkbenches } = require('./workbench');

exports.mochaHooks = {
  async afterEach() {
    const t = this.currentTest;
    if (!t || t.state !== 'failed') return;
    let i = 0;
    for (const wb of openWorkbenches) {
      const file = await wb.screenshot(`FAILED ${t.fullTitle()}${i ? ` ${i}` : ''}`).catch(() => null);
      if (file) console.log(`    screenshot: ${file}`);
      if (wb.pageErrors.length) console.log(`    page errors: ${wb.pageErrors.slice(-5).join(' | ')}`);
      i++;
    }
  },
  async afterAll() {
    for (const wb of [...openWorkbenches]) await wb.close();
  },
};
