import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { BUILTIN_RULES, PRINTS_CREDENTIAL_COMMAND, REDACTION_RULESET_VERSION, Redactor, applyRule, credentialOutput } from '../../../src/core/log/redaction';

/** Each `[text, secret]`: the secret is gone from the redacted text. */
function assertHidden(r: Redactor, cases: ReadonlyArray<readonly [string, string]>): void {
  for (const [text, secret] of cases) assert.equal(r.redact(text).includes(secret), false, `${secret} in ${r.redact(text)}`);
}

/** Each text comes out of redaction byte-exact. */
function assertKept(r: Redactor, texts: readonly string[]): void {
  for (const kept of texts) assert.equal(r.redact(kept), kept);
}

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

// Quoted values keep their quotes (`"password": "[REDACTED:secret]"`), so JSON and code stay valid.
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
    '# .env\nDATABASE_PASSWORD=[REDACTED:secret]\nexport STRIPE_SECRET_KEY="[REDACTED:stripe_key]"\nAPI_KEY: \'[REDACTED:secret]\'\nDEBUG=true\n',
  );
  assert.equal(r.redact('  password: "hunter2",\nPASSWORD=hunter2'), '  password: "[REDACTED:secret]",\nPASSWORD=[REDACTED:secret]');
  assert.equal(r.redact('{"client_secret": "abcd-efgh-1234", "name": "x"}'), '{"client_secret": "[REDACTED:secret]", "name": "x"}');
  assert.equal(r.redact(`postgres://admin:${URL_PASSWORD}@db.example.com:5432/app`), 'postgres://admin:[REDACTED:url_password]@db.example.com:5432/app');
  assert.equal(r.redact('Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345'), 'Authorization: Bearer [REDACTED:bearer_token]');
});

// Rule set 5: secrets told by where they stand in a command or a call, not by a name or a vendor's shape.
test('secrets set through a CLI, handed to a client or a signer, in a webhook path or printed by a command are redacted', () => {
  const r = new Redactor();
  const cases: Array<[string, string]> = [
    ['gh secret set DEPLOY_TOKEN --body "tqYQY2lkC25wSviAgFucip1OCtZw"', 'gh secret set DEPLOY_TOKEN --body "[REDACTED:secret]"'],
    ['netlify env:set STRIPE_SECRET_KEY zzwrbd3jlfmKA7ZcwulhKcDa', 'netlify env:set STRIPE_SECRET_KEY [REDACTED:secret]'],
    ['dotnet user-secrets set "Smtp:Password" "eYEO5yROUqqIK5yQ"', 'dotnet user-secrets set "Smtp:Password" "[REDACTED:secret]"'],
    ['az keyvault secret set --vault-name kv1 --name db --value Xb7#kq2LmP9v', 'az keyvault secret set --vault-name kv1 --name db --value [REDACTED:secret]'],
    ['doppler secrets set SENTRY_DSN=Gh7tQ2mXv9Lp', 'doppler secrets set SENTRY_DSN=[REDACTED:secret]'],
    ['echo "bMJM0tCA4vdnqoby02ga" | wrangler secret put OPENAI_KEY', 'echo "[REDACTED:password]" | wrangler secret put OPENAI_KEY'],
    ['const t = jwt.sign({ sub: id }, "tLOBnKF2pQTqxnTLigzaCzB9", { expiresIn: "1h" });', 'const t = jwt.sign({ sub: id }, "[REDACTED:secret]", { expiresIn: "1h" });'],
    ['sig = hmac.new(b"G2xtWVM7tAooAMR1MiUvrh0m", body, sha256)', 'sig = hmac.new(b"[REDACTED:secret]", body, sha256)'],
    ['DriverManager.getConnection("jdbc:postgresql://db/app", "app", "NkmMZli8qw9RgeKK")', 'DriverManager.getConnection("jdbc:postgresql://db/app", "app", "[REDACTED:secret]")'],
    ['new Ably.Realtime("owQ2hZ.APfWq6:TBZASDJvKKmKo-6ujnhYSW")', 'new Ably.Realtime("[REDACTED:secret]")'],
    // the first of two generated literals is the account's id; a hex one counts only after it
    ['plivo.RestClient("MAI081HTO4W2BGCDQW22", "q6WmaDJCZtpT5wyPXlnAvZRi")', 'plivo.RestClient("MAI081HTO4W2BGCDQW22", "[REDACTED:secret]")'],
    ['Client("AC1479907c3e798ba1123726be8588663f", "901a027dfda13f0cdbe03287f0b7020b")', 'Client("AC1479907c3e798ba1123726be8588663f", "[REDACTED:secret]")'],
    ['StreamChat.getInstance("k9x2mq7bz4dn", "9bo1b700ocwqerfj47kfhczvymtbruma0ofn")', 'StreamChat.getInstance("k9x2mq7bz4dn", "[REDACTED:secret]")'],
    ['b2 authorize-account 0012a3b4c5d6e7f0000000001 K00Ab3dE7fG2hJ4kLmNpQrStUvWx', 'b2 authorize-account 0012a3b4c5d6e7f0000000001 [REDACTED:secret]'],
    ['cf auth deploy Xq9vL2mPk7RtZ4wB', 'cf auth deploy [REDACTED:secret]'],
    ['https://maker.ifttt.com/trigger/done/with/key/ycHaLR6x3bUKoVVNH56jYN', 'https://maker.ifttt.com/trigger/done/with/key/[REDACTED:secret]'],
    ['curl -X POST https://hooks.zapier.com/hooks/catch/9722814/mgzdn0g/', 'curl -X POST https://hooks.zapier.com/hooks/catch/[REDACTED:secret]/'],
    ['$ aws ecr get-login-password --region us-east-1\neyJwYXlsb2FkIjoiQWJDZEVmR2hJams', '$ aws ecr get-login-password --region us-east-1\n[REDACTED:secret]'],
    // a key as the user of `curl -u key:`, redacted by its shape first, keeps one whole marker
    ['curl https://api.lob.com/v1/addresses -u live_0a1b2c3d4e5f60718293a4b5c6d7e8f9012:', 'curl https://api.lob.com/v1/addresses -u [REDACTED:api_key]:'],
    // rule set 5, second round (sets F and G)
    ['curl -u 0a1b2c3d4e5f60718293a4b5c6d7e8f901234567: https://api.checkr.com/v1/candidates', 'curl -u [REDACTED:password]: https://api.checkr.com/v1/candidates'],
    ['client = smartsheet.Smartsheet("Zx8kQ2mLp4Rt7Vb1Nc6Hd9Jf3Gs5Wa0Ey2Ui")', 'client = smartsheet.Smartsheet("[REDACTED:secret]")'],
    ['printf "Xb7kq2LmP9vQ4tRz8wN3" | circleci context store-secret github acme PROD_KEY', 'printf "[REDACTED:password]" | circleci context store-secret github acme PROD_KEY'],
    ["printf 'Xb7kq2LmP9vQ4tRz' | docker secret create db_password -", "printf '[REDACTED:password]' | docker secret create db_password -"],
    ['security add-generic-password -a ci -s npm-token -w Xb7kq2LmP9vQ4tRz', 'security add-generic-password -a ci -s npm-token -w [REDACTED:password]'],
    ['      storePassword "Xb7kq2LmP9vQ4tRz"', '      storePassword "[REDACTED:secret]"'],
    ['ANDROID_KEYSTORE_BASE64=/u3+7Q' + 'AAAAAgAAAAEAAAABAAZ1cGxvYWQ'.repeat(4), 'ANDROID_KEYSTORE_BASE64=[REDACTED:private_key]'],
    ['curl -X POST -d {} https://api.netlify.com/build_hooks/5f0e1d2c3b4a59687f0e1d2c', 'curl -X POST -d {} https://api.netlify.com/build_hooks/[REDACTED:secret]'],
    ["-H \"Authorization: Basic $(printf ':k3x9q2m7z4b8n1v6c5x0l2k9j8h7g6f5d4s3a2q1w0e9r8t7y6u5' | base64)\"", "-H \"Authorization: Basic $(printf ':[REDACTED:password]' | base64)\""],
    ['<add key="https://api.nuget.org/v3/index.json" value="oy2abcdefghijklmnopqrstuvwxyz0123456789abcdefg" />', '<add key="https://api.nuget.org/v3/index.json" value="[REDACTED:nuget_key]" />'],
    ['{"bearer": {"repo.acme.io": "Xb7kq2LmP9vQ4tRz8wN3"}, "github-oauth": {"github.com": "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"}}', '{"bearer": {"repo.acme.io": "[REDACTED:secret]"}, "github-oauth": {"github.com": "[REDACTED:secret]"}}'],
    ['sentinel auth-pass mymaster Xb7kq2LmP9vQ4tRz', 'sentinel auth-pass mymaster [REDACTED:password]'],
    // rule set 5, third round (set I)
    ['%any %any : PSK "Xb7kq2LmP9vQ4tRz8wN3"', '%any %any : PSK "[REDACTED:password]"'],
    ['netbird up --setup-key 4F1B2C3D-1111-2222-3333-444455556666', 'netbird up --setup-key [REDACTED:secret]'],
    ['curl -X POST https://api.render.com/deploy/srv-18ugygfqhp6guuip?key=DTs5zkmXs8s', 'curl -X POST https://api.render.com/deploy/[REDACTED:secret]'],
    ['IOS_DIST_CERT_P12_BASE64=MIIK' + 'Yn3fzJDDUC76NQVy4oFa'.repeat(4), 'IOS_DIST_CERT_P12_BASE64=[REDACTED:private_key]'],
    // rule set 6 (set J)
    ['dataSource.setPassword("DMjg84y6RIYnFdow");', 'dataSource.setPassword("[REDACTED:secret]");'],
    ['opts.with_token("fQQmThHx-dSvSyfT_uJ8hzUQNx7HNDhS")', 'opts.with_token("[REDACTED:secret]")'],
    ['        - name: STRIPE_WEBHOOK_SECRET\n          value: "z5QxLS4MqThEzLhygiBCtmR1Y5OK"', '        - name: STRIPE_WEBHOOK_SECRET\n          value: "[REDACTED:secret]"'],
    ['{"name": "DB_PASSWORD", "value": "hunter2hunter2"}', '{"name": "DB_PASSWORD", "value": "[REDACTED:secret]"}'],
    ['aws cloudformation deploy --parameter-overrides ParameterKey=DbPassword,ParameterValue=Xy7abc123q', 'aws cloudformation deploy --parameter-overrides ParameterKey=DbPassword,ParameterValue=[REDACTED:secret]'],
    ['proxy_set_header Authorization "Basic c3ZjOlQ3ZWY4aThMeVBicHQxN1BndA==";', 'proxy_set_header Authorization "[REDACTED:basic_auth]";'.replace('"[', '"Basic [')],
    // a generated password of letters alone is no class name
    ['PASSWORD=GjhhTSDzFjvrnMaM', 'PASSWORD=[REDACTED:secret]'],
    ['[database]\nuser = app\npassword = GjhhTSDzFjvrnMaM', '[database]\nuser = app\npassword = [REDACTED:secret]'],
    // rule set 6, second round (set K)
    ["CREATE USER 'app'@'%' IDENTIFIED BY 'erDOVGyYm19jtFt1';", "CREATE USER 'app'@'%' IDENTIFIED BY '[REDACTED:password]';"],
    ["SET PASSWORD FOR 'bob'@'%' = 'hunter2abc';", "SET PASSWORD FOR 'bob'@'%' = '[REDACTED:password]';"],
    ['metadata = (("x-goog-api-key", "be43d9609f5d05b45dd3f4569003d0956728732d"),)', 'metadata = (("x-goog-api-key", "[REDACTED:secret]"),)'],
    ['https://api.steampowered.com/ISteamUser/GetPlayerSummaries/v2/?key=BD633E3F9B0AD5D14FB5C74051744BDD&steamids=7656', 'https://api.steampowered.com/ISteamUser/GetPlayerSummaries/v2/?key=[REDACTED:secret]&steamids=7656'],
    ['const logtail = new Logtail("nceIp44PwuDQjlaFgbWNg5Dq");', 'const logtail = new Logtail("[REDACTED:secret]");'],
    ["twilio('SK0123456789abcdef0123456789abcdef', 'zmwbkwQRGW4fOA5UB0nz4bHh4krZL1cn', { accountSid: 'AC3359f4ffe64b78e8c5217b4be097cd81' })", "twilio('[REDACTED:twilio_key]', '[REDACTED:secret]', { accountSid: 'AC3359f4ffe64b78e8c5217b4be097cd81' })"],
    ['admin:$apr1$PDI0uaWH$4YIqH3UPwWCv5ClQjY5dlA', 'admin:[REDACTED:password_hash]'],
    ['hash = "$2b$12$KIXQJ4n5s6t7u8v9w0x1yO1a2b3c4d5e6f7g8h9i0j1k2l3m4n5o6"', 'hash = "[REDACTED:password_hash]"'],
    // rule set 6, third round (set M): an SDK's API class built from a hex key
    ['dashboard = meraki.DashboardAPI("8b2159ac746cecb704afcbffb49c71fb9aa5cbfd")', 'dashboard = meraki.DashboardAPI("[REDACTED:secret]")'],
    // rule set 6, fourth round (set N): a literal as a secret-named environment variable's default; a generated value before a comma
    ['let key = std::env::var("API_KEY").unwrap_or_else(|_| "IdKYtKr3lxs4wdgebGo7SoTPw6jaaFOq".to_string());', 'let key = std::env::var("API_KEY").unwrap_or_else(|_| "[REDACTED:secret]".to_string());'],
    ['const k = process.env.STRIPE_SECRET || "Xb7kq2LmP9vQ4tRz";', 'const k = process.env.STRIPE_SECRET || "[REDACTED:secret]";'],
    ['token = os.getenv("GITHUB_TOKEN", "Xb7kq2LmP9vQ4tRz")', 'token = os.getenv("GITHUB_TOKEN", "[REDACTED:secret]")'],
    ['key = ENV.fetch("SECRET_KEY_BASE", "dev-secret-9f8e")', 'key = ENV.fetch("SECRET_KEY_BASE", "[REDACTED:secret]")'],
    ['psql -h db -p 5432 -U app -w "${DB_PASSWORD:-Xb7kq2LmP9}"', 'psql -h db -p 5432 -U app -w "${DB_PASSWORD:-[REDACTED:secret]}"'],
    ['mount -t cifs //nas/share /mnt -o username=ops,password=N8MxAreOtfwUTZqV,vers=3.0', 'mount -t cifs //nas/share /mnt -o username=ops,password=[REDACTED:secret],vers=3.0'],
    // rule set 6, fifth round (set O)
    ['MNEMONIC="alpha beach angle apple anchor absorb anchor badge blade album armor advice"', 'MNEMONIC="[REDACTED:private_key]"'],
    ["wallet = { seed_phrase: 'armor advice alpha beach angle apple anchor absorb anchor badge blade album' }", "wallet = { seed_phrase: '[REDACTED:private_key]' }"],
    ['bitcoin-cli importprivkey LCCyUrh2vX21W7fWb7LcTn2YvQSsXtDTrXgnPVQZsbv9WzANY9ZN "cold" false', 'bitcoin-cli importprivkey [REDACTED:private_key] "cold" false'],
    ['-----BEGIN USER NKEY SEED-----\nSUAQXXGY5ABFQBJFFKK4FUIQBJFXNU6WCETZDM32D5DWKU2NEQN3SYPR5B\n------END USER NKEY SEED------', '[REDACTED:private_key]'],
    ['vault write auth/approle/login role_id=a7907d1e-43d4-ebbe-7ce5-7c85b998833d secret_id=ce650dd9-c99b-d68e-adf9-9a2b96bc6f91', 'vault write auth/approle/login role_id=a7907d1e-43d4-ebbe-7ce5-7c85b998833d secret_id=[REDACTED:secret]'],
    ['curl -H "Authorization: Basic $(echo -n de7b7e0db45a00086cad41d1e638c90e: | base64)" https://build-api.cloud.unity3d.com', 'curl -H "Authorization: Basic $(echo -n [REDACTED:password]: | base64)" https://build-api.cloud.unity3d.com'],
    ['const provider = new ethers.InfuraProvider("mainnet", "be5148e7b507cae66ba8f0ef039d918f", "5f2da933352b8f90a9c1fcaf3033edf1");', 'const provider = new ethers.InfuraProvider("mainnet", "be5148e7b507cae66ba8f0ef039d918f", "[REDACTED:secret]");'],
    ["mailjet = Client(auth=(api_key, 'beddbc2d2c922e837f0d1eb0b5707b4d'), version='v3.1')", "mailjet = Client(auth=(api_key, '[REDACTED:password]'), version='v3.1')"],
    // a pasted terminal session: the one-word output of a command that prints a credential, up to the next prompt
    ['$ pass show servers/db\nXb7kq2LmP9vQ4tRz\n$ ls\nnode_modules', '$ pass show servers/db\n[REDACTED:secret]\n$ ls\nnode_modules'],
  ];
  for (const [text, want] of cases) assert.equal(r.redact(text), want, text);
});

// Rule set 7 (set Q): generic secrets by the command that prints or sets them, a SQL row's column, a labelled output line.
test('rule set 9: markup pairs, later call arguments and .pgpass lines inside JSON are redacted; code that only names a secret is kept', () => {
  const r = new Redactor();
  const key = '42de0d7034e93050f3b2fa3bffce0f2f';
  const cases: Array<[string, string]> = [
    // a plist's key and string, Android's and Java's named elements
    ['\t<key>ContentfulDeliveryToken</key>\n\t<string>h9PWXePyKnOWWMS39cZKzuhF1bAhTnxvJMQlC6gm3HA</string>', '\t<key>ContentfulDeliveryToken</key>\n\t<string>[REDACTED:secret]</string>'],
    ['<key>Password</key><string>Hunter22!x</string>', '<key>Password</key><string>[REDACTED:secret]</string>'],
    ['<string name="stripe_secret">Xk29fQwL0pTz7mNb4vRc8yH</string>', '<string name="stripe_secret">[REDACTED:secret]</string>'],
    ['<entry key="db.password">Hunter22!x</entry>', '<entry key="db.password">[REDACTED:secret]</entry>'],
    // a secret's quoted name as a later argument, and a literal inside a literal
    [`buildConfigField("String", "OWM_API_KEY", "\\"${key}\\"")`, 'buildConfigField("String", "OWM_API_KEY", "\\"[REDACTED:secret]\\"")'],
    ['resValue("string", "maps_api_key", "Xk29fQwL0pTz7mNb4vRc")', 'resValue("string", "maps_api_key", "[REDACTED:secret]")'],
    // a .pgpass line inside another agent's JSON record
    ['{"content":"db01.internal:5432:app_prod:app:Qwfquq11#vul\\nx","n":1}', '{"content":"db01.internal:5432:app_prod:app:[REDACTED:password]\\nx","n":1}'],
    ['{"out":"a\\ndb01:5432:app:app:Qwfquq11#vul"}', '{"out":"a\\ndb01:5432:app:app:[REDACTED:password]"}'],
    ['db01.internal:5432:app_prod:app:Qwfquq11#vul', 'db01.internal:5432:app_prod:app:[REDACTED:password]'],
    // still secrets: a password's number in an env file, a quoted one in code
    ['DB_PASSWORD=123456', 'DB_PASSWORD=[REDACTED:secret]'],
    ['const password = "123456";', 'const password = "[REDACTED:secret]";'],
  ];
  for (const [input, want] of cases) assert.equal(r.redact(input), want, input);
  assertKept(r, [
    // names and prose in markup and calls
    '<string name="app_name">Weather</string>',
    '\t<key>NSCameraUsageDescription</key>\n\t<string>We use the camera to scan tokens.</string>',
    'buildConfigField("String", "API_BASE_URL", "\\"https://api.acme.io\\"")',
    'consumer = Consumer("key", "secret", "application")',
    // /etc/shadow and passwd lines are not .pgpass lines
    'root:*:19683:0:99999:7:::\ndaemon:*:19683:0:99999:7:::',
    'daemon:*:1:1:daemon:/usr/sbin:/usr/sbin/nologin',
    // a table drawn in a comment after a secret's name is no YAML block (undici's SOCKS5 client)
    '    // |VER | ULEN |  UNAME   | PLEN |  PASSWD  |\n    // +----+------+----------+------+----------+\n    // | 1  |  1   | 1 to 255 |  1   | 1 to 255 |',
    // an element named for a secret, then a quoted string that is not its text (zsh's curl completion)
    "  --oauth2-bearer'[OAuth 2 Bearer Token]':'<token>' \\\n  --proto'[Enable/disable PROTOCOLS]':'<protocols>' \\",
    // code: members set from variables, statements, numbers, constants, lists of names, setting keys, types, templates
    '                    self.token = nextchar',
    'print("shlex: token=EOF")',
    '            token = comment;',
    '                password = strict;',
    'export const SIGN_IN_SUBMIT_PASSWORD = 100004;',
    '    IDTOKEN_TOKEN_REFRESHTOKEN: "id_token token refresh_token",',
    'const ENCRYPTION_KEY = "msal.cache.encryption";',
    'export const SIGNIN_TOKEN = "/oauth2/v2.0/token";',
    '    idToken: string[];',
    ' * Credential: <home_account_id*>-<environment>-<credential_type>-<client_id>-<realm*>-<target*>',
    '\t\t$last_update_token = "\\"$last_update_token\\"";',
    // colours, selectors, regexes, permissions and modes; appended or joined strings; calls and types
    "    Token:              '#ffffff',", '    password: "[type=password]",', "jsonnet_token = r'[^\\W\\d]\\w*'",
    '    id-token: write # required for npm provenance via OIDC', "    credentials: 'include',",
    "MSG_INVALID_SECRET += 'or a KeyObject';", '        creds = " --username=" + auth',
    'SERVER_AUTH = ObjectIdentifier("1.3.6.1.5.5.7.3.1")', '        key = arg.slice(-1)[0];', '    readonly operatorToken: TOperator;',
    '    passphrase: Optional[PassphraseCallableT],', '                            resource_owner_secret: str):',
    // prose and docstrings: a word after "token", "default token values", "Pass x=True", a field list, a constant's name
    '**   will not match documents that contain the token "1st" (as the tokenizer',
    ' "comment": "Implement DesignToken root-element registration for CSS custom property emission of default token values",',
    '    Pass type_comments=True to get back type comments where the syntax allows.',
    '        :param token: REQUIRED.  The token that the client wants to get revoked.',
    ' *       TOKEN: "TOKEN_STRING", // => replace all "TOKEN_STRING" with  `**********`.',
    // a command line's next flag is no credential; a word and its version in a deploy URL is no hook secret
    '--allow-interactive-authorization=no --augment-creds=no',
    '<distMgmtReleasesUrl>https://repository.apache.org/service/local/staging/deploy/maven2</distMgmtReleasesUrl>',
    // a dotted name spelled by its value, a port, a path from a variable, Perl's members, an index into a table
    '    AttributeOID.CHALLENGE_PASSWORD: "challengePassword",', 'kpasswd\t\t464/tcp', 'private_key\t= $dir/private/cakey.pem# The private key',
    '    pass     => $self->{+PASS},', '$rv = $this->{ds}->bind($this->{binddn}, password => $this->{bindpasswd});',
    "    Token:               colors['base0'],",
    // a header's name as its value; a member of a token object set from a variable (markdown-it)
    '    customHeaders["X-Market-AccountToken"] = "accountTokenHeader";', '  customHeaders["x-ms-continuationtoken"] = "continuationToken";',
    'function entity(state) {\n  if (found) {\n    token.content = decoded\n    token.markup = match\n  }\n}',
  ]);
  // Code inside blocks, declarations, ternaries, labels in strings, literal types, /etc/nsswitch.conf
  assertKept(r, [
    'func f() {\n\tw.token = params\n\tline.Token = tokens\n\tpwd = name // always absolute\n}',
    'def close(self):\n    if self.open:\n        token = tokens\n',
    'const (\n\tSIOCSLIFTOKEN                 = -0x7f879679\n\tsocksAuthMethodUsernamePassword    socksAuthMethod = 0x02 // use username/password\n)',
    'type rw struct {\n\treaderPass uint32   // number of pending readers to skip readers list\n}',
    'func f() {\n\thello.supportedSignatureAlgorithms = testingOnlyForceClientHelloSignatureAlgorithms\n}',
    '    my $out = $as->{pass} ? "PASS" : "FAIL";', '    messageId: isPrivate ? "restrictedPrivate" : "restricted",',
    '\tprint("unknown token: ", token, "\\n")', '  private_key: "_RSAPrivateKey",',
    "  root_key: 'HKLM' | 'HKEY_LOCAL_MACHINE' | 'HKCU' | 'HKEY_CURRENT_USER' |",
    '# /etc/nsswitch.conf\npasswd:         files systemd\ngroup:          files\nshadow:         files',
  ]);
  // ...while a value that holds only the bare secret word is still a literal, and so is a member's generated value;
  // a block's quoted or generated values and a shell function's assignments are still secrets.
  for (const leak of [
    'POSTGRES_PASSWORD: mysecretpassword', 'customHeaders["X-Api-Token"] = "tokenvaluesecretish"', 'function f() {\n  token.content = Zk39aQ0rT7bXw2Lm\n}',
    'deploy() {\n  export DB_PASSWORD=hunter2\n}', 'func f() {\n\tpassword = "hunter2"\n}', 'func f() {\n\ttoken = ghx8Qm2LpZr7TkW4vB9n\n}',
    'passwd: hunter2', "  password: 'abc123xyz' || fallback,", 'my $pw = "x" ? "a" : "Zk39aQ0rT7bXw2Lm";\npassword: s3cr3tZ9',
  ]) {
    assert.notEqual(r.redact(leak), leak, leak);
  }
  // A base64 value ending in "==" after a flag is still a token.
  const influx = 'ilO7BBt27HC43VY1zgIj2E1R_zdYYJr9u--ltOKeec7_sXmBIWtNu_E-_en6Qpi4BLdu81jsD-NImnAk5aBHAA==';
  assert.equal(r.redact(`influx write --bucket b --token ${influx} -f data.lp`).includes(influx), false);
});

test('rule set 9, last round (set U): sensitive objects, URLs in errors and queries, a token as a URL\'s user, Redis MONITOR\'s AUTH', () => {
  const r = new Redactor();
  const cases: Array<[string, string]> = [
    // terraform output -json: the object says it is sensitive, whatever its name; or its name says so
    ['{\n  "db_admin": {\n    "sensitive": true,\n    "type": "string",\n    "value": "FsG5=ag?o!b0O(XsIn7u"\n  }\n}', '{\n  "db_admin": {\n    "sensitive": true,\n    "type": "string",\n    "value": "[REDACTED:secret]"\n  }\n}'],
    ['"api_token": { "type": "string", "value": "Zq8xv2LmP4nR7tK9wB3c" }', '"api_token": { "type": "string", "value": "[REDACTED:secret]" }'],
    // a DSN whose scheme lost its colon, in a parser's error
    ["ArgumentError: Could not parse rfc1738 URL from string 'postgresql+psycopg2//analytics:Catgpj36-vma@pg.internal:5432/warehouse'", "ArgumentError: Could not parse rfc1738 URL from string 'postgresql+psycopg2//analytics:[REDACTED:url_password]@pg.internal:5432/warehouse'"],
    // a password in a JDBC URL's query is a value, not code (`Psqsel09.whu` is no member access)
    ['jdbcUrl, jdbc:postgres://db01.internal:5432/shop?user=shop&password=Psqsel09.whu&sslmode=require', 'jdbcUrl, jdbc:postgres://db01.internal:5432/shop?user=shop&password=[REDACTED:secret]&sslmode=require'],
    // a token as a URL's user with an empty password (Gemfury)
    ["global.extra-index-url='https://FDnrhKQ3qrnWOcA7T4K3:@pypi.fury.io/acme/'", "global.extra-index-url='https://[REDACTED:url_password]:@pypi.fury.io/acme/'"],
    // Redis MONITOR's echo of AUTH, with and without a user
    ['1764843123.456789 [0 10.0.2.15:53122] "AUTH" "w4nqefqekannodx29nocd23idcxu"', '1764843123.456789 [0 10.0.2.15:53122] "AUTH" "[REDACTED:password]"'],
    ['1764843123.456789 [0 10.0.2.15:53122] "auth" "default" "Hunter22!x"', '1764843123.456789 [0 10.0.2.15:53122] "auth" "default" "[REDACTED:password]"'],
  ];
  for (const [input, want] of cases) assert.equal(r.redact(input), want, input);
  assertKept(r, [
    '"db_endpoint": { "sensitive": false, "type": "string", "value": "acme-prod.cluster-c9x2k1.eu-west-1.rds.amazonaws.com:5432" }',
    '"label": { "value": "Enter your password" }',
    'see //comments:here@example for more',
    'https://user:@example.com/',
    '1764843123.457201 [0 10.0.2.15:53122] "SELECT" "2"',
    // go test's result lines; a field's word as its value; a hex digest that starts like a ClickHouse key
    '--- PASS: TestOutputWithSubtest/sub_test (0.00s)', '    --- PASS: TestTags/x_testtag_y (0.04s)', '"user.key":  "value",',
    'sha 4b1d0e9f2c3a4b5c6d7e8f90a1b2c3d4e5f6a7b8c9d0',
  ]);
  // two of gitleaks' vendor formats, bare (a blind check of its current rules found them missing)
  assert.equal(r.redact('found: 4b1dfKDtdnjS4hfAE18vNLpsqDJuL2qeXSjIpSdcpa'), 'found: [REDACTED:clickhouse_key]');
  assert.equal(r.redact('found: duffel_test_BJGGeTY5HL6Cs-alsnpvA3EEPkSnwG-HjPK2JSBjl4J'), 'found: [REDACTED:duffel_token]');
});

test('rule set 9, code round (set Y): Yarn\'s npmAuthIdent, labelled values, log-prefixed settings, conda and Deno tokens, bare AWS secret keys after their name', () => {
  const r = new Redactor();
  const pw = 'Jyrpij44#ijr';
  const awsKey = 'dh2EEDbHn+84fDCNhsioNNChRbYDcs+peSlpVnjf';
  for (const [text, secret] of [
    [`npmScopes:\n  acme:\n    npmAuthIdent: "frontend-ci:${pw}"\n`, pw],
    [`{\n  "label": "password",\n  "value": "e*D*o846s^ky&54LpqfSAkLm"\n}`, 'e*D*o846s^ky&54LpqfSAkLm'],
    [`[DEBUG]   (f) locations = [filesystem:src/main/resources/db/migration]\n[DEBUG]   (f) password = Bbwfnx74!oez\n`, 'Bbwfnx74!oez'],
    ['channels:\n  - https://conda.anaconda.org/t/xg-5b39a0e2-cd63-e09b-4d3e-fdb3c2b83a95/acme-private\n', 'xg-5b39a0e2-cd63-e09b-4d3e-fdb3c2b83a95'],
    ['DENO_AUTH_TOKENS=f6Vk4eQbIw2mvXb7Nsg6KcatqlVES0PCBYodpnXI@raw.githubusercontent.com', 'f6Vk4eQbIw2mvXb7Nsg6KcatqlVES0PCBYodpnXI'],
    [`$ aws sts assume-role --role-arn arn:aws:iam::412398765012:role/ci --role-session-name s --query 'Credentials.[SecretAccessKey,Expiration]'\n[\n    "${awsKey}",\n    "2026-12-27T11:42:09+00:00"\n]`, awsKey],
  ]) {
    const out = r.redact(text);
    assert.equal(out.includes(secret), false, `${secret} in ${out}`);
  }
  // Only the password of Yarn's ident, and only the token of each Deno entry: the user and the hosts stay.
  assert.equal(r.redact(`npmAuthIdent: "frontend-ci:${pw}"`), 'npmAuthIdent: "frontend-ci:[REDACTED:secret]"');
  assert.match(r.redact('DENO_AUTH_TOKENS=a1b2c3d4e5f6g7h8@deno.land;user:Pw0rd!xyz9@example.com'), /^DENO_AUTH_TOKENS=\[REDACTED:token\]@deno\.land;\[REDACTED:token\]@example\.com$/);
  assertKept(r, [
    '{\n  "label": "username",\n  "value": "staging_admin"\n}',
    '{ "name": "notesPlain", "value": "rotated quarterly; ask #platform" }',
    '[INFO] (f) password = ${env.DB_PASSWORD}',
    'channels:\n  - https://conda.anaconda.org/conda-forge\n  - https://repo.anaconda.com/pkgs/main',
    // after the name, a git hash and an ARN are no keys
    'SecretAccessKey rotation landed in 3f9a1c2e7b4d6a8f0e1c3b5d7f9a2c4e6b8d0f1a; see arn:aws:iam::412398765012:role/ci-deployer',
  ]);
});

test('rule set 9, set Z: daemons\' settings and lines for shared secrets (slapd, ldap.conf, sssd, offlineimap, HAProxy, Cisco, Dovecot, Redis ACLs, net-snmp)', () => {
  const r = new Redactor();
  assertHidden(r, [
    ['suffix          "dc=example,dc=de"\nrootpw          kZJfvQsttJ6a\n', 'kZJfvQsttJ6a'],
    ['binddn cn=nss-proxy,ou=service,dc=example,dc=de\nbindpw 1PHcy4N5Jp6XxZiH\n', '1PHcy4N5Jp6XxZiH'],
    ['[domain/corp]\nldap_default_authtok_type = password\nldap_default_authtok = 2xWMGLguv3eX5eZHUNGR\n', '2xWMGLguv3eX5eZHUNGR'],
    ['remoteuser = jonas@example.me\nremotepass = xndr6u3mnohuq4df\n', 'xndr6u3mnohuq4df'],
    ["KADMIN_PRINC=\"provisioner/admin@$REALM\"\nKADMIN_PW='Autumn2010!um'\n", 'Autumn2010!um'],
    ['listen stats\n    stats enable\n    stats auth admin:Azytfk46!vvi\n', 'Azytfk46!vvi'],
    ['crypto isakmp key qUnrxIB4l2D7OPvP address 203.0.113.45\n', 'qUnrxIB4l2D7OPvP'],
    ['noreply@example.nl:{PLAIN}Winter2013#lb:5000:5000::/var/vmail/example.nl/noreply::', 'Winter2013#lb'],
    ['user default off\nuser sidekiq on >1912e36a8d5e26d92c1f511c9b99bc82 ~sidekiq:* &* +@all -@dangerous\n', '1912e36a8d5e26d92c1f511c9b99bc82'],
    ['createUser librenms SHA-256 "basil-quarry-ember2" AES "copper-lantern-77x"\n', 'basil-quarry-ember2'],
    ['createUser librenms SHA-256 "basil-quarry-ember2" AES "copper-lantern-77x"\n', 'copper-lantern-77x'],
    ['$ sudo cat /etc/zabbix/zabbix_agent2.psk\n547dd7b2609a55795bd9f7bbec49cb828c405e5c6c7e08a341bdb5a44f97c07e\n', '547dd7b2609a55795bd9f7bbec49cb828c405e5c6c7e08a341bdb5a44f97c07e'],
  ]);
  // ProxySQL's user stays beside its password.
  assert.equal(r.redact('    admin_credentials="admin:GgCXgIDjOyXjtBdM"'), '    admin_credentials="admin:[REDACTED:secret]"');
  assertKept(r, [
    'application/x-pw:x-office-document', // a MIME type
    "HAProxy's `stats auth <user>:<password>`, Dovecot's `{PLAIN}<password>`", // placeholders
    'user healthcheck on nopass -@all +ping +info', 'user app on #9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ~* +@all',
    'echo done > /tmp/log', 'def pwd():\n    return os.getcwd()',
  ]);
});

test('rule set 10 (set AB and Z\'s misses): labels in 20 more languages, debug prints, SOAP, tables\' secret columns, WireGuard, pgbouncer, Nagios', () => {
  const r = new Redactor();
  assertHidden(r, [
    // a label in a language other than English, also inside a compound (`管理员密码`) and as a setting's last word
    ['- 管理员账号：admin\n- 管理员密码：Ohvimc57%lvl\n', 'Ohvimc57%lvl'],
    ['AccessKey ID：LTAI5tu04IWQM8rpbcG8jNrb\nAccessKey 密钥：OgGbM1AfxqxbMm2RNfSqlvONH9j6bL\n', 'OgGbM1AfxqxbMm2RNfSqlvONH9j6bL'],
    ['Kullanıcı adı: deploy\nŞifre: Udazob30!hau\n', 'Udazob30!hau'],
    ['Login: admin_test\nHasło: Nhtzed49%biy\n', 'Nhtzed49%biy'],
    ["  utente: azienda_upload\n  parola d'ordine: Xxpiki85%ayi\n", 'Xxpiki85%ayi'],
    ['BANCO_USUARIO=sistema_hml\nBANCO_SENHA=Ylsgfq91%blc\n', 'Ylsgfq91%blc'],
    ['Lösenord: Tvxqam52!kro', 'Tvxqam52!kro'],
    // debug prints and serialisations
    ['  ["api_secret"]=>\n  string(40) "VXkRlJm3eKyyQP9XHOByzexjIa7hSOnrMQg1jP5e"\n', 'VXkRlJm3eKyyQP9XHOByzexjIa7hSOnrMQg1jP5e'],
    [' {smtp_user,"alerts@mg.acme.dev"},\n {smtp_password,"Lmylsb66#hty"},\n', 'Lmylsb66#hty'],
    ['<wsse:Username>acme_orders</wsse:Username>\n<wsse:Password Type="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText">Lnjuhz98%rqd</wsse:Password>\n', 'Lnjuhz98%rqd'],
    ["mysql> UPDATE integrations SET password = 'Zbdtqv98%qez', updated_at = NOW() WHERE id = 7;", 'Zbdtqv98%qez'],
    // a table's secret column: CSV, psql, Markdown
    ['name,url,username,password,note\nintranet.acme.local,https://intranet.acme.local/login,jdoe,Vynelg91!dzk,\n', 'Vynelg91!dzk'],
    [' id | username | api_token\n----+----------+----------------------------------\n  1 | ci       | q8ZrT2mXv9LbK4wN7pYc3HdF6sJa1Ue5\n', 'q8ZrT2mXv9LbK4wN7pYc3HdF6sJa1Ue5'],
    ['| host | user | password |\n|---|---|---|\n| db1 | app | Rcmzke42#plo |\n', 'Rcmzke42#plo'],
    // WireGuard's preshared key, and the private key of `wg show all dump`'s interface line
    ['$ sudo wg show wg0 preshared-keys\nwIKQPToZ7fP7Q1XQbGMuxwE4UZpOwiVxWjoi+QmI+Op=\tGxDDd9M5zt1kecxmIX6+p/xh2z/om4CGhKIl68SUupi=\n', 'GxDDd9M5zt1kecxmIX6+p/xh2z/om4CGhKIl68SUupi='],
    ['wg0\tyAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\tHIgo9xNzJMWLKASShiTqIybxZ0U3wGLiUeJ1PKf8ykw=\t51820\toff\n', 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk='],
    ['$ sudo cat /etc/pgbouncer/userlist.txt\n"pgbouncer_admin" "iWV8TEDiDhZoPDEDpkNgq1171Zqh"\n', 'iWV8TEDiDhZoPDEDpkNgq1171Zqh'],
    ['$USER1$=/usr/lib64/nagios/plugins\n$USER3$=nagios_mon\n$USER4$=Enklng01#mbs\n', 'Enklng01#mbs'],
  ]);
  // Only the secret's cell, key or field goes: the user, the public key, the other columns stay.
  assert.equal(r.redact('name,url,username,password,note\nintra,https://intra/login,jdoe,Vynelg91!dzk,'), 'name,url,username,password,note\nintra,https://intra/login,jdoe,[REDACTED:secret],');
  assert.equal(r.redact('wIKQPToZ7fP7Q1XQbGMuxwE4UZpOwiVxWjoi+QmI+Op=\tGxDDd9M5zt1kecxmIX6+p/xh2z/om4CGhKIl68SUupi='), 'wIKQPToZ7fP7Q1XQbGMuxwE4UZpOwiVxWjoi+QmI+Op=\t[REDACTED:private_key]');
  assertKept(r, [
    '$ sudo wg show wg0 peers\nwIKQPToZ7fP7Q1XQbGMuxwE4UZpOwiVxWjoi+QmI+Op=\nn1ClCEVrZ1BJGvtEAqjjFzq4I5f2E1GQM110ir3hRvi=', // public keys
    'wIKQPToZ7fP7Q1XQbGMuxwE4UZpOwiVxWjoi+QmI+Op=\t(none)',
    '"green" "#33CC00"\n"red" "#FF0000"', // two quoted strings a line, not about pgbouncer: source-highlight's colours
    '$USER1$=/usr/lib64/nagios/plugins\n$USER3$=nagios_mon',
    'senha = senhaDigitada', 'BANCO_SENHA=${SENHA}', 'Passwort: siehe Tresor', // code, a reference, prose
    '    def _tokenize(self, var, string, orig_token):\n        yield before, orig_token\n        yield from self.tokenize(var.base, VARIABLE)', // indented code is no table
    'option,type,password\n--host,string,no\n--pass,string,yes', // a table of words
    '<token type="keyword">return</token>',
  ]);
});

test('rule set 10 (set AA): Windows, database and enterprise tools\' passwords, also where only their position says so', () => {
  const r = new Redactor();
  assertHidden(r, [
    ["connect('weblogic', 'Bitait12%jeq', 't3://wls-admin01.corp.local:7001')", 'Bitait12%jeq'],
    ['$root = New-Object System.DirectoryServices.DirectoryEntry($ldapPath, "CORP\\svc-orgchart", "FfNOI*yHlDVIx0sPMM7IgS")', 'FfNOI*yHlDVIx0sPMM7IgS'],
    ['Session session = NotesFactory.createSession("domino01.acme.local:63148", "Mail Audit/Servers/Acme", "Tasvob28*mkx");', 'Tasvob28*mkx'],
    ['    Credentials = new WebCredentials("svc-roombooking@contoso.com", "Lkzbrj22%xfw", "CORP"),', 'Lkzbrj22%xfw'],
    ['C:\\>schtasks /create /tn "GL" /tr "D:\\jobs\\gl.cmd" /sc daily /ru CORP\\svc-glexport /rp xJDmRQ4Ya*HacCRVQuFh /rl HIGHEST', 'xJDmRQ4Ya*HacCRVQuFh'],
    ['net use Z: \\\\fs01\\finance Qwpmze71!abc /user:CORP\\svc-finance /persistent:no', 'Qwpmze71!abc'],
    ['[oracle@orahost01 ~]$ sqlplus hr_batch/Vdzygn45#kmg@ORCLPDB1\n\nSQL*Plus: Release 19.0.0.0.0', 'Vdzygn45#kmg'],
    ['$ cat /home/oracle/exp_sales.par\nuserid=system/Qvmrjn43#xfq@SALESPRD\ndirectory=DATA_PUMP_DIR', 'Qvmrjn43#xfq'],
    ["$ mkstore -wrl /u01/app/oracle/wallet -createCredential FINPRD fin_batch 'Fytscb21!flp'", 'Fytscb21!flp'],
    ['hdbadm@hanaprd01:/usr/sap/HDB/HDB00> hdbuserstore SET BACKUPKEY hanaprd01:30013@SYSTEMDB BACKUP_OPERATOR Gqijjz10#suw', 'Gqijjz10#suw'],
    ['C:\\Windows\\System32\\inetsrv>appcmd list apppool "HRPortal" /text:processModel.password\nVtbgtn58!dxm\n\nC:\\Windows\\System32\\inetsrv>appcmd list vdir', 'Vtbgtn58!dxm'],
    ['    DefaultUserName    REG_SZ    svc-kiosk\n    DefaultPassword    REG_SZ    Bfmpzsmb2069#\n    AutoAdminLogon    REG_SZ    1', 'Bfmpzsmb2069#'],
    ['<Password>\n    <Value>Tbxfxyxd2064#</Value>\n    <PlainText>true</PlainText>\n</Password>', 'Tbxfxyxd2064#'],
    ['<authDataEntries alias="MQ_auth" userId="mqapp" password="{xor}+eraU0WfQA+BeB4nXl==" description="MQ"/>', '{xor}+eraU0WfQA+BeB4nXl=='],
    ['        app.Value("Password") = "asi!aE7awBOBzjY9"', 'asi!aE7awBOBzjY9'],
    ["//STEP01   EXEC PGM=FTP,PARM='(EXIT'\n//INPUT    DD *\nftp-dmz.acme.local\nGLXFER\nZLWWZ79@\nASCII\n", 'ZLWWZ79@'],
    ['CRTUSRPRF  USRPRF(EDIBATCH) PASSWORD(JOKOHG939) USRCLS(*USER) +', 'JOKOHG939'],
  ]);
  // The user and the other arguments stay.
  assert.equal(r.redact("connect('weblogic', 'Bitait12%jeq', 't3://h:7001')"), "connect('weblogic', '[REDACTED:secret]', 't3://h:7001')");
  assert.equal(r.redact('    DefaultPassword    REG_SZ    Bfmpzsmb2069#'), '    DefaultPassword    REG_SZ    [REDACTED:password]');
  assertKept(r, [
    '<assemblyIdentity name="System.Web.Mvc" publicKeyToken="31bf3856ad364e35" culture="neutral" />', // a public key's hash
    "sock.connect('localhost', 'port5432')", "db.connect('localhost', 'mydb')", // no password's shape
    'net use Z: \\\\fs01\\finance * /user:CORP\\svc-finance', 'schtasks /create /ru SYSTEM /rp * /tn x', // asked for
    'robocopy C:\\src D:\\dst /pass /e', // a switch without a value
    '    Shell    REG_SZ    explorer.exe', '    DefaultPassword    REG_SZ    %DEFAULT_PW%',
    'sqlplus / as sysdba', '<Key>\n  <Value>name</Value>\n</Key>', 'CHGUSRPRF USRPRF(X) PASSWORD(*NONE)',
    '(`schtasks … /ru <user> /rp <pw>`, `mkstore -createCredential <alias> <user> <pw>`)',
  ]);
});

test('rule set 10 (set AD): signing and publishing tools\' passwords, flags on a command\'s continued lines, passphrases of words', () => {
  const r = new Redactor();
  assertHidden(r, [
    ['$ jarsigner -verbose -keystore ~/keys/release.jks -storepass Pixel.Zephyr.83 app-release.aab upload', 'Pixel.Zephyr.83'],
    ['C:\\build>signtool.exe sign /fd SHA256 /f certs\\acme-ev.pfx /p DfhkAzR7UfC98DU1Qu /tr http://timestamp.digicert.com out\\AcmeSetup.msi', 'DfhkAzR7UfC98DU1Qu'],
    ["security import /tmp/cert.p12 -k \"$KEYCHAIN\" -P 'Granite221Ember' -T /usr/bin/codesign", 'Granite221Ember'],
    ['$ security unlock-keychain -p cobalt3942 ~/Library/Keychains/login.keychain-db', 'cobalt3942'],
    ['$ npx @vscode/vsce publish minor -p grkk7e35lixxjie4c6jew6tbu4xvz7bcqyf6cpsxra42o5oajaoi', 'grkk7e35lixxjie4c6jew6tbu4xvz7bcqyf6cpsxra42o5oajaoi'],
    ['npx ovsx publish "acme-lint-$VERSION.vsix" -p 730097dd-91d9-4430-2aac-27e4e6b80e3e', '730097dd-91d9-4430-2aac-27e4e6b80e3e'],
    ["$ curl -s -X POST \\\n    -u '1857c2fcdd31eda616bdf67aaeaeac0e:' \\\n    https://build-api.cloud.unity3d.com/api/v1/orgs/acme/builds", '1857c2fcdd31eda616bdf67aaeaeac0e'],
    ["\"$STEAMCMD\" +login acme_builder 'Ecsmqj85#dyj' +run_app_build \"$(pwd)/app_build.vdf\" +quit", 'Ecsmqj85#dyj'],
    ["$ gpg --batch --pinentry-mode loopback --passphrase 'thunder tundra granite violet' --armor --detach-sign sums.txt", 'thunder tundra granite violet'],
    ['SNAP_NAME=acme-notes\nSNAPCRAFT_STORE_CREDENTIALS=eyJ0IjoidTEtbWFjYXJvb24iLCJ2Ijp7InIiOiJNREF4RUs3clRXLUdJTGl5SWdV\n', 'eyJ0IjoidTEtbWFjYXJvb24iLCJ2Ijp7InIiOiJNREF4RUs3clRXLUdJTGl5SWdV'],
  ]);
  // A quoted password keeps its last symbol inside the marker; a key's id stays; JSON printed without blanks is read by field.
  assert.equal(r.redact("storePassword 'Winter2022!'"), "storePassword '[REDACTED:secret]'");
  assert.equal(r.redact('$ cat ~/.config/dart/pub-tokens.json\n{"version":1,"hosted":[{"url":"https://dart.example/","token":"8b61a4df73e01591d126f2e445b3a6ea74f9edf2"}]}'),
    '$ cat ~/.config/dart/pub-tokens.json\n{"version":1,"hosted":[{"url":"https://dart.example/","token":"[REDACTED:secret]"}]}');
  assertKept(r, [
    '$ xcrun altool --list-apps --apiKey 8LE5GS6SG3 --apiIssuer 2f5e52b5-099c-2449-d53c-291f75827c22', // a key's id
    'security unlock-keychain -p "$KEYCHAIN_PASSWORD" "$KEYCHAIN"', 'signtool sign /f cert.pfx /p %PFX_PASSWORD% app.exe',
    'gpg --passphrase-fd 0 --batch --detach-sign sums.txt', "git commit -m 'fix the passphrase prompt'",
  ]);
});

test('rule set 10 (set AF): saved connections of developer tools and desktop clients', () => {
  const r = new Redactor();
  assertHidden(r, [
    ['[Bookmarks]\nSubRep=\n\n[Passwords]\nssh22:jdoe@10.20.4.11=mHx3z123E8kHmZR7IOc7F1==\n\n[Misc]\nSessionP=25114\n', 'mHx3z123E8kHmZR7IOc7F1=='],
    ['[crypt]\ncipher = aes256\n\n[data]\n__passphrase__ = off\noftc_nickserv = "Tmbjah61%naj"\n', 'Tmbjah61%naj'],
    ['full address:s:ts01.corp.acme.io\nusername:s:ACME\\jdoe\npassword 51:b:01000000D08C9DDF0115D1118C7A00C04FC297EB0100\n', '01000000D08C9DDF0115D1118C7A00C04FC297EB0100'],
    ["poll mail.acme-hosting.net with proto IMAP\n  user 'jdoe@acme.io' there with password 'Erabth98!zmf' is 'jdoe' here\n", 'Erabth98!zmf'],
    ['\t<Network corp>\n\t\tNick = jdoe\n\t\tServer = irc.corp.acme.io +6697 tpEMR22wBxcEF9aqSxkc\n\t</Network>\n', 'tpEMR22wBxcEF9aqSxkc'],
    ['$ cat ~/vpn/acme-office.auth\njdoe\nTxdffb13%mcb\n$ sudo openvpn --config ~/vpn/acme-office.ovpn\n', 'Txdffb13%mcb'],
    ['Servers\\Production\\User<|||>1<|||>heidi\nServers\\Production\\Password<|||>1<|||>44796F6671673938247B78733\n', '44796F6671673938247B78733'],
    ['CLIENT_RANDOM 389011f70da396233193d17602d32847f90540959a11f6ad562a068d6e9d2ca2 e18cd14747f66e7cc6263452bd7714343009ae9776a9dc953ff3b0f8225167a067612532f8bdaf4c88c6da25e16a1234\n', 'e18cd14747f66e7cc6263452bd7714343009ae9776a9dc953ff3b0f8225167a067612532f8bdaf4c88c6da25e16a1234'],
    ['mode:\n  - upstream:http://proxy.corp.acme.io:3128\nupstream_auth: jdoe:Guaczt17!sgv\nlisten_port: 8081\n', 'Guaczt17!sgv'],
  ]);
  // The user of an `auth` pair, the client random and the user line stay.
  assert.equal(r.redact('upstream_auth: jdoe:Guaczt17!sgv'), 'upstream_auth: jdoe:[REDACTED:secret]');
  assert.equal(r.redact('$ cat ~/vpn/office.auth\njdoe\nTxdffb13%mcb\n'), '$ cat ~/vpn/office.auth\njdoe\n[REDACTED:secret]\n');
  assertKept(r, [
    '[Passwords]\nPasswordsInRegistry=0\nMinLength=12\n', // settings about passwords
    '[data]\nname = value\n', // a [data] section that is not WeeChat's sec.conf
    '$ cat ~/notes/auth.log\nOK\n', '$ cat auth.md\nalice\nreset the token\n', // not a user and a password
    'Server = irc.libera.chat +6697', 'prompt for credentials:i:0',
  ]);
});

test('rule set 11: code, grammars and documentation that only look like assignments are kept (a count of real text); their secret-holding twins are not', () => {
  const r = new Redactor();
  assertKept(r, [
    // a reStructuredText role names a grammar's token (CMake's manuals)
    'The :token:`sep_definition` optional item offers the possibility to specify',
    'A ``#`` immediately followed by a :token:`bracket_open` forms a',
    // a string holding `name:field` (Scheme's procedures in Pygments): no line of settings starts there
    '    "passwd:dir",\n    "passwd:gecos",\n    "passwd:shell",',
    // a key-derivation call takes the password first and the salt second: the salt is no secret
    "pbkdf2('secret', 'salt', 100000, 64, 'sha512', (err, derivedKey) => {",
    "const key1 = scryptSync('password', 'salt', 64);",
    // a quoted operand of a test, not the value assigned: `"a" in obj`
    '        const isGCPServiceAccountPrivateKeyJSON = "private_key_id" in credentialObject &&',
    '    const isPrivate = "private" === visibility;',
    // an ABNF rule (RFC 5234) in a comment
    ' * token         = 1*tchar',
    // a word list after a name, not a name and its value (a Makefile's targets, prose)
    '\tregen-token regen-ast regen-keyword regen-sre regen-frozen clinic \\',
    '        id_token and/or UserInfo response content.',
    // an empty field, then the next field's name
    '\t\t__mvncomp "username= message= passphrase= password= scmVersion= " "-D" "${cur}"',
    // a CVSROOT names an access method and a user: `:pserver:user@host:/path`
    '  cvs://:pserver:anoncvs@sources.redhat.com:/cvs/src',
    // a namespaced id: the source, then a UUID or a short hex id
    "    const old = capturedEvents(log).filter((e) => e.session === 'codex:0188b1c2-d3e4-45f6-8a7b-9c0d1e2f3a4b');",
    '    "session": "claude-code:7f3a",',
    // file names of sessions (`.jsonl`) are names, not secret-named fields
    "  for (const f of ['session-2026-12-01T09-00-5e55a0b1.jsonl', '5e55a0b1-2c3d-4e5f-8a9b-0c1d2e3f4a5b/a0b1c2d3-4444-4555-8666-777788889999.jsonl']) {",
    // prose: "the default password callback" is not netrc's `default … password …`
    '        # the default password callback if you pass an encrypted private',
    // Vim script's scoped variable
    '    let s:netrw_passwd= g:netrw_passwd',
    // a name in a regular expression literal
    '    if (/^pass:/.test(secret)) (vs += 5), (secret = secret.slice(5));',
    // OpenSSH's security-key algorithms, Vim's numbered argument, C++'s access label in two columns
    'syn match sshconfigHostKeyAlgo "\\<sk-ssh-ed25519-cert-v01@openssh\\.com\\>"',
    'sk-ecdsa-sha2-nistp256-cert-v01@openssh.com',
    '  let g:netrw_passwd=a:2',
    '\t\t      private:\t      private:',
    // a quantifier before `pass`: a predicate or a pass of an algorithm (lodash/fp's aliases)
    "  'allPass': 'overEvery',\n  'anyPass': 'overSome',",
    'const secondPass = "mergeAdjacent";',
  ]);
  assertHidden(r, [
    ["config.set('password', 'Tr0ub4dor&3xK9')", 'Tr0ub4dor&3xK9'],
    ['  - "password: Winter2024!x"', 'Winter2024!x'],
    [' * token         = 9f8e7d6c5b4a39281706f5e4d3c2b1a0', '9f8e7d6c5b4a39281706f5e4d3c2b1a0'],
    ['requirepass Kx9vQ2mLp7Zt', 'Kx9vQ2mLp7Zt'],
    ['  cvs://:pserver:anoncvs:Wq8rTy2Kp@sources.example.org:/cvs/src', 'Wq8rTy2Kp'],
    ["session = 'sess:Zk2Jh7Qw9Lp4Xr8Tv1Nb6Mc3'", 'Zk2Jh7Qw9Lp4Xr8Tv1Nb6Mc3'],
    ['default login deploy password Hq7Xk2Lm9Pv4', 'Hq7Xk2Lm9Pv4'],
    ['machine api.example.com login bob password Hq7Xk2Lm9Pv4', 'Hq7Xk2Lm9Pv4'],
    ['    let s:netrw_passwd= "Pz8Lk3Qw7Mn2"', 'Pz8Lk3Qw7Mn2'],
    ['DB_PASSWORD= Tr0ub4dor3xK9', 'Tr0ub4dor3xK9'],
    ['OPENAI_API_KEY=sk-abcdefghij1234567890abcdefghij1234567890ABCDEFGH', 'sk-abcdefghij1234567890abcdefghij1234567890ABCDEFGH'],
    ['  let g:netrw_passwd="Pz8Lk3Qw7Mn2"', 'Pz8Lk3Qw7Mn2'],
    ["  'adminPass': 'Hq7Xk2Lm9Pv4',", 'Hq7Xk2Lm9Pv4'],
  ]);
});

test('rule set 11: real-text false positives (attribute values, node names, class names, templates, property paths, comparisons, model signatures, prose) are kept; their secret-holding twins are not', () => {
  const r = new Redactor();
  assertKept(r, [
    // Cache-Control's `private="<field>"` directive (undici): a lower-case word after the bare word `private`
    '  // Folding a redirect that says `private="location"` would preserve the',
    // a DOM or XML node's name (xmlbuilder)
    "    XMLStringifier.prototype.convertCDataKey = '#cdata';",
    // a class's name quoted in a Python annotation (cryptography)
    '    backend: "Backend", private_key: "_EllipticCurvePrivateKey", data: bytes',
    // an auth scheme with word-valued parameters (httplib2's WSSE profile), in code and quoted in a doc
    '        headers["authorization"] = \'WSSE profile="UsernameToken"\'',
    "  named in a string), `Authorization = 'WSSE profile=\"UsernameToken\"'`, netrw's",
    // a netrc template naming its fields (Vim's netrw)
    '     echomsg \':Nread "machine id password path"           uses ftp\'',
    '  " mipf     : a:machine a:id password filename\t     Use ftp',
    '\t:Nwrite "machine id password path"\t\tuses ftp',
    // an OpenPGP key's id and fingerprint under a name whose key has no secret's qualifier (Apache Commons' poms)
    '\t\t<commons.releaseManagerKey>86fdc7e2a11262cb</commons.releaseManagerKey>',
    '\t\t<commons.releaseManagerKey>B6E73D84EA4FCC47166087253FAAD2CD5ECBB314</commons.releaseManagerKey>',
    // a comparison with a word too short for a password (pip)
    '            and user_pass == "git"',
    // a line of a text ending in an escaped line break (pydoc's topics)
    " 'pass': 'The \"pass\" statement\\n'",
    // a model's signature of its reasoning: Gemini's thought parts, Claude's thinking blocks (plain and JSON-escaped)
    '    {"text": "Looking for the city list.", "thought": true, "thoughtSignature": "c2lnLXRob3VnaHQ="},',
    '{"type": "thinking", "thinking": "Read the test file first.", "signature": "EqoBCkgIBxABGAIiQGZha2Utc2lnbmF0dXJl"}',
    '"{\\"type\\":\\"thinking\\",\\"thinking\\":\\"Read it.\\",\\"signature\\":\\"EqoBCkgIBxABGAIiQGZha2Utc2lnbmF0dXJl\\"}"',
    // Markdown's inline code naming an identifier after a name in a sentence (espree's README)
    '* There are two addition properties on every node and token: `start` and `end`. These represent the same data as `range` and are used internally by Acorn.',
    // a name closing an inline code span (a release note)
    '* Changed the prompt from `Instance Password:` to `New Password:`, since `set-password` changes a user\'s password.',
    // a switch's labels in minified code (MSAL)
    'case qa.AccessToken:case qa.AccessTokenAndRefreshToken:o=await this.acquireTokenFromCacheInternal(t);break;',
    // a flag before the command's name (unzip's ToDo)
    ' - use gcc -pg, gprof to do profiling on unzip',
    // Perl's quote-like operators and an interpolated variable after an auth scheme
    'proxy_pass => qq{',
    'my $Token = qr/[\\x21\\x23-\\x27\\x2A\\x2B\\x2D\\x2E\\x30-\\x39\\x41-\\x5A\\x5E-\\x7A\\x7C\\x7E]/;',
    '          $http->add_req_header("Authorization", "Basic $encoded");',
  ]);
  assertHidden(r, [
    ['  // a header that says `private="Hq7Xk2Lm9Pv4Tz"` here', 'Hq7Xk2Lm9Pv4Tz'],
    ['  PRIVATE: "hunter2 xyz"', 'hunter2 xyz'],
    ["    XMLStringifier.prototype.signingKey = '#Hq7Xk2Lm9Pv4';", '#Hq7Xk2Lm9Pv4'],
    ['    backend: "Backend", private_key: "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", data: bytes', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC'],
    ['        headers["authorization"] = \'Bearer Hq7Xk2Lm9Pv4Tz8Rw3Yb\'', 'Hq7Xk2Lm9Pv4Tz8Rw3Yb'],
    ['        headers["authorization"] = \'Digest username="bob", response="6629fae49393a05397450978507c4ef1"\'', '6629fae49393a05397450978507c4ef1'],
    ['Authorization: Basic dXNlcjpwYXNzd29yZDE=', 'dXNlcjpwYXNzd29yZDE='],
    ['     echomsg \':Nread "machine id password Hq7Xk2Lm9Pv4"           uses ftp\'', 'Hq7Xk2Lm9Pv4'],
    ['machine imap2 login bob password bobwillknow', 'bobwillknow'],
    ['\t\t<commons.releaseManagerKey>Hq7Xk2Lm9Pv4Tz8Rw3YbQ</commons.releaseManagerKey>', 'Hq7Xk2Lm9Pv4Tz8Rw3YbQ'],
    ['\t\t<weather.apiKey>86fdc7e2a11262cb</weather.apiKey>', '86fdc7e2a11262cb'],
    ['metadata = (("x-goog-api-key", "cd58901dc6f37965ca7b6363d989cda60417375a"),)', 'cd58901dc6f37965ca7b6363d989cda60417375a'],
    ['            and user_pass == "Hq7Xk2Lm9Pv4"', 'Hq7Xk2Lm9Pv4'],
    ['if password == "letmein":', 'letmein'],
    ['if (pass === "admin") login();', 'admin'],
    [" 'pass': 'Tr0ub4dor&3xK9'", 'Tr0ub4dor&3xK9'],
    ['    {"text": "Looking for the city list.", "thoughtKey": "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"},', 'AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW'],
    ['{"type": "text", "text": "done", "signature": "EqoBCkgIBxABGAIiQGZha2Utc2lnbmF0dXJlTk9UaGlua2luZw"}', 'EqoBCkgIBxABGAIiQGZha2Utc2lnbmF0dXJlTk9UaGlua2luZw'],
    ['{"type": "thinking", "thinking": "x", "signature": "abc"}, {"type": "tool_use", "input": {"signature": "EqoBCkgIBxABGAIiQGZha2Utc2lnbmF0dXJlTk9UaGlua2luZw"}}', 'EqoBCkgIBxABGAIiQGZha2Utc2lnbmF0dXJlTk9UaGlua2luZw'],
    ['* Set the token: `Xk9vQ2mLp7Zt4Rw8` and restart.', 'Xk9vQ2mLp7Zt4Rw8'],
    ['* Use `PASSWORD: Hq7Xk2Lm9Pv4`, then restart.', 'Hq7Xk2Lm9Pv4'],
    ['showcase token: Hq7Xk2Lm9Pv4Tz8Rw3Yb', 'Hq7Xk2Lm9Pv4Tz8Rw3Yb'],
    [' - use unzip -pHq7Xk2Lm9Pv4 archive.zip', 'Hq7Xk2Lm9Pv4'],
    ["proxy_pass => 'Hq7Xk2Lm9Pv4'", 'Hq7Xk2Lm9Pv4'],
    ["my $Token = 'Hq7Xk2Lm9Pv4Tz8Rw3Yb';", 'Hq7Xk2Lm9Pv4Tz8Rw3Yb'],
    ['          $http->add_req_header("Authorization", "Basic dXNlcjpIcTdYazJMbTlQdjQ=");', 'dXNlcjpIcTdYazJMbTlQdjQ='],
  ]);
});

test('rule set 11 (set AH): secrets inside other agents\' stored transcripts, in JSON strings\' escapes', () => {
  const r = new Redactor();
  assertHidden(r, [
    // a Kubernetes Secret's YAML as a tool result: its line breaks are `\n` escapes
    [String.raw`{"type":"tool_result","content":"apiVersion: v1\ndata:\n  API_TOKEN: dGhpc0lzTm90QVJlYWxUb2tlbg==\n  PASSWORD: UXdlcnR5VWlvcA==\nkind: Secret\nmetadata:\n  name: app\n"}`, 'UXdlcnR5VWlvcA=='],
    [String.raw`{"type":"tool_result","content":"apiVersion: v1\ndata:\n  API_TOKEN: dGhpc0lzTm90QVJlYWxUb2tlbg==\nkind: Secret\n"}`, 'dGhpc0lzTm90QVJlYWxUb2tlbg=='],
    // Ruby's block default for an environment variable, plain and with its quotes escaped
    ['  password: <%= ENV.fetch("APP_DB_PASSWORD") { "Pqmvks41#tra" } %>', 'Pqmvks41#tra'],
    [String.raw`"content":"  password: <%= ENV.fetch(\"APP_DB_PASSWORD\") { \"Pqmvks41#tra\" } %>"`, 'Pqmvks41#tra'],
    [String.raw`"input":{"command":"python -c 'import os; print(os.getenv(\"STRIPE_SECRET\", \"Zk2Jh7Qw9Lp4Xr8Tv1Nb6Mc3\"))'"}`, 'Zk2Jh7Qw9Lp4Xr8Tv1Nb6Mc3'],
    // Gson and Go write `=` as `\u003d` inside a string
    [String.raw`"content":"MAIL_PASSWORD\u003dHq7Xk2Lm9Pv4\nMAIL_HOST\u003dsmtp.acme.io"`, 'Hq7Xk2Lm9Pv4'],
    // Google's app password, four groups of four letters, in a properties file read by a tool
    [String.raw`"content":"spring.mail.username=alerts@acme.io\nspring.mail.password=hlaf uayv qwih dvhw\nspring.mail.port=587"`, 'uayv qwih dvhw'],
    ['smtp_password: qzrt vkpw hjxn mbsl', 'qzrt vkpw hjxn mbsl'],
    // an AWS secret key printed right after an escaped line break, the command naming it in the record before
    [String.raw`{"input":{"command":"aws configure get aws_secret_access_key"}}` + '\n' + String.raw`{"content":"profile deploy\nQ8mZt2LkW9pRx4Vn7Jc1Hs6Gd3Fb0NyTaEuKiOoP"}`, 'Q8mZt2LkW9pRx4Vn7Jc1Hs6Gd3Fb0NyTaEuKiOoP'],
  ]);
  assertKept(r, [
    String.raw`{"type":"tool_result","content":"apiVersion: v1\ndata:\n  LOG_LEVEL: info\nkind: ConfigMap\nmetadata:\n  name: app\n"}`,
    String.raw`"content":"APP_DEBUG\u003dtrue\nAPP_ENV\u003dlocal\nSESSION_DRIVER\u003ddatabase"`,
    '  level: <%= ENV.fetch("LOG_LEVEL") { "info" } %>',
    // a sentence of four-letter words after the name is prose
    'password: what does this mean',
  ]);
  // the escaped `=` of base64 padding goes with the value: no trailing `\u003d` is left behind the marker
  assert.equal(r.redact(String.raw`"APP_KEY\u003dbase64:kqGEjS8sPm/HQzwO+vRWgvEJPftX5leFwb84yHgqPsY\u003d\nAPP_DEBUG\u003dtrue"`), String.raw`"APP_KEY\u003d[REDACTED:secret]\nAPP_DEBUG\u003dtrue"`);
  // the escapes around a marker stay as they were: the JSON still parses
  const escaped = String.raw`{"content":"  password: <%= ENV.fetch(\"APP_DB_PASSWORD\") { \"Pqmvks41#tra\" } %>\napiVersion: v1\ndata:\n  PASSWORD: UXdlcnR5VWlvcA==\nkind: Secret\n"}`;
  assert.doesNotThrow(() => JSON.parse(r.redact(escaped)));
});

test('rule set 11 (set AJ): secrets in logs and debug output (stack traces, client debug logs, protocol traces, query parameters, cookies)', () => {
  const r = new Redactor();
  const saslPlain = Buffer.from('\u0000app@acme.io\u0000Vrqmz82!tlo').toString('base64');
  assertHidden(r, [
    // PHP's PDO and mysqli constructors, in a stack trace and in code
    ["#0 /srv/app/vendor/Connector.php(70): PDO->__construct('mysql:host=db;dbname=app', 'forge', 'Kqvlsx73#pwe', Array)", 'Kqvlsx73#pwe'],
    ["$db = new mysqli('db.internal', 'shop', 'Kqvlsx73#pwe', 'shop');", 'Kqvlsx73#pwe'],
    // ioredis's debug log of AUTH
    ["  ioredis:redis write command[10.0.0.5:6379]: 0 -> auth([ 'Zk2Jh7Qw9Lp4Xr8Tv1Nb6Mc3' ]) +1ms", 'Zk2Jh7Qw9Lp4Xr8Tv1Nb6Mc3'],
    ["  ioredis:redis write command[10.0.0.5:6379]: 0 -> auth([ 'default', 'Zk2Jh7Qw9Lp4Xr8Tv1Nb6Mc3' ]) +1ms", 'Zk2Jh7Qw9Lp4Xr8Tv1Nb6Mc3'],
    // SASL in SMTP and IMAP traces
    [`send: 'AUTH PLAIN ${saslPlain}\\r\\n'`, saslPlain],
    [`C: AUTH PLAIN\nS: 334\nC: ${saslPlain}`, saslPlain],
    ['S: 334 VXNlcm5hbWU6\nC: YXBwQGFjbWUuaW8=\nS: 334 UGFzc3dvcmQ6\nC: VnJxbXo4MiF0bG8=\nS: 235 2.7.0 Authentication successful', 'VnJxbXo4MiF0bG8='],
    // an LDAP bind's password after its DN
    ["(('cn=svc-wiki,ou=services,dc=acme,dc=internal', 'Ffptor94!gbo', None, None), {})", 'Ffptor94!gbo'],
    ['ldap_bind($conn, "uid=deploy,ou=people,dc=acme,dc=io", "Ffptor94!gbo");', 'Ffptor94!gbo'],
    // a Cookie header's generated values, whatever the cookie's name
    ["'cookie', '_oauth2_proxy=8KRTujGy36XHRGWor7poqN_QJ38fuCWlQGdhATvrZQZ3|1764838800|W7m4I_-CL5gHTpIOFxXp36pCAfhZ='", '8KRTujGy36XHRGWor7poqN_QJ38fuCWlQGdhATvrZQZ3'],
    ['Cookie: theme=dark; _app_auth=Q2xYk9vLm3NpR7sT1wZ4bH6cJ8dF0gKe; lang=en', 'Q2xYk9vLm3NpR7sT1wZ4bH6cJ8dF0gKe'],
    // a query's bound parameters, for a column named for a secret
    ['Query: UPDATE "User" SET "passwordResetToken" = $1, "updatedAt" = $2 WHERE "id" = $3\nParams: ["9f2c1e7a5b3d4c8ea1f60d2b7e4c9a13","2026-12-04 10:00:00",42]', '9f2c1e7a5b3d4c8ea1f60d2b7e4c9a13'],
    ['query: INSERT INTO "api_clients"("name", "client_secret") VALUES ($1, $2) -- PARAMETERS: ["billing","Ux7Kp2Lm9Qw4Rt8Zv1Nb"]', 'Ux7Kp2Lm9Qw4Rt8Zv1Nb'],
    // a webhook's verify token is a credential too
    ['FB_VERIFY_TOKEN=Hq7Xk2Lm9Pv4Rt8Zv1Nb', 'Hq7Xk2Lm9Pv4Rt8Zv1Nb'],
  ]);
  assertKept(r, [
    "#0 /srv/app/src/Report.php(12): Report->__construct('monthly', 'en_US', Array)",
    "  ioredis:redis write command[10.0.0.5:6379]: 0 -> get([ 'session:42' ]) +0ms",
    "send: 'AUTH LOGIN\\r\\n'",
    "(('cn=svc-wiki,ou=services,dc=acme,dc=internal', None), {})",
    'Cookie: theme=dark; lang=en; _ga=GA1.2.1234567890.1712345678',
    'Query: SELECT "id" FROM "User" WHERE "email" = $1 LIMIT $2\nParams: ["dana@acme.io",1]',
    'resetToken() {',
  ]);
});

test('rule set 12 (set AN): secrets in network devices, home automation, embedded and IoT configuration', () => {
  const r = new Redactor();
  assertHidden(r, [
    // a device's secret after its storage type: IOS type 7 hex, NX-OS's quoted type 7, EOS's base64, type 0, AOS-CX's ciphertext
    ['radius server ISE\n key 7 11777DEEC0511FF3A943ACF6BFAD08\n!', '11777DEEC0511FF3A943ACF6BFAD08'],
    ['tacacs-server host 10.1.1.10 key 7 "hVJhBONZZyVV"', 'hVJhBONZZyVV'],
    ['neighbor 10.0.0.2 password 7 Qm7Zt2LkW9pRx4Vn7Jc1Hw==', 'Qm7Zt2LkW9pRx4Vn7Jc1Hw=='],
    ['username ops privilege 15 password 0 Winter2025!', 'Winter2025!'],
    ['user admin group administrators password ciphertext AQBapU2D+5MmOgGt3tNktkqpjgxEhZQ8VN3vfYGm==', 'AQBapU2D+5MmOgGt3tNktkqpjgxEhZQ8VN3vfYGm=='],
    // Cisco's type 8 (PBKDF2) and type 9 (scrypt) hashes, Junos's reversible $9$
    ['username netadmin privilege 15 secret 8 $8$NGVxUx5CMeRNEu$iGgKP1M9b0ODfvpNgDvFXhOJawOV5J0/E2QmKy5v8O3', '$8$NGVxUx5CMeRNEu$iGgKP1M9b0ODfvpNgDvFXhOJawOV5J0/E2QmKy5v8O3'],
    ['enable secret 9 $9$nhEmQVczB7dqsO$X.HsgL6x1il0RxkOSSvyQYwucySCt7qFm4v7pqCxkKM', '$9$nhEmQVczB7dqsO$X.HsgL6x1il0RxkOSSvyQYwucySCt7qFm4v7pqCxkKM'],
    ['set protocols bgp group T neighbor 203.0.113.1 authentication-key "$9$b.UswG63TelA2BjREseKggFrX72E1a2LFvp/-LZ-C6"', '$9$b.UswG63TelA2BjREseKggFrX72E1a2LFvp/-LZ-C6'],
    // a key chain's key-string, SNMP communities, IKE pre-shared keys
    ['key chain EIGRP\n key 1\n  key-string 2I0ZbJSxKvx2oGXq\n', '2I0ZbJSxKvx2oGXq'],
    ['snmp-server host 10.50.0.20 version 2c noc6j5c217hy  bgp config', 'noc6j5c217hy'],
    ['snmp-server community Zq8Lm2Kx RO 10', 'Zq8Lm2Kx'],
    ['community grafanaa6pcehywkw {\n    authorization read-only;\n}', 'grafanaa6pcehywkw'],
    ['crypto isakmp key Tq8Lm2Zk9Wx4 address 198.51.100.7', 'Tq8Lm2Zk9Wx4'],
    ['crypto keyring BRANCH\n pre-shared-key address 198.51.100.7 key Tq8Lm2Zk9Wx4', 'Tq8Lm2Zk9Wx4'],
    ['pre-shared-key ascii-text "Kx9!mQ2vLp4Zt"; ## SECRET-DATA', 'Kx9!mQ2vLp4Zt'],
    // `set <name> <value>` lines (FortiOS, its ENC form, Zephyr's settings shell)
    ['FGT60F (jvisser) # set passwd Onuvvp02%ayu', 'Onuvvp02%ayu'],
    ['        set password ENC SH25Lhp3AjtYinM4Tw+2xH+8aJOUqOAUdkxlqiw/Na8C+cu/y6rMedgUZxojj7=', 'SH25Lhp3AjtYinM4Tw+2xH+8aJOUqOAUdkxlqiw/Na8C+cu/y6rMedgUZxojj7='],
    ['uart:~$ settings set golioth/psk VROIBkSlWyQ7HMsFyYF5wwgoldejL0Cs', 'VROIBkSlWyQ7HMsFyYF5wwgoldejL0Cs'],
    // a secret wrapped in `{ value = … }`, a setter's literal, a host, a user and a password as a call's first literals
    ['symmetric_key = { value = "+nMY/oWcIqeL1m77jXQhhTqPUpMJNxkCkIRMTXaoJLI=" }', '+nMY/oWcIqeL1m77jXQhhTqPUpMJNxkCkIRMTXaoJLI='],
    ['    client.set_password("Thunderbiscuit84")', 'Thunderbiscuit84'],
    ['with driver("10.0.0.21", "automation", "Qcnvxu63%tey", optional_args={"port": 830}) as device:', 'Qcnvxu63%tey'],
    ['ftp = FTP("ftp.example.com", "deploy", "Kx9!mQ2vLp")', 'Kx9!mQ2vLp'],
    // (set AP) an SDK's client built with a generated literal: its key
    ['var mb = messagebird.New("QzOpLK5x9w0E4biTcvAS4n4dU")', 'QzOpLK5x9w0E4biTcvAS4n4dU'],
    ['Client, err = analytics.NewWithConfig("GDOHM6rIz5PEGNr6Df0PCSJaqSIz3B0e", analytics.Config{', 'GDOHM6rIz5PEGNr6Df0PCSJaqSIz3B0e'],
    ['  http_device = Logtail::LogDevices::HTTP.new(\n    "xJmNVVMR17bZJysgEzaAgTmw",\n    ingesting_host: "s1.example.com",\n  )', 'xJmNVVMR17bZJysgEzaAgTmw'],
    ['            new RequestValidator("9f9a0c55ff296babca6b590a07f6b75a");', '9f9a0c55ff296babca6b590a07f6b75a'],
    ['"secretAccessKey": "(Xk9mQ2vLp4Zt8Rw3)"', '(Xk9mQ2vLp4Zt8Rw3)'],
    // a base64 text holding an OpenVPN static key after a comment of its own (pfSense's <tls>)
    [`<tls>${Buffer.from('#\n# 2048 bit OpenVPN static key\n#\n-----BEGIN OpenVPN Static key V1-----\n31893cfc614552ee3f45984f768064eb\n22547b8eb5e151427cf054afd81b98c1\n-----END OpenVPN Static key V1-----\n').toString('base64')}</tls>`, Buffer.from('#\n# 2048 bit OpenVPN static key\n#\n-----BEGIN OpenVPN Static key V1-----\n31893cfc614552ee3f45984f768064eb\n22547b8eb5e151427cf054afd81b98c1\n-----END OpenVPN Static key V1-----\n').toString('base64')],
  ]);
  // What only looks like them stays: prose and docs about keys, placeholders, the SNMP defaults, calls that are no login
  for (const kept of [
    '\t<S-F6>\t\tshifted function key 6\t\t*<S-F6>*',
    '// Number key 9 chooses third shift level when pressed in isolation.',
    'press key 7 to continue',
    ' * `key 7 "<nx-os type 7>"`, `password 0 <plain>`, `crypto isakmp key <psk> address <peer>`',
    'snmp-server community public RO',
    'snmp-server community {{ snmp_ro }} RO',
    'community TRANSIT {\n    members 64500:100;\n}',
    'FGT60F (jvisser) # set type password',
    'set -o pipefail',
    'let verData = yield this.vsoClient.getVersioningData("7.2-preview.1", "Alert", "e21b4630-b7d2-4031-99e3-3ad328cc4a7f", routeValues);',
    ':call libcallnr("libc.so", "printf", "Hello World!\\n")',
    'dataSource.setPassword(password);',
    'client.with_token("see docs");',
    'x.setSecret("hello world!");',
    'symmetric_key = { value = "see the docs, section 4" }',
    'symmetric_key = { value = "${DPS_KEY}" }',
    'authentication-method pre-shared-keys;',
    'const id = new ObjectId("507f1f77bcf86cd799439011aa");',
    'const commit = repo.New("9fceb02d0ae598e95dc970b74767f19372d61af8");',
    'const e = new Error("connection_refused_while_reading_the_socket");',
    '        _http.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Basic", Convert.ToBase64String(raw));',
    '{"accessKeyId":"(omitted)","secretAccessKey":"(temporary, expires in 1h)","sessionToken":"(omitted)"}',
  ]) assert.equal(r.redact(kept), kept, kept);
});

test('rule set 11 (set AL): secrets in infrastructure state and deployment outputs', () => {
  const r = new Redactor();
  assertHidden(r, [
    // Pulumi's secret signature marks a decrypted value
    ['"result": {\n  "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",\n  "plaintext": "\\"Qm7Zt2LkW9pRx4Vn7Jc1\\""\n}', 'Qm7Zt2LkW9pRx4Vn7Jc1'],
    // Terraform's random_password keeps its result in the state
    ['{"mode": "managed", "type": "random_password", "name": "db", "instances": [{"attributes": {"length": 24, "result": "k]2!Zt%q8Lw#Xr4v"}}]}', 'k]2!Zt%q8Lw#Xr4v'],
    // a NoEcho parameter's default, the default after or before NoEcho
    ['Parameters:\n  DBMasterPassword:\n    Type: String\n    NoEcho: true\n    Default: \'Summer2019!\'\n  Env:\n    Type: String\n', 'Summer2019!'],
    ['Parameters:\n  ApiSecret:\n    Type: String\n    Default: Tq8Lm2Zk9Wx4\n    NoEcho: "true"\n', 'Tq8Lm2Zk9Wx4'],
    // describe-stacks' outputs
    ['{"OutputKey": "PartnerApiKeyValue", "OutputValue": "BlCTxGfrhqtDTqw2rC8H7FCm8g8sQdzDTHda4VBI"}', 'BlCTxGfrhqtDTqw2rC8H7FCm8g8sQdzDTHda4VBI'],
    // postfix's sasl_passwd, in an Ansible diff
    ['+++ after: /tmp/sasl_passwd.j2\n@@ -0,0 +1 @@\n+[smtp.office365.com]:587 relay@acme.io:Mpcxgq82*gaf', 'Mpcxgq82*gaf'],
    // a generated upper-case token after a flag
    ['./config.sh --unattended --url https://github.com/acme --token AB5FUQ18ISL9QGFY38UVKP1WYBPUG --labels gpu', 'AB5FUQ18ISL9QGFY38UVKP1WYBPUG'],
    // a password change's current password is one
    ['{"existingPassword": "Hunter2!xq", "newPassword": "Tr0ub4dor&3x"}', 'Hunter2!xq'],
    // a table of names and values, plain and boxed
    ['KEY                     VALUE\naws:region              eu-west-1\napp:stripeSecretKey     Zk2Jh7Qw9Lp4Xr8Tv1Nb6Mc3\n', 'Zk2Jh7Qw9Lp4Xr8Tv1Nb6Mc3'],
    ['|    ParameterKey     |   ParameterValue   |\n+------+------+\n|  DbPassword         |  Summer2019!x  |\n', 'Summer2019!x'],
    // a YAML plain scalar on the line below its name (Salt's outputter)
    ['web01:\n    redis:\n        requirepass:\n            Qm7Zt2LkW9pRx4Vn7Jc1\n        port:\n            6379\n', 'Qm7Zt2LkW9pRx4Vn7Jc1'],
  ]);
  assertKept(r, [
    'Parameters:\n  Environment:\n    Type: String\n    Default: staging\n    NoEcho: false\n',
    '{"OutputKey": "ServiceUrl", "OutputValue": "https://api.acme.io/prod"}',
    '{"type": "random_password", "name": "db", "instances": [{"attributes": {"length": 24, "special": true}}]}',
    'mysqldump --password PASSWORD --user ADMIN',
    // Helm's reference to a Secret and a digest of one
    'auth:\n  existingSecret: keycloak-db\n  annotations:\n    checksum/secret: e0cb728fa094bd27970fd9c45061cb5fa21b7a5c962f5d9e7fc82578e807841f\n',
    'NAME            VALUE\nmax_tokens      4096\ntoken_limit     100\n',
    // a mapping, a list or a longer text below the name is no scalar
    'auth:\n  password:\n    min_length: 12\n',
    'auth:\n  password:\n    - rule-a\n',
  ]);
});

test('rule set 10\'s line rules replace only the secret: trailing blanks and a CRLF line end survive', () => {
  const r = new Redactor();
  for (const [text, expected] of [
    ['    DefaultPassword    REG_SZ    Bfmpzsmb2069#  \r\n    Shell    REG_SZ    explorer.exe\r\n', '    DefaultPassword    REG_SZ    [REDACTED:password]  \r\n    Shell    REG_SZ    explorer.exe\r\n'],
    ['$USER4$=Enklng01#mbs  \r\n', '$USER4$=[REDACTED:password]  \r\n'],
    ['<Network corp>\n  Server = irc.corp.acme.io +6697 tpEMR22wBxcEF9aqSxkc \t\n', '<Network corp>\n  Server = irc.corp.acme.io +6697 [REDACTED:password] \t\n'],
    [`CLIENT_RANDOM ${'a'.repeat(64)} ${'b'.repeat(96)}  \r\n`, `CLIENT_RANDOM ${'a'.repeat(64)} [REDACTED:secret]  \r\n`],
  ]) assert.equal(r.redact(text), expected);
});

test('rule set 9, prose (set W): a password told in a sentence, in a dozen languages, is redacted; prose about passwords is kept', () => {
  const r = new Redactor();
  const cases: Array<[string, string]> = [
    ["the db password is 'Pgixkw86%wwm', why does psycopg2 fail?", "the db password is '[REDACTED:password]', why does psycopg2 fail?"],
    ['temp admin password for the demo tenant is Grffoj97#obp - delete this', 'temp admin password for the demo tenant is [REDACTED:password] - delete this'],
    ['we rotated our API key yesterday (the new key is lSFkQxw1cizlKpxzl5HOw1VTAoOzvbVn) and', 'we rotated our API key yesterday (the new key is [REDACTED:password]) and'],
    ['Der Benutzer ist root und das Passwort ist Hdwkuf29*tpj. Woran liegt das?', 'Der Benutzer ist root und das Passwort ist [REDACTED:password]. Woran liegt das?'],
    ['El usuario es deploy y la contraseña es 9UpmLVWOLq. ¿Qué hago?', 'El usuario es deploy y la contraseña es [REDACTED:password]. ¿Qué hago?'],
    ['identifiant qa@acme.fr, mot de passe : Vueykg85@ywd. Pouvez-vous', 'identifiant qa@acme.fr, mot de passe : [REDACTED:password]. Pouvez-vous'],
    ['ユーザー名はadminで、パスワードは「hkat446#XR」です。', 'ユーザー名はadminで、パスワードは「[REDACTED:password]」です。'],
    ['服务器的 root 密码是Bhyvll19%slo，但是 ssh 一直提示', '服务器的 root 密码是[REDACTED:password]，但是 ssh 一直提示'],
    ['계정은 deploy이고 비밀번호는 Tpmbqv31%ckf인데 로그인이 안 돼요.', '계정은 deploy이고 비밀번호는 [REDACTED:password]인데 로그인이 안 돼요.'],
    ['Логин: admin, пароль: Ayfhxt19_ebr. Что делать?', 'Логин: admin, пароль: [REDACTED:password]. Что делать?'],
    ['Wi-Fi network AcmeGuest-5G, pw xamf5326vjec (case-sensitive).', 'Wi-Fi network AcmeGuest-5G, pw [REDACTED:password] (case-sensitive).'],
    ['because `POSTGRES_PASSWORD` is set to `Kdlrgx75*rpe` in the db service', 'because `POSTGRES_PASSWORD` is set to `[REDACTED:password]` in the db service'],
    ['new KeePassXC master passphrase is Juggle-Uncle-Walnut-Ember-Hollow. Write it', 'new KeePassXC master passphrase is [REDACTED:password]. Write it'],
    ['for the demo just use admin / Ttcwaj91!jmr on staging.acme.io', 'for the demo just use admin / [REDACTED:password] on staging.acme.io'],
  ];
  for (const [input, want] of cases) assert.equal(r.redact(input), want, input);
  for (const kept of [
    'Das Passwort ist falsch. Bitte versuchen Sie es erneut.', 'La contraseña es incorrecta, inténtelo de nuevo.', 'Mot de passe : 8 caractères minimum',
    'パスワードは8文字以上で入力してください。', '密码是必填项，长度至少8位。', '비밀번호는 8자 이상이어야 합니다.', 'Пароль: не менее 8 символов',
    'The password is at least 8 characters long.', 'The token is valid for 3600 seconds.', 'The key is Ctrl+Shift+P on Windows.',
    'The token is `undefined` when the user is logged out.', 'the secret is `process.env.SESSION_SECRET`', "If the password is 'changeme', change it.",
    'The password is: ********', 'the token is abc123 which is wrong', 'password was reset on 2024-01-02', 'Password is case-sensitive.',
    'The password is too short (min. 12).', '  /* Convert password to Unicode byte buffer + trailing 0-byte. */', '  printf(&quot;Password is correct.&quot;);',
    'admin / settings page', 'The pw field is optional.',
  ]) assert.equal(r.redact(kept), kept, kept);
});

test('rule set 8: a secret found once in a text is hidden wherever else that text repeats it; "&" inside a line\'s NAME=value is part of the value', () => {
  const r = new Redactor();
  const key = '6d0e711d72d74daeb2b0bfd2a5cdfdba';
  const cases: Array<[string, string]> = [
    // the value named once, then passed bare (an agent's code, a command, its output)
    [`OPENCAGE_API_KEY=${key}\ngeocoder = OpenCageGeocode("${key}")\n# ${key}.`, 'OPENCAGE_API_KEY=[REDACTED:secret]\ngeocoder = OpenCageGeocode("[REDACTED:secret]")\n# [REDACTED:secret].'],
    ['DB_PASSWORD=Tr0ub4dor&3xK9\n$ psql -h db -U app  # typed Tr0ub4dor&3xK9', 'DB_PASSWORD=[REDACTED:secret]\n$ psql -h db -U app  # typed [REDACTED:secret]'],
    // "&" still ends a value where a shell or a query string ends it
    ['API_TOKEN=Zq8xv2LmP4nR7tK9wB3c& npm start', 'API_TOKEN=[REDACTED:secret]& npm start'],
    ['API_TOKEN=Zq8xv2LmP4nR7tK9wB3c&&npm start', 'API_TOKEN=[REDACTED:secret]&&npm start'],
    ['https://api.acme.io/v1?api_key=Zq8xv2LmP4nR7tK9wB3c&format=json', 'https://api.acme.io/v1?api_key=[REDACTED:secret]&format=json'],
  ];
  for (const [input, want] of cases) assert.equal(r.redact(input), want, input);
  // Only whole occurrences: the same characters inside a longer word are not the secret.
  assert.equal(r.redact(`API_KEY=${key}\nx${key}y`), `API_KEY=[REDACTED:secret]\nx${key}y`);
  // A package's version after its name is no password (a package list: `passwd` is a package).
  assert.equal(r.redact('ii\tlogin\t1:4.13+dfsg1-1+deb12u1\nii\tpasswd\t1:4.13+dfsg1-1+deb12u1'), 'ii\tlogin\t1:4.13+dfsg1-1+deb12u1\nii\tpasswd\t1:4.13+dfsg1-1+deb12u1');
  // A wheel's RECORD digests, a constant spelling its own name, hex numbers: none is a secret.
  assertKept(r, [
    'pip/_internal/index/__init__.py,sha256=vpt-JeTZefh8a-FC22ZeBSXFVbuBcXSGiILhQZJaNpQ,30',
    'const REFRESH_TOKEN = "refresh_token";', 'const nullOrEmptyToken = "null_or_empty_token";',
    'export const AcquireTokenByRefreshToken = "acquireTokenByRefreshToken";', '    USERNAME_PASSWORD: 0x02,', 'readonly STENCIL_PASS_DEPTH_PASS: 0x0B96;',
    'yield (ASYNC if token == "async" else AWAIT,', 'if (secondToken.value === "function" ||',
  ]);
  // A password compared with a literal, or a token with a generated one, is still the secret.
  assert.equal(r.redact('if password == "letmein":'), 'if password == "[REDACTED:secret]":');
  assert.equal(r.redact('if (token === "Zq8xv2LmP4nR7tK9wB3c") {'), 'if (token === "[REDACTED:secret]") {');
  // A private key's header alone in a string is code, not a key (the rest of the file was lost to the marker).
  assertKept(r, [
    '_SK_START = b"-----BEGIN OPENSSH PRIVATE KEY-----"\n_SK_END = b"-----END OPENSSH PRIVATE KEY-----"\nx = 1',
    '<match type="string" value="-----BEGIN RSA PRIVATE KEY-----" offset="0"/>\n<next/>',
  ]);
  // A short value (a port, a common word) is not looked for elsewhere.
  assert.equal(r.redact('password=hunter2\nhunter2 is a meme'), 'password=[REDACTED:secret]\nhunter2 is a meme');
  // Identifier fields get the same keyed marker at every occurrence.
  const id = r.redactId(`run-${key}-token=${key}`);
  assert.equal(new Set(id.match(/\[REDACTED:[^\]]+\]/g)).size <= 2, true, id);
  assert.equal(id.includes(key), false, id);
});

test('rule set 7: secret files printed, users and passwords given to commands, SQL rows, labelled output and Rust constants are redacted', () => {
  const r = new Redactor();
  const cases: Array<[string, string]> = [
    // a pasted session or a tool's output: a file whose name says it holds a secret, printed
    ['$ sudo cat /etc/mongod/keyfile\ntxX6aakOGAOF7ONMVa8Ddu/2By2g9JBezQEZXxk0gCvG\n$ ls -l /etc/mongod/keyfile', '$ sudo cat /etc/mongod/keyfile\n[REDACTED:secret]\n$ ls -l /etc/mongod/keyfile'],
    ['$ cat ~/.ansible/vault_pass.txt\nUhxmyQBnnMhFD9JwPQOV8AxL\n$ ansible-playbook site.yml', '$ cat ~/.ansible/vault_pass.txt\n[REDACTED:secret]\n$ ansible-playbook site.yml'],
    ['$ sudo cat /etc/rsyncd.secrets\nbackup:uI8OOIR9v19w3YvM7ay6', '$ sudo cat /etc/rsyncd.secrets\nbackup:[REDACTED:secret]'],
    // the last line of a password-resetting command's output, a label and one word
    ['$ bin/elasticsearch-reset-password -u elastic\nPassword for the [elastic] user successfully reset.\nNew value: jP2loH*DhrpaDP7a_wVa', '$ bin/elasticsearch-reset-password -u elastic\nPassword for the [elastic] user successfully reset.\nNew value: [REDACTED:secret]'],
    // a labelled line of a CLI's output whose label names a secret
    ['Accessor ID  = 5b7fd453-d3f7-6814-81dc-fcfe6daedea5\nSecret ID    = 2e9a8b82-90d8-167a-d581-f180e533e8a1', 'Accessor ID  = 5b7fd453-d3f7-6814-81dc-fcfe6daedea5\nSecret ID    = [REDACTED:secret]'],
    ['Unseal Key 1: l4gDMmDScxohSDe2zdoiPB27R2QY99SzOXYOe3M8Y6Q=', 'Unseal Key 1: [REDACTED:secret]'],
    // a user and a password as one argument of any command
    ['etcdctl --endpoints=https://127.0.0.1:2379 --user root:falcon-falcon-lantern-87 member list', 'etcdctl --endpoints=https://127.0.0.1:2379 --user root:[REDACTED:password] member list'],
    ["lftp -u deploy,'Lantern4885#' -e \"mirror -R dist/ /public_html; quit\" ftp.acme.net", "lftp -u deploy,'[REDACTED:password]' -e \"mirror -R dist/ /public_html; quit\" ftp.acme.net"],
    ['[zk: localhost:2181(CONNECTED) 0] addauth digest admin:summit.Meadow@cobalt', '[zk: localhost:2181(CONNECTED) 0] addauth digest admin:[REDACTED:password]'],
    // a user-creating subcommand's password
    ["rabbitmqctl add_user deploy 'Mapl3_Velvet@4577'", "rabbitmqctl add_user deploy '[REDACTED:password]'"],
    ['rabbitmqctl change_password deploy Mapl3Velvet4577', 'rabbitmqctl change_password deploy [REDACTED:password]'],
    // a password piped twice into a command that reads it twice
    ["(echo 'velvet.Maple@falcon'; echo 'velvet.Maple@falcon') | sudo smbpasswd -s -a alice", "(echo '[REDACTED:password]'; echo '[REDACTED:password]') | sudo smbpasswd -s -a alice"],
    ["echo 'Lantern4885#' | sudo smbpasswd -s -a alice", "echo '[REDACTED:password]' | sudo smbpasswd -s -a alice"],
    // an unquoted word ends at `)` as the shell ends it
    ['(cd /srv && echo Lantern4885x) | sudo smbpasswd -s -a alice', '(cd /srv && echo [REDACTED:password]) | sudo smbpasswd -s -a alice'],
    // a gossip encryption key
    ['encrypt = "l4gDMmDScxohSDe2zdoiPB27R2QY99SzOXYOe3M8Y6Q="', 'encrypt = "[REDACTED:secret]"'],
    ['consul agent -encrypt=l4gDMmDScxohSDe2zdoiPB27R2QY99SzOXYOe3M8Y6Q= -data-dir /opt/consul', 'consul agent -encrypt=[REDACTED:secret] -data-dir /opt/consul'],
    // a password of words, dots and symbols is no member access
    ['terraform init -backend-config="password=meadow.Winter?maple"', 'terraform init -backend-config="password=[REDACTED:secret]"'],
    ['DB_PASSWORD=velvet.Maple!falcon', 'DB_PASSWORD=[REDACTED:secret]'],
    // a SQL row's value under a secret's column
    ["INSERT INTO api_keys (user_id, label, token, created_at) VALUES (42, 'ci', 'd278511d8e60d01effb36e80801afd96e7f156ba', NOW());", "INSERT INTO api_keys (user_id, label, token, created_at) VALUES (42, 'ci', '[REDACTED:secret]', NOW());"],
    ["insert into users (email, password) values ('a@b.io', 'hunter2abc'), ('c@d.io', 'Xb7kq2LmP9')", "insert into users (email, password) values ('a@b.io', '[REDACTED:secret]'), ('c@d.io', '[REDACTED:secret]')"],
    // Rust constants and statics under a type annotation
    ['const JWT_SECRET: &[u8] = b"XBuVIzdBTuuwfRkdJofqInDQkiGWPozm";', 'const JWT_SECRET: &[u8] = b"[REDACTED:secret]";'],
    ['static API_TOKEN: &str = "Xb7kq2LmP9vQ4tRz8wN3";', 'static API_TOKEN: &str = "[REDACTED:secret]";'],
    ["const SIGNING_KEY: &'static str = \"Xb7kq2LmP9vQ4tRz8wN3\";", "const SIGNING_KEY: &'static str = \"[REDACTED:secret]\";"],
  ];
  for (const [text, want] of cases) assert.equal(r.redact(text), want, text);
  // and what only looks like them stays
  const kept = [
    '$ cat package.json\n{"name": "x"}',
    '$ cat ~/.ssh/id_ed25519.pub\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGtvbW1hbmRz dev@box',
    '$ cat /etc/hostname\nbuildbox-0123456789',
    'docker run -u 1000:1000 --user www-data:www-data -it alpine',
    'docker exec --user root:root web sh',
    'Accessor ID  = 5b7fd453-d3f7-6814-81dc-fcfe6daedea5',
    'Key Type: ed25519',
    'rabbitmqctl add_user deploy',
    'encrypt = true',
    'INSERT INTO tokens (id, kind) VALUES (1, \'refresh\');',
    'INSERT INTO users (email, password_hash) VALUES (\'a@b.io\', crypt(\'x\', gen_salt(\'bf\')));',
    'const x = config.db.password;',
    'const MAX_TOKENS: usize = 4096;',
    'let name: &str = "Xb7kq2LmP9vQ4tRz8wN3";',
    '<machineKey validationKey="AutoGenerate,IsolateApps" decryptionKey="AutoGenerate,IsolateApps" validation="SHA1" />',
  ];
  for (const text of kept) assert.equal(r.redact(text), text, text);
  // A NUL ends a value as a line's end does (`/proc/<pid>/environ`): what follows it stays.
  assert.equal(
    r.redact('USER=deploy\u0000HONEYCOMB_API_KEY=97uOabqKyzUjfDlfR8Pjuh\u0000PWD=/srv/app\u0000'),
    'USER=deploy\u0000HONEYCOMB_API_KEY=[REDACTED:secret]\u0000PWD=/srv/app\u0000',
  );
  // A tool call that prints a secret file marks its result as a credential's (EventPreparer), as `op read` does.
  for (const call of ['{"command":"cat /etc/mongod/keyfile"}', 'sudo cat ~/.ansible/vault_pass.txt', 'Get-Content .\\token.txt', 'head -c 64 /etc/rsyncd.secrets', 'bin/elasticsearch-reset-password -u elastic']) {
    assert.ok(PRINTS_CREDENTIAL_COMMAND.test(call), call);
  }
  const mark = (type: string) => `[REDACTED:${type}]`;
  assert.equal(credentialOutput('Password for the [elastic] user successfully reset.\nNew value: jP2loH*DhrpaDP7a_wVa\n', mark), 'Password for the [elastic] user successfully reset.\nNew value: [REDACTED:secret]\n');
  assert.equal(credentialOutput('--- stdout ---\nbackup:uI8OOIR9v19w3YvM7ay6\n', mark), '--- stdout ---\nbackup:[REDACTED:secret]\n');
  for (const output of ['Reset done.\nStatus: complete', 'Copied 3 files\nElapsed: 12.5s', 'https://vault.acme.io/ui/x']) assert.equal(credentialOutput(output, mark), output.startsWith('https') ? '[REDACTED:secret]' : output, output);
  for (const call of ['cat ~/.ssh/id_ed25519.pub', 'cat /etc/passwd', 'cat ~/.ssh/authorized_keys', 'cat src/tokenizer.ts', 'cat certs/server-key.crt', 'cat README.md']) {
    assert.ok(!PRINTS_CREDENTIAL_COMMAND.test(call), call);
  }
});

test('ordinary text and code that only looks similar is kept', () => {
  const r = new Redactor();
  const keep = [
    // rule set 6: setters given prose or a constant, names that are not secrets', references, prose about headers
    'ds.setPassword("Enter it");',
    'x.setTokenType("Bearer")',
    'parser.setToken("IDENT")',
    'tags.push(parser.subparse([new Token("\\tag")]));',
    '{"name": "DB_HOST", "value": "db.internal"}',
    '- name: API_TOKEN\n  value: token',
    'name = "GITHUB_TOKEN"\n  value = var.github_token',
    '- name: SECRET_KEY\n  valueFrom:\n    secretKeyRef:',
    'the Authorization "Basic authentication failed" message',
    'token: TokenStore',
    'password: SecretStr',
    'PASSWORD_HASHER=Argon2PasswordHasher',
    'fields = ("password1", "password2")',
    'cache key=d41d8cd98f00b204e9800998ecf8427e',
    'new RegExp("abcDEF123ghiJKL456")',
    'new Intl.NumberFormat("en-US")',
    'client.connect("localhost", "myDatabaseName")',
    'Latin: () => new UnicodeRangeTable(decodeRanges("aQ3bR7cS1dT9eU5fV2gW8hX4", false)),',
    "IDENTIFIED BY '%s'",
    'price: $1$ and $5$ each; echo $1 $2',
    'u = uuid.UUID("12345678123456781234567812345678")',
    'host = os.getenv("DB_HOST", "localhost")',
    '\t\t\tMnemonic: "Get Visual".',
    'requests.get(url, auth=(user, "hello world"))',
    'echo -n hello: | base64',
    'role_id=abc secret_id_path=/x',
    'resp = sm.get_secret_value(SecretId="prod/db")',
    'mode = process.env.TOKEN_MODE || "strict"',
    'client = AcsClient(key_id, os.environ["ALIBABA_SECRET"], "cn-hangzhou")',
    'f(getenv("API_TOKEN"), "Xb7kq2LmP9vQ4tRz")',
    'apiKey <- fromMaybe defaultKey <$> lookupEnv "API_KEY"',
    'connect(password=pw, user=u)',
    'x = hashlib.sha256("0123456789abcdef0123456789abcdef")',
    // a pasted session's other commands, and a credential command's table or error
    '$ ls\nnode_modules',
    '$ op read "op://Prod/db/password"\n[ERROR] 2026/12/02 could not read secret: item not found',
    '$ vault kv get secret/db\n====== Data ======\nKey    Value',
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
    // rule set 4's new shapes, where they do not apply
    'const k = readKey(file); writeKey(k, buf);',
    'write_key = True',
    'user.setPassword("Enter your password");',
    'expect "login:"\nsend "admin\\r"',
    'expect "Password:"\nsend "$env(PASS)\\r"',
    '--sentinel-fuse NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
    'ls /nix/store/0c7qxc96hmd4w4rhwfg0yvsqz0h3kkmf-hello-2.12.1',
    'git config --global user.name "Jane Doe"',
    'npm config set registry https://registry.npmjs.org/',
    '{"username": "jdoe", "key": "settings.theme"}',
    'toolu_01A09q90qw90lq917835lq9 msg_01XFDUDYJgAACzvnptvVoYEL',
    'docker run -u 1000 -p 8080:80 nginx', 'cp -u -p src dst', 'psql -U postgres -p 5432 -h db',
    'gcloud auth activate-service-account --key-file k.json', 'kubectl auth can-i create pods', 'docker login registry.example.com',
    // rule set 5's context rules, where they do not apply
    'gh variable set REGION --body eu-west-1b', 'netlify env:set NODE_VERSION 20.11.1', 'gh secret set DEPLOY_KEY < key.txt',
    'gh secret set API_TOKEN --body "$API_TOKEN"', 'vercel env add DATABASE_URL production',
    'const t = jwt.sign(claims, process.env.JWT_SECRET);', "await subtle.sign('RSASSA-PKCS1-v1_5', key, data);",
    'mixpanel.init("3f0b8cc0d1a24e6e9b0b2f7e35a1c4d2");', 'Cipher.getInstance("AES/GCM/NoPadding")',
    'client.get("/api/v1/users/aB3dE5fG7hJ9kL1m")', 'const c = new Client({ intents: ["Guilds"] });',
    'curl https://api.github.com/repos/o/r/hooks/12345678/pings', 'POST https://example.com/webhooks/stripe/v2',
    'https://example.com/api/key/rotate', 'gcloud auth login jdoe@example.com', 'npm login --registry https://npm.example.com',
    '$ gcloud auth print-access-token\nERROR: (gcloud.auth) You do not currently have an active account selected.',
    'KEYSTORE_TYPE=PKCS12', 'cert_p12_path = "./signing/dist.p12"',
    "new buffer.Buffer('b25ldHdvdGhyZWU=', 'base64')", "x = uuid.UUID('{12345678-1234-5678-1234-567812345678}')",
    'or environment being set (`gh secret set N --body v`, `az keyvault secret set --value v`, `doppler secrets set N=v`',
    'curl -u admin: http://localhost:9200', 'curl -u "$KEY:" https://api.example.com', 'await storePassword(user, input);',
    'https://ci.example.com/deploy/v2/status', 'POST https://example.com/webhooks/stripe?key=abc', 'printf "%s" "$TOKEN" | docker secret create tok -', 'printf "hello: world" | base64',
    '{"bearer": {}}', 'sentinel auth-pass mymaster ${REDIS_PASSWORD}', 'the PSK "shared key" is set in ipsec.secrets', 'setup_key_id: 4F1B2C3D-1111-2222-3333-444455556666',
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
    assert.equal(r.redact(`  ${name}: "hunter2 xyz"`), `  ${name}: "[REDACTED:secret]"`, name);
    assert.equal(r.redact(`{"${name}": "hunter2xyz"}`), `{"${name}": "[REDACTED:secret]"}`, name);
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
    assert.deepEqual(log.get(1)!.meta, { input: { env: 'DB_PASSWORD=[REDACTED:secret]' }, list: ['[REDACTED:github_token]'], redaction: REDACTION_RULESET_VERSION });
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

// A password manager's plain password has no shape: it is told by the command that printed it.
test('a tool\'s one-word output after a command that prints a credential is redacted, on every append path', async () => {
  const ws = mkdtempSync(join(tmpdir(), 'scroll-redact-'));
  try {
    const log = EventLog.open({ workspace: ws });
    const call = (id: string, command: string) => ({ kind: 'tool_call', role: 'assistant', toolCallId: id, name: 'Bash', content: JSON.stringify({ command }) });
    const result = (id: string, content: string) => ({ kind: 'tool_result', role: 'tool', toolCallId: id, content });
    log.append(call('c1', 'op read "op://Prod/db/password"'));
    const r1 = log.append(result('c1', 'hunter2hunter2\n'));
    assert.equal(r1.content, '[REDACTED:secret]\n');
    // Codex writes a header above the output; Scroll's run_command writes the command itself on the first line.
    log.append(call('c2', 'gcloud secrets versions access latest --secret=db'));
    assert.equal(log.append(result('c2', 'Exit code: 0\nWall time: 1.2 seconds\nOutput:\nXq9-vL2.mPk7\n')).content, 'Exit code: 0\nWall time: 1.2 seconds\nOutput:\n[REDACTED:secret]\n');
    const own = log.append({ kind: 'tool_result', role: 'tool', toolCallId: 'c3', content: '$ openssl rand -base64 32\nexit code 0, 4 ms\n--- stdout ---\nq1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0x1c=\n' });
    assert.equal(own.content, '$ openssl rand -base64 32\nexit code 0, 4 ms\n--- stdout ---\n[REDACTED:secret]\n');
    // The same in one batch, and through a bulk append.
    const batch = log.appendMany([call('c4', 'vault kv get -field=password secret/db'), result('c4', 's3cr3t-Passw0rd')]);
    assert.equal(batch[1].content, '[REDACTED:secret]');
    const bulk = log.beginBulk();
    await bulk.submit([{ kind: 'note', role: 'user', content: 'the first batch is prepared on this thread' }]);
    const seqs = await bulk.submit([call('c5', 'bw get password github.com'), result('c5', 'Pa55w0rd!Pa55w0rd')]);
    await bulk.commit();
    assert.equal(log.get(seqs[1])!.content, '[REDACTED:secret]');
    // Other commands' one-word output, and a credential command's table or error, are kept.
    log.append(call('c6', 'ls'));
    assert.equal(log.append(result('c6', 'node_modules\n')).content, 'node_modules\n');
    log.append(call('c7', 'op read "op://Prod/db/password"'));
    const err = '[ERROR] 2026/12/02 could not read secret: item not found';
    assert.equal(log.append(result('c7', err)).content, err);
    assert.equal(log.append(result('c8', 'Xb7kq2LmP9vQ4tRz')).content, 'Xb7kq2LmP9vQ4tRz', 'a result whose call was not seen');
    // A call that writes a file mentioning such a command far into its text runs nothing that prints one.
    log.append({ kind: 'tool_call', role: 'assistant', toolCallId: 'c9', name: 'Write', content: JSON.stringify({ path: 'docs/keys.md', content: 'x'.repeat(5000) + '\nrun `openssl rand -hex 32`' }) });
    assert.equal(log.append(result('c9', 'Written:docs/keys.md')).content, 'Written:docs/keys.md');
    log.close();
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});

/** The credential corpus's texts, and fragments at the edges of the pre-tests (a word, a separator, a value). */
function ruleSet2Pieces(): string[] {
  const corpus = readFileSync(join(__dirname, '../../../../test/fixtures/redaction/credentials.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { text: string }).text);
  return [
    ...corpus,
    'key', 'key value', 'Key:', 'KeyError:', 'api_key.ts:12:', '--api-key', '--credentials', 'x9Ab3dE7fG2hJ4kL', 'abc123XYZ789def456',
    'pass', 'passed 12', 'Passwd', 'requirepass', 'syiwlz4FM&74', 'sig', 'sig=', 'session', 'sessionid=', 'login', '.login(', 'auth', 'auth=(',
    'BasicAuth(', '"u", "p4ssw0rd!"', 'key="ApiKey"', 'value="x9Ab3dE7fG2hJ4kL"', '\\"api_key\\":', '\\"', '"', "'", '`', ']', ':', '=', ',', '>',
    '<password>', '</password>', 'kind: Secret', 'data:', '  password: |', '  cGFzc3dvcmQ=', 'kty', '"d":', 'Authorization:', 'Basic', 'Bearer',
    'echo', "'p4ss!'", '| sudo -S', '/user:me', 'net use', 'db:5432:app:app:', 'machine h', 'login me', 'password', 'token', 'secret', '-p', '-u',
    'curl', 'mysql', 'user:pw', '://', '@host', 'https://', 'ghp_', 'sk-', 'eyJ', '_', '-', '.', '~', '/', 'Q~', 'AKIA', 'ops_', 'x_live_',
  ];
}

test('rule set 2: the pre-tests never skip a text some rule would change, nor does the per-rule path differ', () => {
  const fast = new Redactor();
  const ruleByRule = new Redactor({ extraPatterns: [{ type: 'never', pattern: /\u0000never\u0000/ }] });
  // Each at an edge of a pre-test: a flag's value after a blank, a config directive, an attribute
  // value, an escaped JSON name, a YAML block, a call's arguments, a piped password, a .pgpass line.
  const edges = [
    '--api-key x9Ab3dE7fG2hJ4kL', 'tool --credentials Xk29sLq0Pz8vWm4n', '--private-key Xk29sLq0Pz8vWm4nAb', 'requirepass syiwlz4FM&74',
    'Passwd syiwlz4FM&74', '<add key="ApiKey" value="x9Ab3dE7fG2hJ4kL" />', '{\\"api_key\\": \\"x9Ab3dE7fG2hJ4kL\\"}', 'password: |\n  hunter2\n',
    'srv.login("me", "p4ssw0rd!")', 'auth=("api", "p4ssw0rd!")', "echo 'p4ss!' | sudo -S true", 'net use \\\\s\\x /user:me p4ssw0rd!',
    'db:5432:app:app:p4ssw0rd!', 'machine h login me password p4ss', 'sig=x9Ab3dE7fG2hJ4kL%2B', 'kind: Secret\ndata:\n  k: dmFsdWU=',
    '{"kty":"oct","k":"x9Ab3dE7fG2hJ4kLx9Ab"}', 'Authorization: Basic dXNlcjpwYXNz', 'Bearer x9Ab3dE7fG2hJ4kLmN', 'api_key.ts:12: x9Ab3dE7fG2hJ4kL',
    'KeyError: x9Ab3dE7fG2hJ4kL', 'token x9Ab3dE7fG2hJ4kL', "--passphrase 'ODaNtA2NA$65'", 'aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    // rule set 4: a config setter's name and value after blanks, a setter call, a user beside a key, an expect script
    'atlas config set private_api_key e52020e0-131f-30fb-7193-7d64a227d35b', 'git config --global user.password s3cretPa55',
    'client.setApiKey("Lk9vT2mQ8xR4wZ7pN3sB6yD1")', '{"username":"jdoe","key":"9b449ccc6ca76cdb75e3524337cbc62b"}',
    'expect "*assword*"\nsend "s3cr3t\\r"', 'Authorization: key=AAAADnoDg-g:APA91bG3dgRu_grC5DGzZ', 'Authorization: Token token=u+ykF4vvD8FfkKsnPJIx',
    'snyk auth af19d4ba-cff3-b084-b352-d3226038bec7', 'xcrun altool -f app.ipa -u dev@acme.com -p qkup-llgc-kqpb-qfoo',
  ];
  for (const text of edges) assert.equal(fast.redact(text), redactWithoutPretests(text), JSON.stringify(text));
  for (const text of randomTexts(ruleSet2Pieces(), 2026, 4)) {
    const reference = redactWithoutPretests(text);
    assert.equal(fast.redact(text), reference, JSON.stringify(text));
    assert.equal(ruleByRule.redact(text), reference, JSON.stringify(text));
  }
});

test('what a lossless log must keep stays byte-exact; placeholders are not secrets, literals are', () => {
  const r = new Redactor();
  const keep = [
    'commit 6cd321f0a8c4e5b9d2f7a1c3e6b8d0f2a4c6e8b0', 'HEAD is now at 35cd42b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6',
    'id: 3f2504e0-4f89-11d3-9a0c-0305e82c3301', 'session: 6ba7b810-9dad-11d1-80b4-00c04fd430c8',
    'sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    'digest: sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
    '"integrity": "sha512-YbL/UWD6++49D9b5k8sR0vL6d3jF2o1JqH3kLmN4pQ7rS9tU2vW5xY8zA1bC4dE7fG0hI3jK6lM9nO2pQ5rS8tU1vW4xY7zA0bC3dE6fG9hI2jK5lA==",',
    'integrity sha1-Aa+1b2C3d4E5f6G7h8I9j0KlMnO=', '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">',
    'const name = getKeyName(key);', 'max_tokens: 4096', 'headers[api_key_header] = value', 'this.passwordField.focus();', 'tokenizer.encode(text)',
    'password=${PASSWORD}', 'password = process.env.DB_PASSWORD', 'password = os.environ["DB_PASSWORD"]', 'password: <password>', 'password: ********',
    'password = getpass()', 'token = await getToken()', 'api_key = None', 'secret: {{ .Values.secret }}', 'password: "${{ secrets.DB_PASSWORD }}"',
    'Authorization: Bearer $TOKEN', 'Authorization: Bearer <token>', 'curl -u "$USER:$PASS" https://example.com', 'mysql -u root -p app',
    'postgres://app:${DB_PASSWORD}@db:5432/app', 'redis://localhost:6379/0', 'git@github.com:org/repo.git', 'ssh://git@github.com/org/repo',
    'tool call toolu_01A09q90qw90lq917835lq9 finished', 'call_DdmSWGNCGVcULAFRxmQDGEZb', 'msg_01XFDUDYJgAACzvnptvVoYEL',
    'resp_68af1c2e3b4d5e6f708192a3b4c5d6e7', 'chatcmpl-9fK2LmN4pQ7rS9tU2vW5xY8zA1bC4', 'export PATH=/usr/local/bin:$PATH',
    'PASSWORD_FILE=/run/secrets/db_password', 'token_type: bearer', 'eos_token: "</s>"', 'KeyError: \'token\'', 'passed 12, failed 0',
    // Generated ids of agents and APIs (shorter than a key, or hex): a vendor shape they resemble must not take them.
    '"id": "rs_68af4030592c81938ec0a5fbab4a3e9f05438e46b5f69a3b"', '"call_id": "fc_68af4031d2a88193a6ba72e4d1c2b3a405438e46b5f69a3b"',
    'resp_68af4030592c81938ec0a5fbab4a3e9f05438e46b5f69a3b', 'file-BK7bzQj3FfZFXr7DbL6xJwfo', 'asst_abc123XYZ789defGHI456jkl', 'org-Kq3mP9xYz2AbCdEfGhIjKlMn',
    'user_2NNEqL2nrIRdJ194ndJqAHwEfxC', 'sess_2NNEqL2nrIRdJ194ndJqAHwEfxC', 'pi_3MtwBwLkdIwHu7ix28a3tqPa', 'cus_NffrFeUfNV2Hib',
    'msgbatch_01HkcTjaV5uDC8jWR4ZsDV8d', 'dpl_2Cr9vXpCp2ADjbZ7kTxhGz9Hx1xS', 'user_01HXYZ3NDEKTSV4RRFFQ69G5FAV',
    'test_ShouldReturnTheUserWhenTheIdIsValid2024', 'css-1a2b3c4d',
    // The tail of an encrypted blob (Codex's reasoning `encrypted_content`, base64url) has the vendor shape after a `-`.
    '{"type":"reasoning","encrypted_content":"gAAAAABo5kQ2Zx8r-abc9_Kq3mP9xYz2AbCdEfGhIjKlMnOpQrStUvW1"}',
    // A table row: a long number, a pipe, an identifier (the shape of a Facebook app token, not its randomness).
    '|123456789012345|some_long_identifier_name_x|', 'sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC',
  ];
  for (const text of keep) assert.equal(r.redact(text), text, text);
  // The same names with real literals lose them.
  assert.equal(r.redact('password = "Tr0ub4dor&3"'), 'password = "[REDACTED:secret]"');
  assert.equal(r.redact('token = "9x8y7z6w5v4u"'), 'token = "[REDACTED:secret]"');
  assert.equal(r.redact('curl -u admin:Tr0ub4dor https://example.com'), 'curl -u admin:[REDACTED:password] https://example.com');
});

test('no input makes redaction slow: 200 KB of each shape that once took quadratic time takes well under 2 s of CPU', () => {
  const r = new Redactor();
  const n = 200_000;
  const cases: Record<string, string> = {
    'overlapping bare values': 'key='.repeat(n / 4),
    'one giant name of secret words': 'secretkeytokenpassauthsig'.repeat(n / 25),
    'private key headers without an end': '-----BEGIN RSA PRIVATE KEY-----'.repeat(n / 31),
    'names after a marker': '[REDACTED:x] ' + 'key=Ab3dE7fG2hJ4kLmN '.repeat(n / 20),
    'a URL without @': 'http://a:' + 'b'.repeat(n),
    'runs after underscores': '_' + 'a1B2'.repeat(n / 4),
    'quotes': '"password": "'.repeat(n / 14),
    'flags': 'htpasswd -b ' + '-x '.repeat(n / 3),
    // rule set 4's context rules: a user flag without a password flag after it, a password prompt without its send,
    // a config setter's flags, auth subcommands
    'user flags': 'tool ' + '-u x '.repeat(n / 5),
    'expect prompts': 'expect "password: '.repeat(n / 18),
    'config flags': 'npm config ' + '--key '.repeat(n / 6),
    'auth subcommands': 'a auth '.repeat(n / 7),
    // rule set 5's
    'setters': 'gh secret set '.repeat(n / 14),
    'setter words': 'gh secret set NAME ' + '--x '.repeat(n / 4),
    'open calls': 'jwt.sign("' + 'a1B2c3D4e5F6g7H8('.repeat(n / 17),
    // rule set 12's: a long word after `{ value = "` (the name before `=` was tried at every letter of it), a long
    // base64 run with a PEM's BEGIN in it, device lines and SDK calls
    'wrapped values': '{ value = "' + 'x'.repeat(n),
    'base64 with a BEGIN inside': 'a'.repeat(n / 2) + '0tLS0tQkVHSU4g' + 'b'.repeat(n / 2),
    'set lines': 'set a '.repeat(n / 6),
    'sdk chains': 'x.New'.repeat(n / 5),
    'snmp hosts': 'snmp-server host ' + 'a '.repeat(n / 2),
    'call heads': 'a.b.c.d'.repeat(n / 7) + '("x',
    'hook paths': 'https://h/hooks/' + 'a1b2c3/'.repeat(n / 7),
    'printed credentials': 'vault print token\n'.repeat(n / 18),
    'key stores': 'p12='.repeat(n / 4) + 'MII' + 'A'.repeat(100),
    'unclosed quotes': 'gh secret set "' + 'a'.repeat(n),
    'callee words': 'Client'.repeat(n / 6) + '(', 'callee members': 'token.'.repeat(n / 6) + '(',
    'host maps': '"bearer": {'.repeat(n / 11), 'piped credentials': 'printf ":'.repeat(n / 9), 'key store magic': '/u3+7Q'.repeat(n / 6),
    'curl users': 'curl -u ' + 'a'.repeat(n) + ' x', 'sentinel lines': 'sentinel auth-pass '.repeat(n / 19),
    // rule set 9's
    'objects without a value': '"api_token": { "type": "string", '.repeat(n / 34), 'monitor auths': '"AUTH" "'.repeat(n / 8),
    'schemes without a colon': 'a//b:'.repeat(n / 5), 'escaped pgpass heads': '\\nh:5432:d:u:'.repeat(n / 14),
    'plist keys': '<key>ApiToken</key>'.repeat(n / 19), 'later arguments': 'f("a", '.repeat(n / 7) + '"api_key", "x")',
    'named elements': '<string name="api_secret">'.repeat(n / 26),
    // and its last rounds'
    'secret key names, then an upper-case run': 'SecretAccessKey '.repeat(n / 32) + 'A1'.repeat(n / 4), 'labelled objects': '{"name": "password", '.repeat(n / 21),
    'deno lists': 'DENO_AUTH_TOKENS=' + 'a@;'.repeat(n / 3), 'snmp users': 'createUser a SHA '.repeat(n / 17), 'acl lines': '\nuser a on '.repeat(n / 11),
    'names in open blocks': '{\n  token = x\n'.repeat(n / 14), 'labels in strings': '"token: '.repeat(n / 8),
    // rule set 10's
    'table headers': 'user,password\n'.repeat(n / 14), 'one long header': 'password,'.repeat(n / 9), 'header then rows': 'user,password\n' + 'a,Xy12!abc\n'.repeat(n / 11),
    'bar tables': '| token |'.repeat(n / 9), 'attributed elements': '<a:Password x="1" '.repeat(n / 19), 'tuples': '{password,"'.repeat(n / 11),
    'var dumps': '["token"]=>\n'.repeat(n / 12), 'wireguard pairs': ('A'.repeat(43) + '=\t').repeat(n / 45), 'nagios macros': '$USER1$='.repeat(n / 8),
    'labels in other languages': 'Şifre: '.repeat(n / 7), 'unspaced cues': '管理员密码'.repeat(n / 5), 'pgbouncer lines': 'pgbouncer\n' + '"a" "'.repeat(n / 5),
    // rule set 11's: nested YAML names in a text that says NoEcho (one regex once backtracked through all of them)
    'nested names under NoEcho': '# NoEcho\n' + (Array.from({ length: 12 }, (_, i) => ' '.repeat(2 * i + 2) + 'k' + i + ':').join('\n') + '\n' + ' '.repeat(26) + '- --flag\n').repeat(n / 240),
    'NoEcho lines': '  P:\n    NoEcho: true\n'.repeat(n / 22), 'cookie headers': 'Cookie: ' + 'a=b; '.repeat(n / 5), 'bound parameters': 'x = $1 '.repeat(n / 14) + '\nParams: [' + '"a",'.repeat(n / 8),
  };
  // CPU time, not wall time: what is guarded is quadratic work, which a loaded machine's wait does not add to.
  for (const [name, text] of Object.entries(cases)) {
    const t0 = process.cpuUsage();
    r.redact(text);
    r.redactId(text);
    const used = process.cpuUsage(t0);
    const ms = (used.user + used.system) / 1000;
    assert.ok(ms < 2000, `${name}: ${ms.toFixed(0)} ms of CPU`);
  }
});
