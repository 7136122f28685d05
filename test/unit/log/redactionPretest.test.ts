/**
 * The pre-test (Redactor's literal searches, its one scan for the case-insensitive words and the
 * one scan for the case-sensitive anchors, and the name-word places it hands the assignment
 * scanner) may only save work: on every document of the redaction corpora the redactor must give
 * exactly what the full rule pass gives (every rule run on the whole text, no pre-test at all).
 * A pre-filter that skipped a rule where the rule would have changed something fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BUILTIN_RULES, Redactor, applyRules } from '../../../src/core/log/redaction';

const FIXTURES = join(__dirname, '../../../../test/fixtures/redaction');

const credentials = readFileSync(join(FIXTURES, 'credentials.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => (JSON.parse(l) as { name: string; text: string }));
const clean = readdirSync(join(FIXTURES, 'clean'))
  .sort()
  .map((file) => ({ file, text: readFileSync(join(FIXTURES, 'clean', file), 'utf8') }));

/** Every rule on the whole text, in order, with no pre-test (then the copies of what they found). */
function fullRulePass(text: string): string {
  return applyRules(text, BUILTIN_RULES);
}

/**
 * Texts at the edges of the pre-test's shortcuts: triggers tried only where a word starts
 * (`apikey`/`accesskey` from their `key`, a flag from its word back to its `-`, `kind: Secret` and
 * `aws_secret` from their `secret`), literals looked for before a trigger runs, and the scanner
 * handed the places of its name words (also after another rule has changed the text).
 */
const EDGES = [
  'apikey x9Ab3dE7fG2hJ4kLmN', 'APIKEY "x9Ab3dE7fG2hJ4kLmN"', 'accesskey x9Ab3dE7fG2hJ4kLmN', 'SecretKey x9Ab3dE7fG2hJ4kLmN',
  'tool --my-api-key-file x9Ab3dE7fG2hJ4kL', 'run -Private.Thing Xk29sLq0Pz8vWm4nAb', 'x --Credentials-path Xk29sLq0Pz8vWm4n',
  'kind: "Secret"\ndata:\n  k: dmFsdWU=', 'Kind:\tSECRET\ndata:\n  k: dmFsdWU=', 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'aws_secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'BEARER x9Ab3dE7fG2hJ4kLmN', 'Proxy-Authorization: Basic dXNlcjpwYXNz',
  'smtp.LOGIN ("me", "p4ssw0rd!")', 'requests.get(u, AUTH = ("api", "p4ssw0rd!"))', '{"KTY":"oct","k":"x9Ab3dE7fG2hJ4kLx9Ab"}',
  '-----BEGIN RSA PRIVATE KEY-----\nMIIEx9Ab3dE7fG2hJ4kL\n-----END RSA PRIVATE KEY-----', 'Private-Lines: 1\nAAAAx9Ab3dE7fG2h\nPrivate-MAC: 0123456789abcdef0123',
  'redis://:p4ssw0rd!@cache:6379', 'ghp_x9Ab3dE7fG2hJ4kLmNx9Ab3dE7fG2hJ4kLmN password=hunter2xyz', 'db_password=p4ss1 https://u:p4ss2@h/ token: Xk29sLq0Pz8vWm4nAb',
  'passwd p4ssw0rd! key=x9Ab3dE7fG2hJ4kLmN sessionid=x9Ab3dE7fG2hJ4kLmN9', 'assessment_key: Xk29sLq0Pz8vWm4nAb7', 'GITLAB_PAT=glpat-x9Ab3dE7fG2hJ4kLmN12',
];

/** The corpora as documents: each as it is, cut into 2 KB events (as the bench does), and each credential inside real text. */
function documents(): Array<[string, string]> {
  const docs: Array<[string, string]> = EDGES.map((t) => [t, t]);
  for (const c of credentials) docs.push([c.name, c.text]);
  for (const { file, text } of clean) {
    docs.push([file, text]);
    for (let i = 0; i < text.length; i += 2000) docs.push([`${file}@${i}`, text.slice(i, i + 2000)]);
  }
  // A credential in the middle of a file and between two of its lines: the pre-test must find it
  // among everything else there (and an earlier rule's change must not misplace a later rule's finds).
  credentials.forEach((c, i) => {
    const { file, text } = clean[i % clean.length];
    const at = text.indexOf('\n', Math.floor(text.length / 2));
    docs.push([`${c.name} in ${file}`, `${text.slice(0, at + 1)}${c.text}\n${text.slice(at + 1, at + 4000)}`]);
    docs.push([`${c.name} twice`, `${c.text} ${c.text}\n${c.text}`]);
  });
  return docs;
}

test('on every corpus document the redactor gives exactly what the full rule pass gives', () => {
  const fast = new Redactor();
  // An extra pattern turns the pre-test off: each rule then runs behind its own trigger.
  const ruleByRule = new Redactor({ extraPatterns: [{ type: 'never', pattern: /\u0000never\u0000/ }] });
  const differ: string[] = [];
  let changed = 0;
  const docs = documents();
  for (const [name, text] of docs) {
    const reference = fullRulePass(text);
    if (reference !== text) changed++;
    if (fast.redact(text) !== reference) differ.push(`${name} (pre-test)`);
    if (ruleByRule.redact(text) !== reference) differ.push(`${name} (per-rule triggers)`);
  }
  assert.deepEqual(differ, []);
  // The comparison means something only if many documents hold secrets and many do not.
  assert.ok(changed >= credentials.length * 2 && docs.length - changed >= clean.length * 5, `${changed} of ${docs.length} documents changed`);
});

test('identifier markers: the pre-test and the full rule pass redact the same places', () => {
  const key = Buffer.alloc(32, 9);
  const fast = new Redactor({ key });
  const ruleByRule = new Redactor({ key, extraPatterns: [{ type: 'never', pattern: /\u0000never\u0000/ }] });
  for (const [name, text] of documents()) {
    const id = fast.redactId(text);
    assert.equal(id, ruleByRule.redactId(text), name);
    // The memo of short identifiers gives what a fresh redaction gives.
    assert.equal(fast.redactId(text), id, name);
    assert.equal(id.replace(/\[REDACTED:([a-z0-9_]+):[0-9a-f]{12}\]/g, '[REDACTED:$1]'), fullRulePass(text), name);
  }
});
