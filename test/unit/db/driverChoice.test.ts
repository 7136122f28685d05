// The driver choice is said in one calm line: which driver, and why (issue 20: the host test printed
// "better-sqlite3 refused to load: …", which read like an error on a passing run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { driverChoiceLine, nativeLoadReason } from '../../../src/core/db';

const ABI_ERROR = new Error(
  "The module '/x/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\n" +
    'NODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 137. Please try re-compiling or re-installing\nthe module.',
);

test('an ABI mismatch is named with both versions, in words, on one line', () => {
  const reason = nativeLoadReason(ABI_ERROR);
  assert.equal(reason, "the installed better-sqlite3 is built for another Node (its NODE_MODULE_VERSION 115, this Node's 137)");
  assert.doesNotMatch(reason, /refused|error|fail/i);
});

test('a missing addon and any other load error get one short line', () => {
  assert.equal(nativeLoadReason(new Error("Cannot find module 'better-sqlite3'\nRequire stack: ...")), 'better-sqlite3 is not installed');
  assert.equal(nativeLoadReason(new Error("Module did not self-register: '/x/better_sqlite3.node'.")), 'the installed better-sqlite3 is built for another Node');
  const other = nativeLoadReason(new Error('something odd\nsecond line'));
  assert.equal(other, 'better-sqlite3 did not load (something odd)');
});

test('the line names the driver in use and the Node it runs in', () => {
  const line = driverChoiceLine('better-sqlite3');
  assert.match(line, /^SQLite driver: better-sqlite3 \(native addon, loads in Node v\d+/);
  assert.ok(!line.includes('\n'));
  assert.match(driverChoiceLine('node:sqlite'), /^SQLite driver: node:sqlite \(built into Node v\d+/);
});
