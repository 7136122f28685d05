/**
 * The redaction corpora (test/fixtures/redaction/README.md): every credential format loses exactly
 * its secret, and real code and tool output passes through byte-exact (documentation examples
 * listed in clean-examples.json may go). bench/redaction.bench.mjs prints the same figures beside
 * the previous rule set's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Redactor } from '../../../src/core/log/redaction';

const FIXTURES = join(__dirname, '../../../../test/fixtures/redaction');

interface Credential {
  name: string;
  text: string;
  secret: string;
}

const credentials: Credential[] = readFileSync(join(FIXTURES, 'credentials.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Credential);

/**
 * Formats the rules do not catch. Each is listed here so that a change that catches it (or loses
 * another) shows up; ARCHITECTURE.md ("Redaction") names them too.
 */
const KNOWN_MISSES = new Set([
  'pgbouncer userlist', // `"user" "password"` with nothing around it that names pgbouncer (source-highlight's colour tables look the same)
  // rule set 4's stand-ins for unseen formats that it still misses:
  'launchdarkly sdk key', // `sdk-<uuid>`: request and session ids look the same
  'algolia admin in js', // `algoliasearch('<app id>', '<hex>')`: two plain arguments
  'unity license serial', // `-serial <serial>`: a flag no rule names
  'openweather appid query', // `appid=<hex>`: an app id elsewhere
  'go http client timeout error with appid query', // the same, in set U (rule set 9's last round)
  // set W (prose)
  'jira comment with a datadog key in monospace', // `set {{DD_API_KEY}} … to {{<hex>}}`: the name and the value far apart
  'voice-transcribed message with a spoken passphrase', // words with blanks between: prose
  'wallet recovery phrase of twelve words', // twelve words in a sentence, no list to tell them from the rest
  '2fa backup code in a lockout message', // eight digits after "trying"
  'minio secret key', // `mc alias set <name> <url> <access key> <secret>`: positional
  // rule set 5's development set (E) that it still misses:
  'agora app certificate env', // `APP_CERTIFICATE=<hex>`: a certificate is elsewhere public
  // set I's Key Vault output, written above the command that read it
  'az keyvault secret show value',
  'conjur api key', // `conjur login -i <id> -p <key>`: -i is no user flag elsewhere
  // set K (rule set 6's second round)
  'rollbar access token', // `rollbar.init('<hex>', …)`: a hex literal alone is more often a digest
  // set N (rule set 6's fourth round)
  'haskell env default', // `fromMaybe "<default>" <$> lookupEnv "API_KEY"`: the literal before the lookup
  // set O (rule set 6's fifth round)
  'alchemy api key url', // `/v2/<key>` in a URL's path: ids look the same there
  'optimizely sdk key in url', 'segment write key js', // keys a browser is given (`datafiles/<key>.json`, `analytics.load("<key>")`)
  // set Q (rule set 7)
  'activemq jetty-realm.properties', // `admin: <password>, admin`: a user's line, as a YAML key and a list are elsewhere
  // set AL (rule set 11)
  'serverless info --verbose api keys', // `api keys:` then `<name>: <key> - <description>`: the name says nothing
  'consul kv export base64 value', // the name is a path's last part, a field away from the base64 value
]);

/**
 * Other values the same rules must hide with the secret (regular expressions, each place they match): a Kubernetes
 * Secret's `data` and `stringData` are secret whatever their names, so each value there becomes a marker; a bcrypt hash
 * of the password beside it is a password's hash.
 */
const ALSO_HIDDEN = new Map<string, readonly string[]>([
  // a Stripe publishable key is redacted like the secret beside it (the `pk_` family, as the corpus's `dart const`)
  ['stripe secret key beside publishable key in django settings (set AP)', ['pk_live_[A-Za-z0-9]+']],
  // (set AP) values its writer put beside the secret that the rules hide too: a default password in a URL, Twilio's
  // `SK…` key SID (gitleaks' twilio rule), an AWS access key id, a Statsig client key, a named `*_API_KEY`
  ['resend api key in nextjs .env.local (set AP)', ['(?<=postgres:)postgres(?=@)']],
  ['twilio cli config.json api secret (set AP)', ['SK[0-9a-f]{32}']],
  ['amazon ses smtp password in rails production.rb (set AP)', ['AKIA[0-9A-Z]{16}']],
  ['mapbox secret token in curl uploads api (set AP)', ['ASIA[0-9A-Z]{16}']],
  ['statsig server secret in nextjs route handler (typescript) (set AP)', ['client-[A-Za-z0-9]{43}']],
  ['amplitude secret key in export api curl (set AP)', ['(?<=AMPLITUDE_API_KEY=)[0-9a-f]{32}']],
  ['claude code Write tool_use with escaped k8s secret yaml', ['AcmeECOM']],
  ['claude code kubectl get secret -o yaml base64 db password', ['(?<=DB_NAME: )bGVkZ2Vy', 'bGVkZ2VyX2FwcA==']],
  ['argo cd declarative repository secret github fine-grained pat', ['(?<=  type: )git', '(?<=  url: )https://github\\.com/acme/platform-charts', '(?<=  username: )acme-argocd-bot', '(?<=  project: )platform']],
  ['flux create secret helm --export artifactory token', ['(?<=  username: )ci-flux']],
  ['terraform.tfstate random_password result', ['\\$2a\\$10\\$[\\w./]{53}']],
  ['pulumi stack export --show-secrets RandomPassword result', ['\\$2a\\$10\\$[\\w./]{53}']],
]);

/** The text with the secret (every place it occurs) and each place `also` matches as one pattern for markers. */
function redactedShape(text: string, secret: string, also: readonly string[]): RegExp {
  const quote = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const parts = text.split(new RegExp([quote(secret), ...also].join('|')));
  return new RegExp(`^${parts.map(quote).join('\\[REDACTED:[a-z0-9_]+\\]')}$`, 's');
}

test('the credential corpus holds at least 100 formats, each secret in its text', () => {
  assert.ok(credentials.length >= 100, `${credentials.length} formats`);
  assert.equal(new Set(credentials.map((c) => c.name)).size, credentials.length, 'names are unique');
  for (const c of credentials) assert.ok(c.text.includes(c.secret) && c.secret.length >= 3, c.name);
});

test('every credential is redacted: the secret is gone and the rest of its text survives byte-exact', () => {
  const r = new Redactor();
  const failures: string[] = [];
  for (const c of credentials) {
    const out = r.redact(c.text);
    if (KNOWN_MISSES.has(c.name)) {
      assert.equal(out, c.text, `${c.name} is listed as missed but is now caught: remove it from KNOWN_MISSES`);
      continue;
    }
    // (a secret a text repeats, as a transcript does in its tool result and its record of the output, goes everywhere)
    if (out.includes(c.secret) || !redactedShape(c.text, c.secret, ALSO_HIDDEN.get(c.name) ?? []).test(out)) {
      failures.push(`${c.name}:\n    ${JSON.stringify(c.text)}\n => ${JSON.stringify(out)}`);
    }
  }
  assert.deepEqual(failures, []);
  assert.ok((credentials.length - KNOWN_MISSES.size) / credentials.length >= 0.95);
});

test('the same credentials in identifier fields get keyed markers; the text around them survives', () => {
  const r = new Redactor({ key: Buffer.alloc(32, 7) });
  for (const c of credentials) {
    if (KNOWN_MISSES.has(c.name)) continue;
    const out = r.redactId(c.text);
    assert.ok(!out.includes(c.secret), c.name);
    assert.match(out, /\[REDACTED:[a-z0-9_]+:[0-9a-f]{12}\]/, c.name);
  }
});

interface Example {
  file: string;
  context: string;
  secret: string;
}

test('real code and tool output pass through byte-exact (0 false positives)', () => {
  const r = new Redactor();
  const dir = join(FIXTURES, 'clean');
  const examples = JSON.parse(readFileSync(join(FIXTURES, 'clean-examples.json'), 'utf8')) as Example[];
  const files = readdirSync(dir).sort();
  let bytes = 0;
  for (const file of files) {
    const text = readFileSync(join(dir, file), 'utf8');
    bytes += Buffer.byteLength(text);
    // Documentation examples are catches: expected as the text with each one's secret replaced.
    let expected = text;
    const mine = examples.filter((e) => e.file === file);
    for (const e of mine) {
      assert.ok(expected.includes(e.context), `${file}: example context not found`);
      expected = expected.replace(e.context, e.context.replace(e.secret, '\u0000'));
    }
    const out = r.redact(text).replace(/\[REDACTED:[a-z0-9_]+\]/g, '\u0000');
    if (out === expected) continue;
    const a = expected.split('\n');
    const b = out.split('\n');
    const diff = a.flatMap((line, i) => (line === b[i] ? [] : [`${file}:${i + 1}: ${line.slice(0, 160)}\n   => ${(b[i] ?? '').slice(0, 160)}`]));
    assert.fail(`false positives:\n${diff.join('\n')}`);
  }
  assert.ok(files.length >= 30 && bytes >= 300_000, `${files.length} files, ${bytes} bytes`);
});
