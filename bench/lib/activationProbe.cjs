// One activation measurement in a fresh process (bench/activation.bench.mjs runs it):
//   node activationProbe.cjs EXTENSION_FILE EXTENSION_ROOT WORKSPACE STORAGE [WARM_RUNS]
// require() time of the extension, its first activate(), then the median of WARM_RUNS more
// activate() calls in the same process (each after the previous context's subscriptions were
// disposed, as the editor deactivates). The editor API is bench/lib/vscodeStub.cjs. Prints one
// line of JSON: the times, the editor API calls of the first activation, what it registered, the
// API names it used that the stub lacks, and any error thrown or rejected meanwhile.
'use strict';
const Module = require('node:module');
const path = require('node:path');
const { createVscodeStub } = require('./vscodeStub.cjs');

const [file, extensionRoot, workspaceFolder, storageDir, warmArg] = process.argv.slice(2);
const warmRuns = Number(warmArg ?? 20);
const errors = [];
process.on('uncaughtException', (e) => errors.push(`uncaught: ${e?.stack ?? e}`));
process.on('unhandledRejection', (e) => errors.push(`unhandled rejection: ${e?.stack ?? e}`));

const manifest = require(path.join(extensionRoot, 'package.json'));
const stub = createVscodeStub({ extensionRoot, workspaceFolder, storageDir, manifest });
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
};
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: stub.vscode };
// The extension host has Node's built-ins loaded long before any extension activates: so do we.
for (const m of ['fs', 'path', 'os', 'child_process', 'crypto', 'events', 'util', 'url', 'net', 'stream', 'worker_threads']) require('node:' + m);

const deactivate = (ext, context) => {
  for (const d of context.subscriptions.splice(0)) {
    try {
      d?.dispose?.();
    } catch (e) {
      errors.push(`dispose: ${e?.stack ?? e}`);
    }
  }
  try {
    ext.deactivate?.();
  } catch (e) {
    errors.push(`deactivate: ${e?.stack ?? e}`);
  }
};

let t = performance.now();
const ext = require(file);
const requireMs = performance.now() - t;
let context = stub.context();
const callsBefore = stub.record.calls;
t = performance.now();
let api;
try {
  api = ext.activate(context);
} catch (e) {
  errors.push(`activate: ${e?.stack ?? e}`);
}
const activateMs = performance.now() - t;
const editorCalls = stub.record.calls - callsBefore;
const first = {
  commands: [...stub.record.commands],
  tools: [...stub.record.tools],
  participants: [...stub.record.participants],
  channels: stub.record.channels.map((c) => ({ name: c.name, log: c.log, lines: [...c.lines] })),
  statusItems: stub.record.statusItems.length,
  returnedApi: api !== undefined && api !== null,
};

// What activate() left to run later (promises, timers of a few ms) gets the chance to fail here.
setTimeout(() => {
  const warm = [];
  for (let i = 0; i < warmRuns && errors.length === 0; i++) {
    deactivate(ext, context);
    context = stub.context();
    const s = performance.now();
    try {
      ext.activate(context);
    } catch (e) {
      errors.push(`warm activate: ${e?.stack ?? e}`);
    }
    warm.push(performance.now() - s);
  }
  deactivate(ext, context);
  warm.sort((a, b) => a - b);
  setTimeout(() => {
    process.stdout.write(JSON.stringify({ requireMs, activateMs, warmMs: warm[Math.floor(warm.length / 2)] ?? NaN, editorCalls, ...first, missing: [...stub.record.missing].sort(), errors }));
    process.exit(0); // whatever the extension left running (timers, handles) is not ours to wait for
  }, 20);
}, 50);
