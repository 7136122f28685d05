// `npm run bench`: runs every bench/*.bench.mjs in turn; each prints its own figures next to a
// baseline measured in the same run. Extra arguments are passed through (e.g. a data path).
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.env.SCROLL_BENCH; // e.g. SCROLL_BENCH=search to run one
const files = readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => !only || f.startsWith(only))
  .sort();
let failed = 0;
for (const f of files) {
  console.log(`\n=== ${f} ===`);
  const r = spawnSync(process.execPath, ['--expose-gc', join(root, 'bench', f), ...process.argv.slice(2)], {
    stdio: 'inherit',
    cwd: root,
  });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
