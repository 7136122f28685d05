import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { BUILTIN_RULES, Redactor, applyRule } from '../../../src/core/log/redaction';

/** Realistic-looking secrets (not real credentials) and the marker type each must become. */
const SECRETS: Array<[string, string]> = [
  ['AKIAIOSFODNN7EXAMPLE', 'aws_access_key'],
  ['ghp_1234567890abcdefghijABCDEFGHIJ123456', 'github_token'],
  ['gho_1234567890abcdefghijABCDEFGHIJ123456', 'github_token'],
  ['ghs_1234567890abcdefghijABCDEFGHIJ123456', 'github_token'],
  ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS', 'github_token'],
  ['sk-proj-Abc123Def456Ghi789Jkl012Mno345Pqr678Stu901', 'openai_key'],
  ['sk-Abc123Def456Ghi789Jkl012Mno345Pqr678Stu901Vwx', 'openai_key'],
  ['sk-ant-api03-Abc123Def456Ghi789Jkl012Mno345Pqr678-Stu901Vwx_AA', 'anthropic_key'],
  ['xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', 'slack_token'],
  ['https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx', 'slack_webhook'],
  ['AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW', 'google_api_key'],
  ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c', 'jwt'],
];
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAqSeCretKeyMaterialLine1\nAnotherSecretLineOfKeyMaterial==\n-----END RSA PRIVATE KEY-----';
const ENV_VALUE = 'hunter2-database-password';
const URL_PASSWORD = 's3cr3tPa55';

test('each kind of secret is replaced by [REDACTED:<type>]', () => {
  const r = new Redactor();
  for (const [secret, type] of SECRETS) {
    const out = r.redact(`before ${secret} after`);
    assert.equal(out, `before [REDACTED:${type}] after`, `${type}: ${secret}`);
  }
  assert.equal(r.redact(`aws_secret_access_key = ${AWS_SECRET}`), 'aws_secret_access_key = [REDACTED:aws_secret_key]');
  assert.equal(r.redact(`key:\n${PEM}\ndone`), 'key:\n[REDACTED:private_key]\ndone');
  assert.equal(r.redact('-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE\n(truncated'), '[REDACTED:private_key]');
  assert.equal(
    r.redact(`# .env\nDATABASE_PASSWORD=${ENV_VALUE}\nexport STRIPE_SECRET_KEY="sk_live_abcdef123456"\nAPI_KEY: 'abc123xyz'\nDEBUG=true\n`),
    '# .env\nDATABASE_PASSWORD=[REDACTED:secret]\nexport STRIPE_SECRET_KEY=[REDACTED:secret]\nAPI_KEY: [REDACTED:secret]\nDEBUG=true\n',
  );
  assert.equal(r.redact('  password: "hunter2",\nPASSWORD=hunter2'), '  password: [REDACTED:secret],\nPASSWORD=[REDACTED:secret]');
  assert.equal(r.redact('{"client_secret": "abcd-efgh-1234", "name": "x"}'), '{"client_secret": [REDACTED:secret], "name": "x"}');
  assert.equal(r.redact(`postgres://admin:${URL_PASSWORD}@db.example.com:5432/app`), 'postgres://admin:[REDACTED:url_password]@db.example.com:5432/app');
  assert.equal(r.redact('Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345'), 'Authorization: Bearer [REDACTED:bearer_token]');
});

test('ordinary text and code that only looks similar is kept', () => {
  const r = new Redactor();
  const keep = [
    'max_tokens: 4096',
    'TOKEN_LIMIT=8000',
    'API_KEY=${API_KEY}',
    'password: null',
    'const token = getToken(user);',
    'function getUserById(id) { return db.users[id]; }',
    'see https://example.com/path?a=1 and git@github.com:org/repo.git',
    'task-list, sk-learn, skip this',
    'the key insight is that keys are sorted',
    'AKIA is a prefix; AKIASHORT is not a key',
    '  token: ${{ secrets.GITHUB_TOKEN }}',
    '  apiKey: config.apiKey,',
    '  password: getPassword(user),',
    '  token: token,',
    'SECRET_KEY = os.environ["SECRET_KEY"]',
    'see the sk-learn-compatible-estimator-interface docs',
  ];
  for (const text of keep) assert.equal(r.redact(text), text);
});

test('redaction can be switched off and extended with extra patterns', () => {
  const secret = SECRETS[0][0];
  assert.equal(new Redactor({ enabled: false }).redact(secret), secret);
  const r = new Redactor({ extraPatterns: [{ type: 'ticket', pattern: 'ACME-[0-9]{6}' }, { type: 'internal', pattern: /corp-[a-z]+-key/i }] });
  assert.equal(r.redact('see ACME-123456 and CORP-alpha-KEY'), 'see [REDACTED:ticket] and [REDACTED:internal]');
  assert.throws(() => new Redactor({ extraPatterns: [{ type: 'bad type!', pattern: 'x' }] }), /plain word/);
  assert.throws(() => new Redactor({ extraPatterns: [{ type: 'broken', pattern: '(unclosed' }] }), /"broken" is not a valid regular expression/);
  assert.throws(() => new Redactor({ extraPatterns: [{ type: 'everything', pattern: 'x*' }] }), /matches empty text/);
  assert.deepEqual(r.redactValue({ a: [secret, 1, null], b: { c: secret } }), { a: ['[REDACTED:aws_access_key]', 1, null], b: { c: '[REDACTED:aws_access_key]' } });
});

/** 3,000 texts of 1 to `maxPieces` pieces, each after a space or a newline (deterministic for a seed). */
function randomTexts(pieces: string[], seed: number, maxPieces: number): string[] {
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const texts: string[] = [];
  for (let n = 0; n < 3000; n++) {
    let text = '';
    const parts = 1 + Math.floor(rand() * maxPieces);
    for (let i = 0; i < parts; i++) text += (rand() < 0.5 ? ' ' : '\n') + pieces[Math.floor(rand() * pieces.length)];
    texts.push(text);
  }
  return texts;
}

test('the one-scan pre-test skips exactly the texts no rule would touch', () => {
  const fast = new Redactor();
  // An extra rule without trigger words turns the pre-test off: every rule runs its own pre-test.
  const ruleByRule = new Redactor({ extraPatterns: [{ type: 'never', pattern: /\u0000never\u0000/ }] });
  const pieces = [
    ...SECRETS.map(([s]) => s), AWS_SECRET, PEM, `DATABASE_PASSWORD=${ENV_VALUE}`, `postgres://admin:${URL_PASSWORD}@db:5432/app`,
    'Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345', 'PRIVATE KEY', 'AKIA', 'ghp_', 'sk-', 'xox', 'eyJ', '://', 'AIza',
    'KEY', 'Token', 'passw', 'Credential', 'bearer', 'plain words', 'getUserById(id)', '\n', ' = ', ': "', "'x'", '#', '[REDACTED:x]',
  ];
  for (const text of randomTexts(pieces, 99, 6)) assert.equal(fast.redact(text), ruleByRule.redact(text), JSON.stringify(text));
  const quiet = 'a long ordinary text about getUserById and src/core/log.ts\n'.repeat(50);
  assert.equal(fast.redact(quiet), quiet);
});

test('every secret name the line rules know is redacted, whatever its case', () => {
  const r = new Redactor();
  const names = [
    'SECRET', 'MY_SECRET_VALUE', 'TOKEN', 'npm_token', 'PASSWORD', 'db_passwd', 'PASSPHRASE', 'GPG_PASSPHRASE', 'passphrase',
    'API_KEY', 'apiKey', 'ACCESS_KEY', 'accessKey', 'PRIVATE', 'CREDENTIAL', 'CREDENTIALS', 'AUTH_KEY', 'authKey', 'CLIENT_SECRET',
  ];
  for (const name of names) {
    assert.equal(r.redact(`${name}=hunter2xyz`), `${name}=[REDACTED:secret]`, name);
    assert.equal(r.redact(`  ${name}: "hunter2 xyz"`), `  ${name}: [REDACTED:secret]`, name);
    assert.equal(r.redact(`{"${name}": "hunter2xyz"}`), `{"${name}": [REDACTED:secret]}`, name);
  }
});

/**
 * The rules with no pre-test at all: every pattern runs on every text. Whatever the pre-tests
 * (per rule, and the one scan over all of them) skip must be text this leaves as it is.
 */
function redactWithoutPretests(text: string): string {
  return BUILTIN_RULES.reduce(applyRule, text);
}

test('the pre-tests never skip a text some rule would change', () => {
  const r = new Redactor();
  const pieces = [
    ...SECRETS.map(([s]) => s), AWS_SECRET, PEM, 'PASSPHRASE=hunter2xyz', 'export GPG_PASSPHRASE="correct horse"', 'apiKey: "abc123xyz"',
    'auth_key=abcdef1234', '"client_secret": "abcd-efgh"', 'CREDENTIALS=abc123xyz', `postgres://admin:${URL_PASSWORD}@db:5432/app`,
    'Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345', 'getKeyName(key)', 'monkey keyboard keys', 'tokenize(text)',
    'plain words', '\n', ' = ', ': "', '#', 'export ',
  ];
  for (const text of randomTexts(pieces, 7, 5)) assert.equal(r.redact(text), redactWithoutPretests(text), JSON.stringify(text));
});

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

function assertNoSecretBytes(scrollDir: string, secrets: string[]): number {
  const files = filesUnder(scrollDir);
  for (const f of files) {
    const bytes = readFileSync(f);
    for (const s of secrets) assert.equal(bytes.indexOf(Buffer.from(s, 'utf8')), -1, `secret ${s.slice(0, 12)}… found in ${f}`);
  }
  return files.length;
}

test('no secret byte reaches disk: database, WAL and payload files, from every field', () => {
  const ws = mkdtempSync(join(tmpdir(), 'scroll-redact-'));
  try {
    const all = [...SECRETS.map(([s]) => s), AWS_SECRET, 'MIIEowIBAAKCAQEAqSeCretKeyMaterialLine1', ENV_VALUE, URL_PASSWORD];
    const text = SECRETS.map(([s]) => `token ${s}`).join('\n') + `\naws_secret_access_key=${AWS_SECRET}\n${PEM}\nDB_PASSWORD=${ENV_VALUE}\nhttps://me:${URL_PASSWORD}@host/x\n`;
    const log = EventLog.open({ workspace: ws, payloadThreshold: 2048 });
    log.append({ kind: 'tool_result', role: 'tool', content: text, name: `tool ${SECRETS[1][0]}`, headline: `headline ${SECRETS[2][0]}`, meta: { input: { env: `DB_PASSWORD=${ENV_VALUE}` }, list: [SECRETS[3][0]] } });
    // Large enough to go to the payload store.
    const big = log.append({ kind: 'tool_result', role: 'tool', content: text + 'padding '.repeat(600) });
    assert.ok(big.payload);
    assert.ok(!big.content.includes(SECRETS[0][0]));
    assert.match(log.get(1)!.content, /\[REDACTED:github_token\]/);
    assert.match(log.get(1)!.headline!, /\[REDACTED:github_token\]/);
    assert.deepEqual(log.get(1)!.meta, { input: { env: 'DB_PASSWORD=[REDACTED:secret]' }, list: ['[REDACTED:github_token]'] });
    // While open, the WAL holds the recent pages: check it too.
    const scrollDir = join(ws, '.scroll');
    assert.ok(filesUnder(scrollDir).some((f) => f.endsWith('-wal')), 'the WAL exists while the log is open');
    assert.ok(assertNoSecretBytes(scrollDir, all) >= 4);
    log.close();
    assertNoSecretBytes(scrollDir, all);
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});
