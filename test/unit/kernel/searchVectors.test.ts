// The shared search vectors (test/vectors/search-vectors.json, owned by search) run through
// `ms.search` inside the subprocess kernel: the same seqs, order and broadened flags as the
// TypeScript search on the same database, and the vector's `expect` when it gives one.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { SubprocessKernel } from '../../../src/core/kernel/subprocessKernel';
import { MemoryHost } from '../../../src/core/memory/memoryHost';
import type { NewEvent, SearchOptions } from '../../../src/core/types';

const root = join(__dirname, '..', '..', '..', '..');
const vectorsPath = join(root, 'test', 'vectors', 'search-vectors.json');

interface Vector {
  name: string;
  corpus: string;
  query: string;
  opts?: SearchOptions;
  expect?: number[];
  broadened?: boolean;
}
interface Vectors {
  corpora: Record<string, NewEvent[]>;
  queries: Vector[];
}

// Runs one vector in the kernel; prints [[seq, broadened], ...] and the result's broadened flag.
const RUNNER = `
import json as _json
def _scroll_vector(spec):
    o = spec.get("opts") or {}
    kw = {k: o[k] for k in ("k", "kind", "role", "session", "name", "offset", "source") if k in o}
    if "seqFrom" in o or "seqTo" in o:
        kw["seq_range"] = (o.get("seqFrom"), o.get("seqTo"))
    if "tsFrom" in o or "tsTo" in o:
        kw["ts_range"] = (o.get("tsFrom"), o.get("tsTo"))
    hits = ms.search(spec["query"], **kw)
    print(_json.dumps({"hits": [[h.seq, h.broadened] for h in hits], "broadened": hits.broadened}))
`;

describe('shared search vectors through ms.search', { skip: !existsSync(vectorsPath) && 'no vectors file yet' }, () => {
  const vectors: Vectors = existsSync(vectorsPath) ? JSON.parse(readFileSync(vectorsPath, 'utf8')) : { corpora: {}, queries: [] };
  const dir = mkdtempSync(join(tmpdir(), 'scroll-vectors-'));
  const logs = new Map<string, EventLog>();
  const kernels = new Map<string, SubprocessKernel>();

  before(async () => {
    for (const [name, events] of Object.entries(vectors.corpora)) {
      const log = EventLog.open({ path: join(dir, name, 'scroll.db'), session: 'vectors', redact: false });
      log.appendMany(events);
      logs.set(name, log);
      const k = new SubprocessKernel({ memory: new MemoryHost({ log, session: 'vectors' }), session: 'vectors', cwd: dir });
      const r = await k.execute(RUNNER);
      assert.equal(r.error, null, JSON.stringify(r.error));
      kernels.set(name, k);
    }
  });

  after(async () => {
    for (const k of kernels.values()) await k.dispose();
    for (const l of logs.values()) l.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const v of vectors.queries) {
    test(v.name, async () => {
      const log = logs.get(v.corpus);
      const kernel = kernels.get(v.corpus);
      assert.ok(log && kernel, `unknown corpus ${v.corpus}`);
      const r = await kernel.execute(`_scroll_vector(_json.loads(${JSON.stringify(JSON.stringify(v))}))`);
      assert.equal(r.error, null, JSON.stringify(r.error));
      const py = JSON.parse(r.stdout) as { hits: [number, boolean][]; broadened: boolean };
      const ts = log.search(v.query, v.opts ?? {});
      assert.deepEqual(
        py.hits,
        ts.hits.map((h) => [h.seq, h.broadened]),
        'ms.search and the TypeScript search disagree',
      );
      assert.equal(py.broadened, ts.broadened);
      if (v.expect) assert.deepEqual(py.hits.map(([s]) => s), v.expect);
      if (typeof v.broadened === 'boolean') assert.equal(py.broadened, v.broadened);
    });
  }
});
