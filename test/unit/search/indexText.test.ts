import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildIndexDocument, compoundParts } from '../../../src/core/search/indexText';
import { identifierParts, isCompound } from '../../../src/core/search/tokens';

test('fenced code is split out of prose', () => {
  const d = buildIndexDocument('Fix this:\n```ts\nconst x = getUserById(id);\n```\nthen run tests.\n~~~\nmore code\n~~~', 'a note');
  assert.ok(!d.body.includes('getUserById'));
  assert.ok(d.body.includes('Fix this:') && d.body.includes('then run tests.'));
  assert.ok(d.code.includes('const x = getUserById(id);') && d.code.includes('more code'));
  assert.equal(d.headline, 'a note');
});

test('an unclosed fence runs to the end', () => {
  const d = buildIndexDocument('intro\n```\nlet a = 1;\nlet b = 2;', null);
  assert.equal(d.body.trim(), 'intro');
  assert.ok(d.code.includes('let b = 2;'));
});

test('compound identifiers contribute their parts, once each', () => {
  assert.deepEqual(identifierParts('getUserById'), ['get', 'user', 'by', 'id']);
  assert.deepEqual(identifierParts('user_id'), ['user', 'id']);
  assert.deepEqual(identifierParts('HTTPServerError'), ['http', 'server', 'error']);
  assert.deepEqual(identifierParts('utf8Decode'), ['utf8', 'decode']);
  assert.deepEqual(identifierParts('__init__'), ['init']);
  assert.deepEqual(identifierParts('plain'), []);
  assert.ok(isCompound('MAX_RETRIES') && isCompound('eventLog') && !isCompound('hello') && !isCompound('HTTP'));
  const parts = compoundParts('getUserById(user_id) calls getUserById again; see src/core/eventLog.ts and MAX_RETRIES');
  assert.deepEqual(parts.split('\n'), ['get user by id', 'user id', 'event log', 'max retries']);
});

test('headline identifiers are split too; hashes and blobs are not', () => {
  assert.equal(buildIndexDocument('nothing here', 'renamed fooBar').parts, 'foo bar');
  const blob = 'aGVsbG8gV29ybGQhIFRoaXMgaXMgYSBsb25nIGJhc2U2NCBzdHJpbmcgdGhhdCBpcyBub3QgYW4gaWRlbnRpZmllcg';
  assert.equal(buildIndexDocument(blob).parts, '');
});

test('index-side splitting equals query-side splitting (else part phrases would not match)', () => {
  const alphabet = ['a', 'b', 'Z', 'Q', '_', '7', 'x', 'Y', 'k'];
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  for (let n = 0; n < 3000; n++) {
    let tok = '';
    const len = 2 + Math.floor(rand() * 14);
    for (let i = 0; i < len; i++) tok += alphabet[Math.floor(rand() * alphabet.length)];
    const want = isCompound(tok) ? identifierParts(tok) : [];
    const got = compoundParts(tok);
    if (want.length === 0 || want.length > 8) assert.equal(got, '', tok);
    else assert.equal(got, want.join(' '), tok);
  }
});

/** The obvious way to list the parts: every ASCII token run, kept when isCompound says so. */
function referenceCompoundParts(text: string): string {
  const out: string[] = [];
  const listed = new Set<string>();
  for (const tok of text.match(/[A-Za-z0-9_]+/g) ?? []) {
    if (!isCompound(tok) || tok.length > 64 || listed.has(tok)) continue;
    listed.add(tok);
    const parts = identifierParts(tok);
    if (parts.length <= 8) out.push(parts.join(' '));
  }
  return out.join('\n');
}

test('the scan for compounds lists what the token-by-token reference lists, on random text', () => {
  // Separators include non-ASCII letters, which the index tokenizer keeps but identifiers do not.
  const alphabet = ['a', 'b', 'Z', 'Q', '_', '_', '1', 'é', ' ', '.', '-', '\n', 'Ω', 'x', 'Y'];
  let seed = 777;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  for (let n = 0; n < 3000; n++) {
    let text = '';
    const len = Math.floor(rand() * 120);
    for (let i = 0; i < len; i++) text += alphabet[Math.floor(rand() * alphabet.length)];
    if (n % 50 === 0) text += ' ' + 'aB'.repeat(40) + ' x'; // over the 64-character limit
    assert.equal(compoundParts(text), referenceCompoundParts(text), JSON.stringify(text));
  }
});

/** The memo's hash (FNV-1a over the token's UTF-16 code units), to build colliding identifiers. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

test('identifiers whose hashes collide keep their own parts (the memo compares the text)', () => {
  // Birthday search: among ~10^5 identifiers of one shape, two share a 32-bit hash.
  const seen = new Map<number, string>();
  let pair: [string, string] | undefined;
  for (let i = 0; !pair && i < 2_000_000; i++) {
    const id = `get_${i.toString(36)}Value`;
    const h = fnv1a(id);
    const other = seen.get(h);
    if (other !== undefined) pair = [other, id];
    else seen.set(h, id);
  }
  assert.ok(pair, 'found two identifiers with the same hash');
  const [a, b] = pair;
  assert.equal(fnv1a(a), fnv1a(b));
  assert.notEqual(a, b);
  for (const text of [`${a} and ${b}`, `${b} then ${a}`, `${a} ${a} ${b} ${b}`]) {
    assert.equal(compoundParts(text), referenceCompoundParts(text), text);
  }
  assert.equal(compoundParts(b), referenceCompoundParts(b));
});

test('past the memo limit (100k identifiers) the parts are still right', () => {
  const docs: string[] = [];
  for (let d = 0; d < 130; d++) {
    const ids: string[] = [];
    for (let i = 0; i < 1000; i++) ids.push(`load${d}_item${i}Value`);
    ids.push('getUserById', 'user_id'); // recurring ones, before and after the memo is reset
    docs.push(ids.join(' '));
  }
  for (const text of docs) assert.equal(compoundParts(text), referenceCompoundParts(text));
});
