/**
 * Secret redaction. Runs on every string an event carries (content, headline, name, session, kind,
 * role, tool call id, meta keys and values) before any byte reaches the database, its WAL or the
 * payload store: a lossless log must not become a plaintext credential dump. A secret in text
 * becomes `[REDACTED:<type>]`; in an identifier field (session, name, tool call id, kind, role, a
 * meta key) it becomes `[REDACTED:<type>:<12 hex>]`, a keyed HMAC-SHA256 of the secret, so two
 * different secrets never merge two sessions and a tool call stays paired with its result.
 *
 * The rules (docs/ARCHITECTURE.md, "Redaction"): private keys of every kind; tokens with a
 * vendor's prefix or shape; `<secret name> <separator> <value>` anywhere in a line (code, shell,
 * headers, YAML/TOML/JSON/XML, .env, command flags), where the name is split into words and the
 * value must be a literal (not a placeholder, a reference, a type or code); credentials in URLs of
 * any scheme; Authorization headers; a few commands' password flags; Kubernetes Secret data.
 * A pre-test over a text (the rules' triggers: a few string searches and two scans) decides which
 * rules run, if any: most text holds no secret.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { InvalidInputError, errorMessage } from '../errors';

/** Goes into every redacted event's `meta.redaction`: bump it whenever the rules change what they catch. */
export const REDACTION_RULESET_VERSION = '12';

/** Builds the text that replaces `secret` (found by a rule of `type`). */
export type Marker = (type: string, secret: string) => string;

export interface RedactionRule {
  /** Goes into the marker: `[REDACTED:<type>]`. */
  type: string;
  /** A rule is either a pattern (global)… */
  pattern?: RegExp;
  /**
   * Index of the capture group that holds the secret; the text around it is kept (e.g. the
   * variable name in `API_KEY=…`). Omitted: the whole match is the secret.
   */
  secretGroup?: number;
  /** Matched values this returns true for are not secrets after all (numbers, references). */
  keep?: (secret: string) => boolean;
  /**
   * …or a function that returns the text with its secrets replaced by `mark(type, secret)`.
   * `nameHits`, when given: where a name word (NAME_WORD_SCAN) starts in `text`, found by the
   * pre-test's scan (the assignment scanner uses them instead of scanning again).
   */
  apply?: (text: string, mark: Marker, nameHits?: readonly number[]) => string;
  /**
   * Cheap pre-test (no g/y flag): the rule only runs on a text this matches. Its source is also
   * part of the scans that decide which rules run, so it must not use capture groups or
   * backreferences. Omitted (an extra pattern): the rule runs on every text.
   */
  trigger?: RegExp;
  /**
   * For a case-sensitive trigger: literals, one of which every text the trigger matches contains.
   * A text with none of them skips the trigger's regex (a string search is much faster).
   */
  needs?: readonly string[];
  /**
   * A case-insensitive trigger started where a word of CASELESS_WORDS starts (flags `iy`): it
   * matches at some such place exactly when the trigger matches the text. Lets one scan for those
   * words decide all the case-insensitive rules.
   */
  atWord?: RegExp;
}

export interface RedactionOptions {
  /** Default true. False stores text exactly as given. */
  enabled?: boolean;
  /** Extra rules, applied after the built-in ones. A string is compiled with flags `g`. */
  extraPatterns?: Array<{ type: string; pattern: RegExp | string }>;
  /**
   * The key of the identifier markers' HMAC (at least 16 bytes). Without it, `keyFile` is read,
   * or created (32 random bytes, hex, mode 0600) the first time an identifier holds a secret.
   * Without either, a random key per Redactor: markers are then stable only within one process.
   */
  key?: Uint8Array;
  /** Where the log keeps its key, beside the database (e.g. `.scroll/redaction.key`). */
  keyFile?: string;
}

// ---------------------------------------------------------------------------------------------
// Value tests shared by the rules

const MARKER_PREFIX = '[REDACTED:';

function shannon(s: string): number {
  const counts = new Map<number, number>();
  for (let i = 0; i < s.length; i++) counts.set(s.charCodeAt(i), (counts.get(s.charCodeAt(i)) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * Whether `v` looks machine-generated (a key, token or digest) rather than written by a person:
 * at least two of lower case, upper case and digits, short runs of each (identifiers such as
 * `getUserByIdAndName` are made of words) and some entropy.
 */
export function looksRandom(v: string, minLength = 16): boolean {
  if (v.length < minLength || /\s/.test(v)) return false;
  const words = v.match(/[A-Z]?[a-z]+|[A-Z]+|\d+/g);
  if (!words) return false;
  if ((/[a-z]/.test(v) ? 1 : 0) + (/[A-Z]/.test(v) ? 1 : 0) + (/\d/.test(v) ? 1 : 0) < 2) return false;
  let alnum = 0;
  for (const w of words) alnum += w.length;
  if (alnum < v.length * 0.6) return false;
  return alnum / words.length < 2.7 && shannon(v) >= 3.2;
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const HEX_DIGEST = /^(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{128}|[0-9A-F]{32}|[0-9A-F]{40}|[0-9A-F]{64})$/;

/** Placeholders, references and empty values: `${X}`, `<password>`, `****`, `{{ .Values.x }}`, `your-api-key`. */
const PLACEHOLDER = new RegExp(
  String.raw`^(?:|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\$\([^)]*\)|%[A-Za-z_][A-Za-z0-9_]*%|%\(?[A-Za-z_]*\)?[sd]|\{\{[^}]*\}\}` +
    String.raw`|\{[A-Za-z_][\w.]*\}|<[^<>]*>|\[[A-Za-z _.-]*\]|\*+|[xX]{3,}|•+|\.{2,}|…|\?|:[A-Za-z_]\w*|@[A-Za-z_]\w*@?` +
    String.raw`|[-_]+|redacted|change[-_]?me|changeit|replace[-_]?me|placeholder|null|nil|none|undefined|true|false|yes|no|on|off|` +
    String.raw`required|optional|hidden|masked|auto|autogenerate(?:,isolateapps)?|secret|password|passwd|pass|pwd|pw|token|passphrase|string|str|env|bearer|basic|digest|negotiate|ntlm|\[REDACTED:[^\]]*\])$`,
  'i',
);
/** `your-api-key`, `<YOUR_TOKEN>`, `INSERT_KEY_HERE`, `enter your password`. */
const PLACEHOLDER_WORDS = /^(?:your|enter|insert|paste|replace)[-_ .]?(?:own[-_ ])?(?:[a-z]+[-_ ]?){0,4}$|[-_ ](?:here|goes[-_ ]here)$/i;
/** A note in parentheses where the value would be: `(omitted)`, `(temporary, expires in 1h)` (lower case: `(Xk9…)` stays a value). */
const PAREN_NOTE = /^\((?:[a-z]+|[a-z][\w,.;' -]*\s[\w,.;' -]*)\)$/;
/** References to where a secret lives, not the secret: env lookups, vault paths, ARNs, files. */
const REFERENCE = /^(?:process\.env\b|os\.environ\b|os\.getenv\b|import\.meta\.env\b|System\.getenv\b|Environment\.GetEnvironmentVariable\b|ENV\[|env\(|getenv\(|secrets\.|vault:|arn:aws:|file:|env:|keyring:|op:\/\/|awssm:|gcpsm:|azkv:|\/run\/secrets\/|\/var\/run\/secrets\/|sm:\/\/)/;
/** Interpolation inside a literal: `"Bearer ${token}"`, `f"{key}"`, `"{{ x }}"`. */
const INTERPOLATION = /\$\{|\{\{|\$\(|#\{|%\(|\{[A-Za-z_][\w.]*\}|\{\d*\}|%[-#0 +]*\d*(?:\.\d+)?[sdifrxXo](?![A-Za-z0-9])/;
/** A file path (`/etc/app/key.pem`, `~/.ssh/id_rsa`, `C:\keys\a.pfx`, `./secret.txt`). */
const PATH = /^(?:~?\/|\.{1,2}\/|[A-Za-z]:\\)[\w.\/\\ ~@+-]*$/;
/** Types in annotations: `string`, `str | None`, `Optional[str]`, `Buffer`, `SecretStr`, `[]byte`, `&str`. */
const TYPE_WORDS = new Set([
  'string', 'str', 'number', 'int', 'integer', 'float', 'bool', 'boolean', 'bytes', 'bytearray', 'buffer', 'any', 'unknown',
  'object', 'void', 'never', 'null', 'undefined', 'none', 'optional', 'union', 'list', 'dict', 'record', 'array', 'map',
  'promise', 'secretstr', 'secretbytes', 'char', 'byte', 'uint8array', 'readonly', 'typeof', 'keyof', 'function',
  'callable', 'u8', 'vec', 'option', 'box', 'arc', 'rc', 'cow', 'securestring', 'text', 'varchar', 'blob', 'json', 'jsonb',
]);

/** Sized number types and the like, which TYPE_WORDS leaves out for their digits: Go's, Rust's, C's. */
const PRIMITIVE_TYPE = /^(?:u?int(?:8|16|32|64)?(?:_t)?|uintptr|float(?:32|64)|complex(?:64|128)|rune|error|[iu](?:8|16|32|64|128|size)|f(?:32|64))$/;

function isTypeAnnotation(v: string): boolean {
  const t = v.replace(/[;,]$/, '').trim();
  if (t.length === 0) return false;
  // `[]byte`, `*string`, `&str`, `&'a str`, `?string`, `Option<String>`, `string | undefined`, `() => string`.
  if (/^(?:\[\]|\*|&(?:'[a-z]+\s+)?|\?|readonly\s+|mut\s+)+[A-Za-z_]/.test(t)) return true;
  // Rust's slices and arrays: `&[u8]`, `[u8; 32]`
  if (/^&?(?:'[a-z]+\s+)?\[[A-Za-z_]\w*(?:;\s*\d+)?\]$/.test(t)) return true;
  if (/=>|\bkeyof\b|\btypeof\b/.test(t)) return true;
  const parts = t.split(/\s*\|\s*/);
  return parts.every((p) => {
    const base = p.replace(/(?:\[\])+$/, '').replace(/[<[].*[>\]]$/, '').replace(/\?$/, '');
    if (TYPE_WORDS.has(base.toLowerCase())) return true;
    // PascalCase letters only (a class or interface name), possibly dotted: `Token`, `crypto.KeyObject`.
    // A generated value of letters alone (`GjhhTSDzFjvrnMaM`) is no class name: its words are too short.
    // (also a type parameter's or an interface's, one capital before the word: `TOperator`, `IToken`)
    return (/^(?:[A-Za-z_]\w*\.)*[A-Z]?[A-Z][a-z]+(?:[A-Z][a-z]*)*$/.test(base) && !looksRandom(base, 12)) || /^['"][^'"]*['"]$/.test(base);
  });
}

/** Unquoted code rather than a literal: calls, member access, operators, keywords. */
function isCode(v: string): boolean {
  // Code names no member after a UUID or a digest: `st.<uuid>.<hex>.<hex>` (Infisical) is a token.
  if (/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}/i.test(v) && !/[()[\]\s]/.test(v)) return false;
  // a call whose arguments go on below: `creds = LoadCredential(account,`
  if (/^(?:[A-Za-z_$][\w$]*(?:\.|::|->))*[A-Za-z_$][\w$]*\(/.test(v)) return true;
  // a regex literal
  if (/^\/.+\/[dgimsuyv]*[;,]?$/.test(v) && /[\\[\]()*+?|^$]/.test(v)) return true;
  if (/^(?:new|await|yield|typeof|function|lambda|async|return|not|this|self|cls|super)\b/.test(v)) return true;
  // Perl's and PHP's members: `$self->{+PASS}`, `$this->{bindpasswd}`, `$self->causes_fail`
  if (/^\$[A-Za-z_]\w*(?:->|\{|::)/.test(v)) return true;
  if (/^[!~(]|\|\||&&|\?\?|\s[-+*/?:]\s|^\[|^\{/.test(v)) return true;
  // a member access first, then anything: `t.tokens.length-1`, `self.token or ''`, `opts.key!`
  const member = /^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+/.exec(v);
  // (not when a symbol and a letter or digit follow: `meadow.Winter?maple`, `velvet.Maple!falcon` are passwords of words)
  const wordsPassword = member !== null && /^[@#?!%^~][A-Za-z0-9]/.test(v.slice(member[0].length));
  if (wordsPassword) return false;
  if (member && !member[0].split(/\??\./).some((p) => looksRandom(p, 10))) return true;
  // a.b.c, a?.b, a[0], f(x), a.b(c)
  const code = /^[A-Za-z_$][\w$]*(?:(?:\?\.|\.|::|->)[A-Za-z_$][\w$]*|\[[^\]\n]*\])*(?:\([^\n]*\))?[;,]?$/.exec(v);
  if (code === null) return false;
  if (v.includes('(') || v.includes('[') || v.includes('::') || v.includes('->') || v.includes('?.')) return true;
  // A dotted name is code unless its parts look generated (`pat.Ab3dE…`, `key.secretpart`).
  return v.includes('.') && !v.split(/[.;,]/).some((p) => looksRandom(p, 10));
}

/**
 * `^9.0.0`, `~1.2`, `>=2.0.0-rc.1`, `v1.4.2`: versions (package.json dependencies named `jsonwebtoken`, `secretlint`);
 * Debian's with an epoch and revisions (`1:4.13+dfsg1-1+deb12u1`, a package list's `passwd` package).
 */
const VERSION = /^(?:[\^~<>=]|>=|<=)*(?:\d{1,4}:)?v?\d+(?:\.(?:\d+|x|\*)){1,3}(?:[-+~][\w.+~-]+)?$/;

/** What no rule treats as a secret whatever the name says. */
/** Placeholders joined into a template: `<home_account_id>-<environment>-<credential_type>`. */
const PLACEHOLDER_CHAIN = /^<[^<>\s]{1,60}>(?:[-_.:/]<[^<>\s]{1,60}>)+$/;

/** A value behind its encoding's tag: WebSphere's `{xor}…`, Liberty's `{aes}…`, LDAP's `{SSHA}…` (not an interpolation). */
const ENCODED_VALUE = /^\{(?:xor|aes|hash|enc|S?SHA\d{0,3}|S?MD5|CRYPT|PBKDF2[\w-]{0,20}|ARGON2\w{0,4}|BCRYPT|BLF-CRYPT|SHA\d{3}-CRYPT)\}[A-Za-z0-9+/=.$_-]{4,}$/i;

function notALiteral(v: string): boolean {
  if (ENCODED_VALUE.test(v)) return false;
  return VERSION.test(v) || PLACEHOLDER.test(v) || PAREN_NOTE.test(v) || PLACEHOLDER_CHAIN.test(v) || PLACEHOLDER_WORDS.test(v) || REFERENCE.test(v) || INTERPOLATION.test(v) || v.includes(MARKER_PREFIX) || /\*{4,}|•{3,}/.test(v);
}

/** A value that is hard to take for prose: a digit, a symbol or mixed case, and 6 characters or more. */
function secretLike(v: string): boolean {
  if (v.length < 6 || /\s/.test(v)) return false;
  if (/^[A-Za-z]+$/.test(v) && !/[a-z][A-Z]/.test(v)) return false; // a word
  if (/^[-+]?\d+(?:\.\d+)?$/.test(v)) return false;
  return /[0-9]/.test(v) || /[^A-Za-z0-9]/.test(v) || /[a-z][A-Z]/.test(v);
}

// ---------------------------------------------------------------------------------------------
// Names: which `name = value` assignments hold a secret

type Strength = 'strong' | 'weak' | 'none';

/** Words that make a name a secret's whatever precedes them. */
const STRONG_WORDS = new Set(['password', 'passwd', 'passphrase', 'pwd', 'psk', 'presharedkey', 'pass', 'secret', 'token', 'credential', 'credentials', 'creds', 'private', 'apikey', 'accesskey', 'secretkey', 'privatekey', 'authkey', 'clientsecret', 'authtoken', 'accesstoken', 'refreshtoken', 'apitoken', 'sessiontoken', 'pgpassword', 'dockerconfigjson', 'dockercfg', 'storepass', 'keypass', 'passin', 'passout', 'keystorepass', 'truststorepass', 'srcstorepass', 'deststorepass', 'passcode', 'authorization', 'requirepass', 'masterauth', 'masterpass']);
/** Segments ending in one of these are strong too (`PGPASSWORD`, `GHTOKEN`, `mysecret`). */
const STRONG_SUFFIXES = ['password', 'passwd', 'passphrase', 'secret', 'token', 'apikey', 'accesskey', 'secretkey', 'privatekey'];
/** Words after which `key` is a secret: `ENCRYPTION_KEY`, `stripeKey`, `AccountKey`. */
const SECRET_KEY_QUALIFIERS = new Set(['api', 'access', 'secret', 'private', 'preshared', 'pre', 'auth', 'master', 'encryption', 'encrypt', 'decryption', 'signing', 'sign', 'account', 'shared', 'license', 'licence', 'app', 'application', 'service', 'subscription', 'deploy', 'ssh', 'gpg', 'pgp', 'hmac', 'aes', 'crypt', 'crypto', 'cipher', 'session', 'client', 'consumer', 'stripe', 'webhook', 'jwt', 'root', 'admin', 'write', 'read', 'ingest', 'ingestion', 'management', 'user', 'personal', 'security', 'storage', 'primary', 'secondary', 'server', 'device', 'vault', 'kms', 'wrapping', 'data', 'recovery', 'backup', 'dev', 'prod', 'live', 'test', 'setup', 'join', 'enrollment', 'enroll', 'registration', 'bootstrap']);
/** Words before `key`/`token`/`secret`/`password` that make it something else. */
const NEGATING_QUALIFIERS = new Set([
  // keys of data structures
  'public', 'pub', 'foreign', 'sort', 'partition', 'cache', 'lookup', 'dict', 'object', 'row', 'column', 'react', 'unique', 'composite', 'natural', 'surrogate', 'idempotency', 'dedup', 'dedupe', 'group', 'message', 'event', 'hash', 'range', 'index', 'i18n', 'translation', 'locale', 'route', 'query', 'search', 'state', 'registry', 'shortcut', 'hot', 'press', 'next', 'prev', 'previous', 'last', 'first', 'parent', 'child', 'node', 'item', 'entry', 'element', 'field', 'table', 'attr', 'attribute', 'property', 'prop', 'map', 'name', 'type', 'kind', 'tag', 'label', 's3', 'bucket', 'blob', 'asset', 'primary_key', 'sequence', 'schema', 'idx', 'cursor', 'sort_key',
  // tokens that are not credentials: LLM and lexer tokens, pagination, design tokens
  'max', 'min', 'total', 'num', 'count', 'prompt', 'completion', 'input', 'output', 'context', 'reasoning', 'cached', 'page', 'continuation', 'pagination', 'sync', 'resume', 'cancellation', 'cancel', 'lexer', 'parser', 'syntax', 'ast', 'design', 'color', 'colour', 'theme', 'spacing', 'font', 'special', 'start', 'end', 'eos', 'bos', 'pad', 'unk', 'sep', 'mask', 'cls', 'vocab', 'word', 'sub', 'subword', 'byte', 'char', 'stop', 'new_token', 'added', 'image', 'audio', 'video', 'tool', 'thinking', 'thought', 'expected', 'unexpected', 'current', 'peek', 'lookahead',
  // booleans and settings about a secret
  // quantifiers and ordinals: a pass of an algorithm, a predicate (lodash's `allPass`, `anyPass`; `secondPass`, `multiPass`)
  'all', 'any', 'every', 'each', 'second', 'third', 'multi', 'single', 'double', 'two',
  // a digest of a secret: Helm's `checksum/secret: <sha256>`
  'checksum', 'digest', 'fingerprint',
  'is', 'has', 'show', 'hide', 'use', 'no', 'require', 'requires', 'required', 'forgot', 'forgotten', 'reset', 'toggle', 'with', 'without', 'allow', 'enable', 'disable', 'needs', 'need', 'verify', 'validate', 'check', 'generate', 'get', 'set', 'read', 'write', 'load', 'save', 'store', 'fetch', 'create', 'delete', 'remove', 'rotate', 'refresh_interval',
]);
/** Words after the secret word that describe it instead of holding it: `TOKEN_LIMIT`, `passwordField`, `api_key_header`. */
const METADATA_WORDS = new Set([
  'name', 'names', 'id', 'ids', 'type', 'types', 'kind', 'field', 'fields', 'label', 'labels', 'prompt', 'placeholder', 'hint', 'help', 'description', 'desc', 'title', 'text', 'message', 'messages', 'msg', 'error', 'errors', 'err', 'length', 'len', 'size', 'count', 'limit', 'limits', 'max', 'min', 'num', 'number', 'url', 'urls', 'uri', 'endpoint', 'endpoints', 'path', 'paths', 'file', 'files', 'filename', 'dir', 'directory', 'folder', 'env', 'var', 'variable', 'header', 'headers', 'param', 'params', 'parameter', 'arg', 'args', 'argument', 'option', 'options', 'opt', 'prefix', 'suffix', 'format', 'fmt', 'regex', 'regexp', 're', 'pattern', 'policy', 'rule', 'rules', 'mode', 'provider', 'providers', 'source', 'store', 'storage', 'manager', 'mgr', 'service', 'helper', 'handler', 'callback', 'cb', 'fn', 'func', 'function', 'method', 'input', 'element', 'el', 'button', 'btn', 'class', 'style', 'icon', 'component', 'view', 'page', 'screen', 'form', 'dialog', 'modal', 'expiry', 'expires', 'expiration', 'exp', 'ttl', 'timeout', 'lifetime', 'age', 'created', 'updated', 'at', 'time', 'date', 'timestamp', 'version', 'index', 'idx', 'list', 'map', 'set', 'cache', 'ref', 'reference', 'location', 'loc', 'position', 'pos', 'start', 'end', 'offset', 'range', 'budget', 'usage', 'used', 'remaining', 'estimate', 'estimator', 'counter', 'total', 'per', 'rate', 'ratio', 'cost', 'price', 'window', 'chunk', 'chunks', 'encoder', 'decoder', 'encoding', 'tokenizer', 'parser', 'lexer', 'stream', 'visible', 'visibility', 'required', 'enabled', 'disabled', 'enable', 'disable', 'valid', 'validator', 'validation', 'verify', 'verified', 'check', 'checker', 'strength', 'rotation', 'reset', 'change', 'changed', 'confirm', 'confirmation', 'spec', 'schema', 'def', 'definition', 'scope', 'scopes', 'audience', 'issuer', 'algorithm', 'alg', 'bits', 'strategy', 'flow', 'grant', 'response', 'request', 'req', 'res', 'result', 'status', 'state', 'info', 'meta', 'metadata', 'exists', 'present', 'missing', 'optional', 'sent', 'received', 'lookup', 'bucket', 'vault', 'ring', 'pair', 'alias', 'arn', 'region', 'usage', 'store', 'selector', 'provider', 'kind', 'type', 'class', 'mask', 'masked', 'hidden', 'show', 'input', 'box', 'entry', 'dialog', 'policy', 'requirements', 'complexity', 'salt', 'rounds', 'iterations', 'cost', 'hasher', 'hashing', 'refresh', 'interval', 'period', 'delay', 'retry', 'retries', 'attempts', 'key', 'keys', 'secrets', 'tokens', 'ttl', 'duration', 'seconds', 'secs', 'ms', 'minutes', 'hours', 'days', 'dialog', 'bucket', 'exchange', 'introspection', 'revocation', 'source', 'sources', 'origin', 'target', 'dest', 'kind', 'present', 'set', 'given', 'supplied', 'provided', 'configured', 'is', 'hash', 'digest', 'fingerprint', 'checksum', 'mac', 'hmac', 'id_token', 'uri', 'host', 'port', 'user', 'username', 'login', 'email', 'account',
]);
/** Words after the secret word that keep it a secret: `DB_PASSWORD_PROD`, `SECRET_KEY_BASE`, `token_b64`. */
const NEUTRAL_SUFFIXES = new Set(['value', 'val', 'str', 'string', 'b64', 'base64', 'hex', 'raw', 'plain', 'plaintext', 'clear', 'cleartext', 'enc', 'encrypted', 'hashed', 'prod', 'production', 'dev', 'development', 'test', 'testing', 'staging', 'stage', 'live', 'sandbox', 'local', 'default', 'old', 'new', 'current', 'primary', 'secondary', 'base', 'real', 'actual', 'override', 'literal', 'data', 'content', 'contents', 'material', 'bytes', 'main', 'master', 'admin', 'root', 'v1', 'v2', 'v3', 'pem', 'der', 'jwk', 'json', 'aws', 'gcp', 'azure', 'backup', 'alt', 'fallback', 'override']);
/** Words that make a name a secret's only when its value looks generated. */
const WEAK_WORDS = new Set(['key', 'pat', 'login', 'auth', 'sig', 'signature', 'session', 'sessionid', 'sessid', 'jsessionid', 'phpsessid', 'cookie', 'jwt', 'hmac']);

/** Splits a name into lower-case words: `X-Api-Key` → x api key, `APIKey` → api key, `db.password2` → db password 2. */
function nameWords(name: string): string[] {
  const out: string[] = [];
  for (const piece of name.split(/[_.\-:/\s]+/)) {
    const m = piece.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+/g);
    if (m) for (const w of m) out.push(w.toLowerCase());
  }
  return out;
}

function isStrongWord(w: string): boolean {
  if (STRONG_WORDS.has(w)) return true;
  // Unix daemons' settings: slapd's `rootpw`, ldap.conf's `bindpw`, offlineimap's `remotepass`, sssd's `ldap_default_authtok`.
  if (/^(?:bind|root|admin|db|user|remote|local|smtp|mail|imap|pop|master|proxy)(?:pw|pass)$|^(?:pw|authtok)$/.test(w)) return true;
  if (w === 'tokens' || w === 'secrets' || w === 'oldpwd' || w.endsWith('webtoken')) return false;
  return STRONG_SUFFIXES.some((s) => w.length > s.length && w.endsWith(s));
}

const strengthCache = new Map<string, Strength>();

/** How strongly a name says its value is a secret. */
function nameStrength(name: string): Strength {
  let v = strengthCache.get(name);
  if (v === undefined) {
    if (strengthCache.size > 4096) strengthCache.clear();
    strengthCache.set(name, (v = classifyName(name)));
  }
  return v;
}

/**
 * Whether `s` is inside a block of code: an unclosed `{` in the 4 KB before it, or an indented line
 * under a Python `def`/`class`. Settings files (INI, `.properties`, `.env`) have no blocks.
 */
function insideCodeBlock(text: string, s: number): boolean {
  const from = Math.max(0, s - 4096);
  let depth = 0;
  for (let i = s - 1; i >= from; i--) {
    const c = text.charCodeAt(i);
    if (c === 125 /* } */) depth--;
    else if (c === 123 /* { */ && ++depth > 0) return true;
  }
  return /^[ \t]+$/.test(text.slice(text.lastIndexOf('\n', s - 1) + 1, s)) && /(?:^|\n)[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+\w[^\n]*:[ \t]*\r?\n/.test(text.slice(from, s));
}

/**
 * Whether the name at `s` is in a string that a quote right after its separator (at `sepEnd`) closes: `"unknown token: ", token`
 * (or in Markdown's inline code, closed by a backtick: a release note's "from \x60New Password:\x60, since …").
 */
function insideString(text: string, s: number, sepEnd: number): boolean {
  let q = sepEnd;
  while (text[q] === ' ' || text[q] === '\t') q++;
  const quote = text[q];
  if (quote !== '"' && quote !== "'" && quote !== '`') return false;
  if (!/^[ \t]*(?:[,)+;.]|$)/m.test(text.slice(q + 1, q + 4))) return false;
  const lineStart = text.lastIndexOf('\n', s - 1) + 1;
  let n = 0;
  for (let i = lineStart; i < s; i++) if (text[i] === quote && text[i - 1] !== '\\') n++;
  return n % 2 === 1;
}

/** `api_key.ts:12`, `token.py:40`: a file in a stack trace or a grep hit, not a name. */
const FILE_NAME = /\.(?:ts|tsx|js|jsx|mjs|cjs|py|pyi|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|md|json|jsonl|ndjson|csv|tsv|ya?ml|toml|txt|log|html|css|scss|sh|lock|xml|ini|cfg|conf|d\.ts|sqlite3?|gz|zip|tgz|png|jpe?g|gif|svg|pdf)$/i;

function classifyName(name: string): Strength {
  if (FILE_NAME.test(name)) return 'none';
  const words = nameWords(name).filter((w) => !/^\d+$/.test(w));
  for (let j = words.length - 1; j >= 0; j--) {
    const w = words[j];
    const before = j > 0 ? words[j - 1] : '';
    let strength: Strength = 'none';
    if (w === 'key' || w === 'keys') {
      // Segment's, Amplitude's `write_key`/`writeKey` (a generated value); `readKey()` is a call, not a name.
      if (w === 'key' && (before === 'write' || before === 'read')) strength = 'weak';
      else if (w === 'keys' || NEGATING_QUALIFIERS.has(before)) return 'none';
      else strength = SECRET_KEY_QUALIFIERS.has(before) ? 'strong' : 'weak';
    } else if (w === 'token' && (before === 'api' || before === 'access' || before === 'auth' || before === 'refresh' || before === 'session' || before === 'bearer' || before === 'id' || before === 'oauth' || before === 'security' || before === 'reset' || before === 'verify')) {
      // (a password reset's and a webhook's verify token grant what a password does: `passwordResetToken`, `verify_token`)
      strength = 'strong';
    } else if (w === 'token' && before === 'key' && (words[j - 2] === 'public' || words[j - 2] === 'pub')) {
      return 'none'; // .NET's `publicKeyToken="31bf3856ad364e35"`, a strong name's public key's hash
    } else if (w === 'pw' && before.length === 1) {
      continue; // a MIME type's `application/x-pw`, not a password
    } else if (w === 'ident' && before === 'auth') {
      strength = 'strong'; // Yarn's `npmAuthIdent: "user:password"`
    } else if (w === 'secret' && words[j + 1] === 'id' && j + 2 === words.length) {
      // Vault AppRole's `secret_id` is a credential (weak: a UUID counts beside its `role_id`, as a key's beside a user).
      return NEGATING_QUALIFIERS.has(before) ? 'none' : 'weak';
    } else if (isStrongWord(w)) {
      // `store` is a verb (`storePassword()`) except before a key store's password (Gradle's `storePassword "…"`).
      // (nor in an environment variable's name, where it is a noun: `SNAPCRAFT_STORE_CREDENTIALS`)
      if (NEGATING_QUALIFIERS.has(before) && !(before === 'store' && (/^pass/.test(w) || /^[A-Z0-9_]+$/.test(name)))) return 'none';
      // Helm's `existingSecret: keycloak-db` names a Kubernetes Secret (an `existingPassword` is still a password)
      if (before === 'existing' && w === 'secret') return 'none';
      strength = 'strong';
    } else if (WEAK_WORDS.has(w)) {
      if (NEGATING_QUALIFIERS.has(before)) return 'none';
      strength = 'weak';
    } else {
      continue;
    }
    // What follows the secret word: neutral words keep it, describing words undo it, others weaken it.
    for (const after of words.slice(j + 1)) {
      if (METADATA_WORDS.has(after)) return 'none';
      if (!NEUTRAL_SUFFIXES.has(after)) strength = 'weak';
    }
    return strength;
  }
  return 'none';
}

// ---------------------------------------------------------------------------------------------
// The assignment scanner: `<secret name> <separator> <value>` anywhere in a line

/** Where a name may hold a secret word; the scanner looks at each occurrence. */
/** `pwd`, and `pw` as a name's last word after another or in slapd's and ldap.conf's `rootpw`/`bindpw` (not every `pw`: too many places to look at). */
const PW = String.raw`pw(?:d|(?<=(?:[_-]|bind|root)pw)(?![a-z]))`;
const NAME_WORDS = ['pass', PW, 'psk', 'secret', 'token', 'key', 'auth', 'cred', 'private', 'sig', 'session', 'sessid', 'login', 'dockercfg', 'dockerconfig'];
/** `pat` (a personal access token: `GITLAB_PAT`) only as a word of its own, never inside `path` or `pattern`. */
const NAME_WORD_SCAN = new RegExp(NAME_WORDS.join('|') + '|pat(?![a-z])', 'gi');
/** Longer names are not looked at (a run of name characters that long is data, not a name). */
const MAX_NAME = 100;
/** Bare values longer than this are judged once, cheaply, and skipped over (no name inside is looked at). */
const MAX_VALUE = 512;

const BT = '`';
/** After a strong word: the rest of the name, blanks, then 3 characters of a value, maybe quoted (`password s3cr3t`, `--passphrase 'ab…'`). */
const STRONG_THEN_VALUE = String.raw`[\w.-]{0,${MAX_NAME}}(?:\\?["'${BT}\]]){0,2}[ \t]+(?:\\?["'${BT}])?[^\s"'${BT}\\]{3}`;
/** After any word: the rest of the name, then a separator (`key=`, `"api_key":`, `token ?=`, `<password>`, `key="x" value=`). */
const NAME_THEN_SEPARATOR = String.raw`[\w.-]{0,${MAX_NAME}}(?<!\.(?:ts|tsx|js|jsx|mjs|cjs|py|pyi|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|md|json|ya?ml|toml|txt|log|html|css|scss|sh|lock|xml|ini|cfg|conf))(?:\\?["'${BT}\]]){0,2}(?:[ \t]*[=:,>!?<+]|\\u003[dD]|[ \t]+value[ \t]*=|\([ \t]*["'${BT}]|\)[ \t]*=[ \t]*["'])`;
const ANY_NAME_WORD = `(?:pass|${PW}|psk|secret|token|cred|private|dockerc|authoriz|key|sig|auth|sess|login|pat(?![a-z]))`;
const FLAG_WORD = '(?:key|cred|private|auth|dockerc)';
/** After a flag's word: the rest of the flag, then a blank (`--api-key v`, `--credentials v`). */
const FLAG_THEN_BLANK = String.raw`[\w.-]{0,${MAX_NAME}}[ \t]`;
/** A setting's name after a config setter (CONFIG_SETTER: `atlas config set private_api_key v`), then a blank. */
const CONFIGURED_THEN_BLANK = String.raw`(?<=\b(?:config|configure)[ \t]+(?:set[ \t]+|(?:--[\w=./-]{1,40}[ \t]+){0,4})[\w.-]{0,${MAX_NAME}}${ANY_NAME_WORD})[\w.-]{0,${MAX_NAME}}[ \t]`;
/**
 * The scanner's pre-test: a word of a name, the rest of the name, then what the scanner accepts
 * after a name: a separator, `value=` (an XML attribute), blanks and a value (strong words only:
 * a weak name's value never follows blanks alone), or a flag (`--api-key v`). So `keyof`, `.key)`,
 * `passed 12`, `KeyError` in a stack trace's `key.ts:12` do not make a text run the scanner; tests
 * check it skips nothing the scanner would change.
 */
const NAME_WORD_TRIGGER = new RegExp(
  `(?:pass|${PW}|secret|token|apikey|accesskey|secretkey)${STRONG_THEN_VALUE}|${ANY_NAME_WORD}${NAME_THEN_SEPARATOR}|-[\\w.-]{0,${MAX_NAME}}${FLAG_WORD}${FLAG_THEN_BLANK}|${ANY_NAME_WORD}${CONFIGURED_THEN_BLANK}`,
  'i',
);
/**
 * NAME_WORD_TRIGGER started where a word of CASELESS_WORDS starts (for the pre-test's one scan):
 * `apikey`/`accesskey` are looked at from their `key` (`secretkey` is `secret` followed by name
 * characters), a flag from its word back to its `-`.
 */
const NAME_WORD_AT_WORD = new RegExp(
  `(?:pass|${PW}|secret|token|key(?<=apikey|accesskey))${STRONG_THEN_VALUE}|${ANY_NAME_WORD}${NAME_THEN_SEPARATOR}|(?<=-[\\w.-]{0,${MAX_NAME}})${FLAG_WORD}${FLAG_THEN_BLANK}|${ANY_NAME_WORD}${CONFIGURED_THEN_BLANK}`,
  'iy',
);

function isNameChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;
}

function isQuote(c: string): boolean {
  return c === '"' || c === "'" || c === '`';
}

interface Found {
  start: number;
  end: number;
  secret: string;
}

/** At `p`: the separator after a name (`=`, `:`, `:=`, `=>`, `==`, `?=`, `<-`, `,` after a quoted name, `>` in XML, blanks). */
function readSeparator(text: string, p: number, setter: boolean, xml: boolean): { end: number; sep: string } | undefined {
  const n = text.length;
  let q = p;
  while (q < n && (text[q] === ' ' || text[q] === '\t')) q++;
  const c = text[q];
  // most occurrences of a secret word are followed by none of these
  // Gson and Go's encoding/json write `=` as `\u003d` inside a string: `APP_KEY\u003dbase64:…`
  if (c === '\\' && q === p && /^\\u003[dD]/.test(text.slice(q, q + 6))) return { end: q + 6, sep: '=' };
  if (c !== '=' && c !== ':' && c !== '!' && c !== '?' && c !== '<' && c !== '+' && c !== ',' && c !== '>' && q === p) return undefined;
  const two = text.slice(q, q + 3);
  if (xml && text[p] === '>') return { end: p + 1, sep: '>' };
  if (two.startsWith('===') || two.startsWith('!==')) return { end: q + 3, sep: '==' };
  if (two.startsWith('==') || two.startsWith('!=')) return { end: q + 2, sep: '==' };
  if (two.startsWith(':=') || two.startsWith('=>') || two.startsWith('?=') || two.startsWith('<-') || two.startsWith('+=')) {
    return { end: q + 2, sep: two.slice(0, 2) };
  }
  if (text[q] === '=' || text[q] === ':') {
    // `key::value` (C++ scopes, IPv6) is not an assignment.
    if (text[q] === ':' && text[q + 1] === ':') return undefined;
    return { end: q + 1, sep: text[q] };
  }
  if (text[q] === ',' && setter) return { end: q + 1, sep: ',' };
  if (q > p && q < n && text[q] !== '\n' && text[q] !== '\r') return { end: q, sep: ' ' };
  return undefined;
}

/** Whether `tail`, the end of `value`, closes a bracket opened before it (`Optional[str]`, `arg.slice(-1)[0]`, `colors['base0']`): then it is the value's. */
function closesBracket(value: string, tail: string): boolean {
  const head = value.slice(0, value.length - tail.length);
  return tail.includes(']') && head.split('[').length > head.split(']').length;
}

/** Whether the name starting at `s` begins its line (env files, YAML, INI, shell): `export X=…`, `  - password: …`. */
function startsLine(text: string, s: number): boolean {
  // The prefix is short (indentation, `export `, `- `): no need to look further back than 40 characters.
  let ls = s;
  while (ls > 0 && s - ls < 40 && text[ls - 1] !== '\n' && text[ls - 1] !== '\r' && !(text[ls - 1] === 'n' && text[ls - 2] === '\\')) ls--;
  if (ls > 0 && s - ls >= 40) return false;
  const prefix = text.slice(ls, s);
  // (also after a log level, and Maven's `-X` field marker: `[DEBUG]   (f) password = …`)
  return /^[ \t]*(?:\[(?:DEBUG|INFO|WARN|WARNING|ERROR|TRACE|FINE|FINER)\][ \t]+(?:\([fs]\)[ \t]+)?)?(?:(?:export|set|setx|setenv|ENV|ARG|declare\s+-x|local|readonly|-|\*|>)[ \t]+)?(?:\$env:)?["']?$/.test(prefix);
}

// eslint-disable-next-line no-control-regex -- a NUL ends a value (`/proc/<pid>/environ`)
const VALUE_END = /[\s"'`,;&)\]}<>|\\\u0000]/;

/**
 * Reads the value after a separator at `p`: quoted (`"…"`, `'…'`, `` `…` ``, `\"…\"`), or bare up
 * to a delimiter, or in line mode up to the end of the line (minus a trailing comment).
 */
function readValue(text: string, p: number, lineMode: boolean, sep: string, envLine = false): { start: number; end: number; quoted: boolean; after: number } | undefined {
  const n = text.length;
  let q = p;
  while (q < n && (text[q] === ' ' || text[q] === '\t')) q++;
  // Python/C# string prefixes: f"…", b'…', r"…", @"…", $"…"
  if (q + 1 < n && /[fbruFBRU@$]/.test(text[q]) && isQuote(text[q + 1]) && (q === 0 || !/\w/.test(text[q - 1]))) q++;
  if (sep === '>') {
    // an element's text, up to its closing tag on the same line (not a quoted string after `<token>`)
    const close = text.indexOf('</', q);
    const nl = text.indexOf('\n', q);
    if (close < 0 || (nl >= 0 && nl < close)) return undefined;
    return { start: q, end: close, quoted: true, after: close };
  }
  if (text[q] === '\\' && text[q + 1] === '"') {
    const close = text.indexOf('\\"', q + 2);
    if (close < 0) return undefined;
    const nl = text.indexOf('\n', q);
    if (nl >= 0 && nl < close) return undefined;
    return { start: q + 2, end: close, quoted: true, after: close + 2 };
  }
  if (isQuote(text[q])) {
    const quote = text[q];
    let e = q + 1;
    while (e < n && text[e] !== quote && text[e] !== '\n') {
      if (text[e] === '\\') e++;
      e++;
    }
    if (e >= n || text[e] !== quote) return undefined;
    // `"""` and `''` at the start of a block are not values.
    return { start: q + 1, end: e, quoted: true, after: e + 1 };
  }
  if (lineMode) {
    let e = q;
    // (a NUL ends a value too: `/proc/<pid>/environ`, `env -0`, `find -print0`)
    while (e < n && text[e] !== '\n' && text[e] !== '\r' && text[e] !== '\u0000' && !(text[e] === '\\' && (text[e + 1] === 'n' || text[e + 1] === 'r'))) e++;
    let value = text.slice(q, e);
    // a trailing comment, then trailing punctuation and blanks
    const comment = /(?:^|[ \t])(?:#|\/\/).*$/.exec(value);
    if (comment) value = value.slice(0, comment.index);
    // (an array type's `[]` stays: `idToken: string[];`)
    value = value.replace(/[ \t]+$/, '').replace(/(?<!\[)["'}\]]*[,;]?$/, (t) => (value.length <= t.length ? t : closesBracket(value, t) ? t.replace(/[,;]$/, '') : ''));
    // a Python signature's end: `resource_owner_secret: str):`
    if (/^[A-Za-z_][\w.]*\):$/.test(value)) value = value.slice(0, -2);
    if (value.length === 0) return undefined;
    return { start: q, end: q + value.length, quoted: false, after: q + value.length };
  }
  if (text[q] === '/' && text[q + 1] !== '/') {
    // a regex literal (`/[a-z]+:\/\/…/i`) or a path: up to the end of the line
    let e = q;
    while (e < n && text[e] !== '\n' && text[e] !== '\r') e++;
    const v = text.slice(q, e).replace(/[ \t]+$/, '');
    if (/^\/.+\/[dgimsuyv]*[;,)]?$/.test(v) && /[\\[\]()*+?|^$]/.test(v)) return { start: q, end: q + v.length, quoted: false, after: q + v.length };
  }
  let e = q;
  // after blanks (`requirepass p&ss`, `--password pa;ss`) a value ends at a blank or a quote
  // eslint-disable-next-line no-control-regex -- a NUL ends a value
  const end = sep === ' ' ? /[\s"'`\\\u0000]/ : VALUE_END;
  for (;;) {
    while (e < n && !end.test(text[e])) {
      // a call's arguments belong to the value: `getpass()`, `env("TOKEN", default=None)`
      if (text[e] === '(' || text[e] === '[') {
        const close = text.indexOf(text[e] === '(' ? ')' : ']', e);
        const nl = text.indexOf('\n', e);
        if (close > 0 && (nl < 0 || close < nl)) e = close;
      }
      e++;
    }
    // A line's `NAME=value` (.env, a shell line): `&` then a letter or digit is the value's, not a
    // shell's `&`, `&&` or `&>` nor a query string's `&name=`.
    if (!(envLine && text[e] === '&' && /^&[A-Za-z0-9](?![\w.-]*=)/.test(text.slice(e, e + 120)))) break;
    e++;
  }
  if (e === q) return undefined;
  // (an escaped `=` in a JSON string ends a base64 value's padding: `…PsY\u003d`)
  while (/^\\u003[dD]/.test(text.slice(e, e + 6))) e += 6;
  return { start: q, end: e, quoted: false, after: e };
}

/** A decoded base64 text of `user:password` (docker's `auth`, HTTP Basic). */
function isBase64Credentials(v: string): boolean {
  if (!/^[A-Za-z0-9+/]{8,}={0,2}$/.test(v) || v.length % 4 !== 0) return false;
  const decoded = Buffer.from(v, 'base64').toString('latin1');
  return /^[\x20-\x7e]+:[\x20-\x7e]+$/.test(decoded);
}

/**
 * Whether a value of letters is the name of a field: it holds the name's last part (after `-`, `.` or
 * `/`), and that part is a secret word with a qualifier (`AccountToken`, `continuationtoken`,
 * `private_key: "_RSAPrivateKey"`), not the bare word (`PASSWORD`, `token`).
 */
function namedByValue(v: string, name: string): boolean {
  if (!/^_?[A-Za-z]+(?:_[A-Za-z]+)*$/.test(v) || looksRandom(v, 12)) return false;
  const part = spelled(name.slice(Math.max(name.lastIndexOf('-'), name.lastIndexOf('.'), name.lastIndexOf('/')) + 1));
  if (part.length < 8 || !spelled(v).includes(part)) return false;
  // (longer only as a class's name of capitalised words ending in it: a type quoted in an annotation,
  // `private_key: "_EllipticCurvePrivateKey"`)
  if (v.length > part.length + 12 && !(v.length <= 64 && /^_?(?:[A-Z][a-z]+)+$/.test(v) && spelled(v).endsWith(part))) return false;
  return !BARE_SECRET_WORDS.has(part);
}
/** Secret words alone, with no qualifier: a field's last part that is one of these is not named by a value holding it. */
const BARE_SECRET_WORDS = new Set(['pass', 'pwd', 'psk', 'secret', 'token', 'key', 'auth', 'cred', 'private', 'sig', 'session', 'sessid', 'login', 'password', 'passwd', 'passphrase', 'credential', 'credentials', 'apikey']);

/** A name or a word without case and separators (`REFRESH_TOKEN`, `refresh-token`, `refreshToken` → `refreshtoken`). */
function spelled(v: string): string {
  return v.replace(/[_.-]/g, '').toLowerCase();
}

/** `/etc/nsswitch.conf`'s sources, one or more, perhaps with an action between: `files [SUCCESS=merge] systemd`. */
const NSS_SOURCE = '(?:files|compat|systemd|db|nis|nisplus|ldap|sss|winbind|altfiles|cache|hesiod|extrausers)';
const NSS_SOURCES = new RegExp(String.raw`^${NSS_SOURCE}(?:[ \t]+(?:\[[^\]\n]*\][ \t]*)?${NSS_SOURCE})*$`);

/** Whether the value after a name of this strength is a secret. */
function secretValue(value: string, strength: Strength, how: ValueContext): boolean {
  let v = value.trim();
  if (how.sep === ' ' && !how.quoted) v = v.replace(/[.,:;!?)]+$/, '');
  if (v.length < 3 || notALiteral(v)) return false;
  // A colour (`Token: '#ffffff'`), a CSS selector (`password: "[type=password]"`), a regular expression
  // (`jsonnet_token = r'[^\W\d]\w*'`), a permission or a mode (`id-token: write`, `credentials: 'include'`).
  if (/^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/.test(v) || /^\[[\w-]+(?:[~|^$*]?=[^\]]*)?\]$/.test(v)) return false;
  if ((/\\[wdsWDSb]/.test(v) && /[[\]*+?]|\(\?/.test(v)) || /^(?:read|write|none|include|omit|same-origin)$/.test(v)) return false;
  // a field's word for what it holds (`"user.key": "value"`)
  if (/^(?:value|string|text)$/i.test(v)) return false;
  // A node's or an anchor's name, `#` and lower-case words (xmlbuilder's `convertCDataKey = '#cdata'`, `#text`).
  if (/^#[a-z]+(?:-[a-z]+)*$/.test(v)) return false;
  // The bare word `private` is as often a directive or a visibility (Cache-Control's `private="location"`, which names
  // a header field): a lower-case word after it is no secret.
  if (/^private$/i.test(how.name) && /^[a-z]+(?:-[a-z]+)*$/.test(v)) return false;
  // A template's fields, not their values: netrw's `"machine id password path"` names what goes where.
  if (how.netrc && NETRC_FIELD_WORD.test(v)) return false;
  // Perl's quote-like operators: a regex (`$Token = qr/[\x21…]/`), or a string whose text is on the lines below (`=> qq{`).
  if (/^qr[/{([<|!#]/.test(v) || /^q[qw]?[{([<]$/.test(v)) return false;
  // An auth scheme and a variable interpolated after it (Perl's `"Basic $encoded"`): the secret is the variable's.
  if (/^[A-Za-z][\w-]*[ \t]+\$\{?[A-Za-z_]\w*\}?$/.test(v)) return false;
  // An auth scheme with parameters whose values are words (httplib2's `'WSSE profile="UsernameToken"'`): no credential.
  if (/^[A-Za-z][\w-]*(?:[ \t]+[A-Za-z][\w-]*="[A-Za-z]+(?:-[A-Za-z]+)*",?)+$/.test(v)) return false;
  // A line of a text, words ending in an escaped line break (pydoc's topics: `'pass': 'The "pass" statement\n'`).
  if (how.quoted && /\s/.test(v) && /\\n$/.test(v)) return false;
  // Markdown's inline code after a name in a sentence: a lower-case word there names an identifier (espree's
  // "every node and token: \x60start\x60 and \x60end\x60"), a value with a secret's shape is still one.
  if (how.backtick && how.prose && !how.lineMode && /^[a-z]+(?:_[a-z]+)*$/.test(v)) return false;
  // Terraform's instance `private`: base64 of its JSON metadata (timeouts, schema version), not a key
  if (how.name === 'private' && /^eyJ[A-Za-z0-9+/]+={0,2}$/.test(v) && /^\{"[^"]{1,80}":/.test(Buffer.from(v, 'base64').toString('latin1'))) return false;
  // An id in its source's namespace, `codex:<uuid>`, `claude-code:7f3a`: the id is judged, and a UUID or a short hex id is none.
  const namespaced = strength === 'weak' ? /^[a-z][a-z0-9-]{1,30}:(?!\/\/)([0-9a-f-]+)$/.exec(v) : null;
  if (namespaced && (UUID.test(namespaced[1]) || /^[0-9a-f]{4,12}$/.test(namespaced[1]))) return false;
  if (!how.quoted) {
    // an ABNF rule (RFC 5234): `token = 1*tchar`
    if (/^\d*\*\d*[A-Za-z][\w-]*$/.test(v)) return false;
    // an empty field, then the next one's name: `passphrase= password= scmVersion=`
    if (how.sep === '=' && /^[a-z][a-zA-Z]{1,30}=$/.test(v) && !looksRandom(v.slice(0, -1), 8)) return false;
  }
  // Appended to or joined with something (`MSG += 'or a KeyObject'`, `" --username=" + auth`): a message or a template.
  if ((how.sep === '+=' || how.next === '+') && !looksRandom(v, 12)) return false;
  // (a number in code is a number: `const SIGN_IN_SUBMIT_PASSWORD = 100004;`)
  if (/^[-+]?\d+(?:\.\d+)?$/.test(v)) return how.passwordish && v.length >= 4 && how.sep !== ' ' && !how.quotedName && (how.quoted || !how.spaced || how.lineMode);
  if (/^[-+]?0x[0-9a-fA-F]{1,8}$/.test(v)) return false; // a hex number: `USERNAME_PASSWORD: 0x02`, `STENCIL_PASS: 0x0B96`, `SIOCSLIFTOKEN = -0x7f879679`
  // A comparison with a word is a parser's or a protocol's (`token == "async"`, `key === "Enter"`); a password's
  // comparison, or one with a generated value, still gives the secret away (`if password == "…"`).
  if (how.sep === '==' && !how.passwordish && !looksRandom(v.replace(/^["'`]|["'`]$/g, ''), 8)) return false;
  // (a password's comparison with a lower-case word of at most three letters tests a word or a user, pip's
  // `user_pass == "git"`; `pass === "admin"` still gives a default password away)
  if (how.sep === '==' && how.passwordish && /^["'`]?[a-z]{1,3}["'`]?$/.test(v)) return false;
  // A constant spelling its own name: `REFRESH_TOKEN = "refresh_token"`, `nullOrEmptyToken = "null_or_empty_token"`.
  // (of a dotted name, its last part: `AttributeOID.CHALLENGE_PASSWORD: "challengePassword"`)
  const last = how.name.slice(how.name.lastIndexOf('.') + 1);
  // (also as a label, C++'s `private:` repeated in a column)
  const label = v.replace(/:$/, '');
  if (Math.abs(label.length - last.length) <= 8 && /^[A-Za-z][\w.-]*$/.test(label) && (spelled(label) === spelled(how.name) || spelled(label) === spelled(last))) return false;
  // A field's name as the value, or in it: `customHeaders["X-Market-AccountToken"] = "accountTokenHeader"`,
  // `["x-ms-continuationtoken"] = "continuationToken"`. The name's last part must say more than a bare
  // secret word, or `POSTGRES_PASSWORD: mysecretpassword` would pass for a name.
  if (namedByValue(v, how.name)) return false;
  // `/etc/nsswitch.conf`'s databases name where they are looked up: `passwd:  files systemd`.
  if (/^(?:passwd|shadow|gshadow)$/.test(how.name) && how.sep === ':' && NSS_SOURCES.test(v)) return false;
  // A port (`/etc/services`: `kpasswd  464/tcp`), a path from a variable (`private_key = $dir/private/cakey.pem`).
  if (/^\d{1,5}\/(?:tcp|udp|sctp)$/.test(v) || /^\$\{?[A-Za-z_]\w*\}?[/\\]/.test(v)) return false;
  // A Perl or PHP member, cut at its arrow's `>`: `pass => $self->{+PASS}`.
  if (/^\$[A-Za-z_]\w*-$/.test(v) && how.next === '>') return false;
  if (PATH.test(v) && !v.split(/[/\\]/).some((segment) => looksRandom(segment))) return false;
  // A setting's key, dotted words (`ENCRYPTION_KEY = "msal.cache.encryption"`, `"scroll.openai.apiKey"`).
  if (/^[a-z][A-Za-z]*(?:\.[a-z][A-Za-z]*){2,}$/.test(v)) return false;
  if (/^https?:\/\/[^\s@]*$/.test(v)) return false; // a URL without credentials (the URL rule handles those)
  // (code, whatever the name: `SERVER_AUTH = ObjectIdentifier("1.3.6.1.5.5.7.3.1")`, `key = arg.slice(-1)[0]`)
  if (!how.quoted && !how.query && strength === 'weak' && isCode(v)) return false;
  // (in a block of code, a long camelCase name of words is a variable: `hello.supportedSignatureAlgorithms = testingOnlyForce…Algorithms`)
  if (how.inBlock && /^[a-z]+(?:[A-Z][a-z]+){2,}$/.test(v)) return false;
  if (strength === 'weak' || (how.quotedName && !how.quoted)) {
    // `"password": password` in a dict or object literal is a variable unless it looks generated.
    if (UUID.test(v) && strength === 'weak' && !how.paired) return false;
    if (/^key$/i.test(how.name) && HEX_DIGEST.test(v) && !how.paired) return false;
    // An OpenPGP key's id or fingerprint (16 or 40 hex digits of one case) under a name whose `key` has no secret's
    // qualifier: Apache Commons' `<commons.releaseManagerKey>86fdc7e2a11262cb</…>`, public (not beside a user, nor in a query).
    if (/^(?:[0-9a-f]{16}|[0-9A-F]{16}|[0-9a-f]{40}|[0-9A-F]{40})$/.test(v) && !how.paired && !how.query && /^.+[^A-Za-z]key$|[a-z]Key$/.test(how.name) && nameStrength(how.name) === 'weak') return false;
    return looksRandom(v, 16) || (strength === 'weak' && isBase64Credentials(v)) || (v.length >= 32 && /^[A-Za-z0-9+/=_-]+$/.test(v) && shannon(v) >= 4);
  }
  // Strong names: anything written as a literal, unless it is prose, a type or code.
  if (how.sep === '==' && !how.quoted) return false; // a comparison with an expression
  if (how.quoted) {
    const words = v.split(/\s+/).length;
    if (words >= 5 || (words >= 3 && /[.!?:]$/.test(v))) return false;
    // A list of names: `IDTOKEN_TOKEN_REFRESHTOKEN: "id_token token refresh_token"`.
    if (words >= 2 && v.split(/\s+/).every((w) => /^[a-z]+(?:_[a-z]+)*$/.test(w) && nameStrength(w) !== 'none')) return false;
    // (a call quoted in prose after the word: "simply pass \x60v8::Isolate::GetCurrent()\x60")
    if (how.sep === ' ' && /[(:]/.test(v) && isCode(v)) return false;
    // (a passphrase of words after its flag: `gpg --passphrase 'thunder tundra granite violet'`)
    if (how.sep === ' ' && how.flag && how.passwordish && /^[a-z]+(?:[ -][a-z]+){2,7}$/i.test(v)) return true;
    if (how.sep === ' ' && (v.length < 6 || !(looksRandom(v) || (/\d/.test(v) && /[A-Za-z]/.test(v) && !/\s/.test(v))))) return false;
    // a constant's name (`TOKEN: "TOKEN_STRING"`)
    if (/^[A-Z]+(?:_[A-Z]+)+$/.test(v)) return false;
    return true;
  }
  // Unquoted with blanks inside is prose or code: `credentials: google.auth.Credentials, the …`.
  if (/\s/.test(v)) return false;
  // A member's unquoted value is an expression (`self.token = nextchar`, `this.secret = EOF`), and so is a capitalised
  // word without digits (`token=EOF`, `PASSWORD=CHANGEME`): unless either looks generated.
  if ((/^(?:self|this)\./.test(how.name) || /^[A-Z][A-Z_]*$/.test(v)) && !looksRandom(v, 12)) return false;
  if ((how.sep === ':' || how.sep === '=') && isTypeAnnotation(v) && !/\d/.test(v)) return false;
  // (a URL's query holds no code: `?user=shop&password=Psqsel09.whu`; nor does a password flag's value on a command
  // line, whose dots are a passphrase's: `-storepass Pixel.Zephyr.83`)
  if (!how.query && !(how.flag && how.sep === ' ' && strength === 'strong' && /\d/.test(v) && !/[()[\]{}$]/.test(v)) && isCode(v)) return false;
  // A bare name that names a secret itself is a variable: `password=password`, `token: accessToken`.
  // A name is words, perhaps a digit or two at the end; `s3cr3tPass`, `pass1234` and a generated
  // `keyGYu1N1PErEKWST` (an Airtable key) start with or hold a name word but are literals.
  // (Not a long run of lower-case letters on a setting's line: the postgres image's `POSTGRES_PASSWORD: mysecretpassword`.)
  // (also Vim script's scoped variables: `let s:netrw_passwd= g:netrw_passwd`)
  if (/^a:\d{1,2}$/.test(v)) return false; // a Vim function's numbered argument: `let g:netrw_passwd=a:2`
  const variable = v.replace(/^[gbwtslav]:(?=[A-Za-z_])/, '');
  if (/^[A-Za-z_$][A-Za-z_$]*\d{0,2}$/.test(variable) && nameStrength(variable) !== 'none' && !looksRandom(variable, 12) && !(how.lineMode && /^[a-z]{12,}$/.test(variable))) return false;
  // f(password=pw); not a generated value before a comma (`-o username=ops,password=<generated>,vers=3.0`)
  if (/^[A-Za-z_][\w]*$/.test(v) && (how.next === ',' || how.next === ')' || how.next === '}') && !how.flag && !looksRandom(v, 12)) return false;
  // `self.passwd = password_mgr`, `this.token = raw_token`: a member set from a variable.
  if (/^[a-z_][a-z0-9]*(?:_[a-z0-9]+)+$/.test(v) && /[.]/.test(how.name)) return false;
  // A member of a secret's object set from a variable, in code's spacing: markdown-it's `token.content = decoded`.
  if (how.spaced && how.sep === '=' && NEUTRAL_SUFFIXES.has(last.toLowerCase()) && last !== how.name && /^[A-Za-z_$][A-Za-z_$]*$/.test(v) && !looksRandom(v, 12)) return false;
  if (how.sep === ' ') {
    // `--token abc123`, `.netrc`'s `password s3cr3t`, `aws configure set aws_secret_access_key <generated>`;
    // not `password field`, `token sqlite3 database`, `--password PASSWORD`.
    // (`=` ends a label unless it pads a long generated value: base64 `…==`)
    // (nor a setting after a verb: `Pass type_comments=True to …`)
    // (nor a declaration's type: Go's `readerPass uint32`, `socksAuthMethodUsernamePassword socksAuthMethod = 0x02`)
    // (an upper-case word is a placeholder, `--password PASSWORD`, unless generated: a runner's `--token AB5F…`)
    if (how.next === '=' || (!how.netrc && !how.flag && (isTypeAnnotation(v) || PRIMITIVE_TYPE.test(v))) || (/^[A-Z][A-Z0-9_]*$/.test(v) && !(/\d/.test(v) && looksRandom(v))) || /^[-[*&({<]/.test(v) || /:$/.test(v) || /^[A-Za-z_][\w.-]*=[^=]/.test(v) || (/=$/.test(v) && !(/^[A-Za-z0-9+/._:-]{16,}={1,2}$/.test(v) && looksRandom(v.replace(/=+$/, ''))))) return false;
    // (a key's or token's flag takes a long value: a short one is its id, `altool --apiKey 8LE5GS6SG3`)
    if (how.flag && !how.passwordish && v.length < 16 && !looksRandom(v, 12)) return false;
    // A line's `name value` ends there: a value of words with more words after it is a list or a sentence
    // (`regen-token regen-ast regen-keyword`, `id_token and/or UserInfo`), not squid's `cachemgr_passwd <pw> info menu`.
    if (how.lineMode && !how.flag && !how.netrc && /[A-Za-z0-9]/.test(how.next) && !/\d/.test(v) && !looksRandom(v)) return false;
    return looksRandom(v) || ((how.flag || how.lineMode) && secretLike(v)) || (how.netrc && v.length >= 4);
  }
  // A statement ending in `;` is code too, wherever it starts: `password = strict;`, `key = arg.slice(-1)[0];`.
  if (how.spaced && how.sep === '=' && how.next === ';') return looksRandom(v, 12);
  // In code, an unquoted right-hand side is an expression: `id_token = result`, `token = 1*tchar`, Haskell's and R's
  // `apiKey <- fromMaybe …`; so is a variable's name on a line of its own inside a function's block
  // (Go's `w.token = params`, `pwd = name // always absolute`), where a settings file has none.
  if ((how.spaced && !how.lineMode && how.sep === '=') || how.sep === '<-' || how.inBlock) return looksRandom(v, 12);
  if (!how.lineMode && how.sep === ':' && !how.flag) return secretLike(v) || looksRandom(v);
  return true;
}

interface ValueContext {
  /** The separator has blanks on both sides (`token = result`): code style. */
  spaced: boolean;
  quoted: boolean;
  quotedName: boolean;
  sep: string;
  lineMode: boolean;
  passwordish: boolean;
  flag: boolean;
  /** The line is a `.netrc` entry (`machine … login … password …`). */
  netrc: boolean;
  /** The same line names a user (`{"username": "…", "key": "…"}`): a weak name's hex or UUID value is a credential too. */
  paired?: boolean;
  name: string;
  next: string;
  /** The name is a parameter of a URL's query (`…://…?password=…`). */
  query?: boolean;
  /** An unquoted name on its own line, set to a name, inside a block of code (braces, or a Python `def`). */
  inBlock?: boolean;
  /** The value is quoted with backticks (Markdown's inline code, a template literal). */
  backtick?: boolean;
  /** A word and a blank come before the name (`node and token: …`): a sentence rather than a setting. */
  prose?: boolean;
}

/** Words that name a netrc field rather than fill it (a template: `machine host login user password path`). */
const NETRC_FIELD_WORD = /^(?:path|file|filename|dir|directory|host|hostname|user|userid|username|name|id|login|email|url)$/i;

/** Before a setting's name: `npm config set`, `yc config set`, `aws configure set`, `git config --global`. */
const CONFIG_SETTER = /(?:^|[\s;&|(])(?:[\w.-]{1,40}[ \t]+)?(?:config|configure)[ \t]+(?:set[ \t]+|(?:--(?:global|local|system|file[ \t=]+\S{1,200})[ \t]+){0,4})$/;

/** Names whose value may follow after blanks alone (`password s3cr3t`, `--token abc`): not `private`, `credentials`, `auth`. */
function blankSeparated(name: string): boolean {
  return nameWords(name).some((w) => (/pass|pwd|secret|token|apikey|accesskey|secretkey/.test(w) || /^(?:bind|root)pw$/.test(w)) && w !== 'tokens' && w !== 'secrets');
}

/**
 * `nameHits`: where NAME_WORD_SCAN matches in `text`, in order, when the pre-test has found them
 * already (its scan for the gate's words passes every place a name word starts); else the scanner
 * finds them itself.
 */
function scanAssignments(text: string, mark: Marker, nameHits?: readonly number[]): string {
  const found: Found[] = [];
  // Markers already in the text (from earlier rules): names inside them are not names.
  const markers: Array<[number, number]> = [];
  for (let i = text.indexOf(MARKER_PREFIX); i >= 0; i = text.indexOf(MARKER_PREFIX, i + 1)) {
    const close = text.indexOf(']', i);
    markers.push([i, close < 0 ? text.length : close]);
  }
  let mi = 0;
  let resume = 0;
  let k = 0;
  // The first place a name word starts at or after `resume`.
  const nextHit = (): number => {
    if (nameHits) {
      while (k < nameHits.length && nameHits[k] < resume) k++;
      return k < nameHits.length ? nameHits[k++] : -1;
    }
    NAME_WORD_SCAN.lastIndex = resume;
    const m = NAME_WORD_SCAN.exec(text);
    return m === null ? -1 : m.index;
  };
  for (let hit = nextHit(); hit >= 0; hit = nextHit()) {
    let s = hit;
    while (s > 0 && isNameChar(text.charCodeAt(s - 1))) s--;
    // a name word is made of name characters: the name runs on to the end of the run
    let e = hit;
    while (e < text.length && isNameChar(text.charCodeAt(e))) e++;
    resume = e;
    while (e > s && (text[e - 1] === '.' || text[e - 1] === '-')) e--;
    let flag = false;
    while (s < e && text[s] === '-') (s++, (flag = true));
    if (flag && text[s] === 'D' && text[s - 1] === '-' && text[s - 2] !== '-') s++; // -Dspring.datasource.password=…
    if (e <= s || e - s > MAX_NAME) continue;
    while (mi < markers.length && markers[mi][1] < s) mi++;
    if (mi < markers.length && markers[mi][0] <= s) continue;
    // After the name: a closing quote or bracket (`"password":`, `env["TOKEN"] =`), then the separator.
    let p = e;
    let quotedName = false;
    let openQuote = -1;
    if (text[p] === '\\' && text[p + 1] === '"' && text[s - 1] === '"' && text[s - 2] === '\\') (p += 2), (quotedName = true), (openQuote = s - 2);
    else if (isQuote(text[p] ?? '') && text[s - 1] === text[p]) p++, (quotedName = true), (openQuote = s - 1);
    if (text[p] === ']') p++;
    // (with a namespace's prefix: SOAP's `<wsse:Password>`)
    const opensElement = text[s - 1] === '<' || (text[s - 1] === ':' && /<[A-Za-z][\w.-]{0,30}:$/.test(text.slice(Math.max(0, s - 33), s)));
    const xml = opensElement && text[p] === '>';
    // An element with attributes: `<wsse:Password Type="…#PasswordText">…</wsse:Password>`.
    const attributed = opensElement && !quotedName && (text[p] === ' ' || text[p] === '\t') ? /^(?:[ \t]+[\w:.-]+[ \t]*=[ \t]*(?:"[^"\n<>]*"|'[^'\n<>]*'))+[ \t]*>(?!<)/.exec(text.slice(p, p + 400)) : null;
    // An Erlang tuple `{smtp_password,"…"}`: an atom, a comma, the value.
    const tuple = !quotedName && text[s - 1] === '{' && /^,[ \t]*["']/.test(text.slice(p, p + 4));
    // `<add key="Password" value="…" />`: the value is an attribute of the same element.
    const attr = quotedName ? /^\s+value\s*=\s*/i.exec(text.slice(p, p + 20)) : null;
    // `define('DB_PASSWORD', '…')`, `headers.set("X-Api-Key", "…")`, Elixir's `fetch_env.("SECRET", "…")`:
    // a quoted name as a call's first argument.
    // A later argument after quoted ones names the next as well, when the next looks generated: Gradle's
    // `buildConfigField("String", "API_KEY", "\"…\"")`, `resValue("string", "maps_key", "…")` (not `Consumer("key", "secret", "application")`).
    const argument = quotedName ? /[\w$]\.?\([ \t]*((?:(?:"[^"\n]{0,40}"|'[^'\n]{0,40}')[ \t]*,[ \t]*){0,3})$/.exec(text.slice(Math.max(0, openQuote - 160), openQuote)) : null;
    // A key derivation takes the password first and the salt next (`pbkdf2('secret', 'salt', …)`): the salt is no secret.
    if (argument !== null && /(?:pbkdf2|scrypt|bcrypt|argon2|hkdf|hashpw|derive_?key)[\w$]*\.?\([ \t]*(?:(?:"[^"\n]{0,40}"|'[^'\n]{0,40}')[ \t]*,[ \t]*){0,3}$/i.test(text.slice(Math.max(0, openQuote - 160), openQuote))) continue;
    const setter = argument !== null;
    const laterArgument = argument !== null && argument[1] !== '';
    // VBScript's and VBA's indexed properties set like members: `app.Value("Password") = "…"`.
    const indexed = setter && !laterArgument && /^\)[ \t]*=[ \t]*["']/.test(text.slice(p, p + 8));
    // `(("x-goog-api-key", "…"),)`, `[["X-Api-Key", "…"]]`: a quoted name first in a tuple or an array is a pair's name
    // only for a generated value (`("password", "email")` lists form fields).
    const pair = quotedName && !setter && /(?:^|[^\w$.\]])[([][ \t]*$/.test(text.slice(Math.max(0, openQuote - 8), openQuote));
    // `client.setApiKey("…")`, `.withToken('…')`: a literal handed to a call named for a secret.
    const call = !quotedName && text[p] === '(' ? /^\([ \t]*(?=["'`])/.exec(text.slice(p, p + 8)) : null;
    // Markup that names the value in one place and holds it in the next: a plist's `<key>ApiToken</key> <string>…</string>`,
    // Android's `<string name="api_secret">…</string>`, Java's `<entry key="password">…</entry>`.
    const plist = !quotedName && text[p] === '<' && text.startsWith('<key>', s - 5) ? /^<\/key>[ \t]*(?:\r?\n[ \t]*)?<string>/.exec(text.slice(p, p + 80)) : null;
    const element = quotedName && text[p] === '>' && text[openQuote] === '"' && /<[\w:.-]+(?:[ \t]+[\w:.-]+="[^"\n<>]*")*[ \t]+(?:name|key)=$/.test(text.slice(Math.max(0, openQuote - 120), openQuote));
    const sep = attr
      ? { end: p + attr[0].length, sep: '=' }
      : call
        ? { end: p + call[0].length, sep: '(' }
        : plist
          ? { end: p + plist[0].length, sep: '>' }
          : element
            ? { end: p + 1, sep: '>' }
            : attributed
              ? { end: p + attributed[0].length, sep: '>' }
              : indexed
                ? readSeparator(text, p + 1, false, false)
                : readSeparator(text, p, setter || pair || tuple, xml);
    if (!sep) continue;
    // `type CipherKey = …`, `class TokenStore:`, `interface Secret {`: declarations, not values.
    if (/(?:^|[^\w])(?:type|interface|class|enum|struct|def|function|func|fn|trait|impl|namespace|module)[ \t]+$/.test(text.slice(Math.max(0, s - 12), s))) continue;
    // A switch's label, `case X.RefreshToken:` (minified code runs the next statement on, `…:o=await …`).
    if (sep.sep === ':' && !quotedName && /(?:^|[;{}:\n])[ \t]*case[ \t]+$/.test(text.slice(Math.max(0, s - 40), s))) continue;
    // A ternary's branches (`isPrivate ? "restrictedPrivate" : "restricted"`, Perl's `$as->{pass} ? "PASS" : "FAIL"`).
    if (quotedName && sep.sep === ':' && /\?[ \t]*$/.test(text.slice(Math.max(0, openQuote - 8), openQuote))) continue;
    // A label inside a string, whose quote closes after the separator: `print("unknown token: ", token)`.
    if (!quotedName && (sep.sep === ':' || sep.sep === '=') && insideString(text, s, sep.end)) continue;
    // `go test -v`'s result lines: `--- PASS: TestName (0.00s)`.
    if (text.startsWith('PASS:', s) && /(?:^|\n)[ \t]*---[ \t]+$/.test(text.slice(Math.max(0, s - 40), s))) continue;
    // A docstring's field list: `:param token: …`, `:type password: str`, `@param {string} token …`.
    if (/(?::(?:param|type|arg|argument|keyword|kwarg|ivar|cvar|var|raises)[ \t]+(?:[\w.[\], ]{1,40}[ \t]+)?|@param[ \t]+(?:\{[^}\n]{0,60}\}[ \t]+)?)$/.test(text.slice(Math.max(0, s - 80), s))) continue;
    // A reStructuredText role, `:token:\`bracket_open\``, names what follows; a name in a regex literal (`/^pass:/`) is a pattern.
    if ((text[s - 1] === ':' && text[p] === ':' && text[p + 1] === BT && !/\w/.test(text[s - 2] ?? '')) || (text[s - 1] === '^' && text[s - 2] === '/')) continue;
    const name = text.slice(s, e);
    // `dataSource.setPassword("…")`, `.with_token('…')`: the verb says the literal is what the secret is set to.
    const named = call ? name.replace(/(^|[.:>])(?:set|with|use)_?(?=[A-Z_])/, '$1') : name;
    // `npm config set`, `aws configure set`, `git config --global`: a setting's name, then its value after a blank.
    const configured = !quotedName && !flag && CONFIG_SETTER.test(text.slice(Math.max(0, s - 40), s));
    // "public key: …", "max tokens: …", "next token = …": the word before counts (not a config setter's `set`).
    const prev = configured ? null : /([A-Za-z]+)[ \t]$/.exec(text.slice(Math.max(0, s - 24), s));
    // (not `with` before a quoted value: fetchmail's `user 'u' there with password '…'`)
    const withQuoted = prev !== null && /^with$/i.test(prev[1]) && sep.sep === ' ' && /^[ \t]*["']/.test(text.slice(sep.end, sep.end + 4));
    let strength = nameStrength(prev && !quotedName && !withQuoted ? `${prev[1]}_${named}` : named) === 'none' ? 'none' : nameStrength(named);
    if (strength === 'none' || (call && strength !== 'strong')) continue;
    // A model's signature of its reasoning (Claude's thinking blocks: `{"type": "thinking", …, "signature": "…"}`) is
    // handed back to the model, not a credential.
    if (quotedName && strength === 'weak' && /^signature$/i.test(name) && inThinkingBlock(text, openQuote)) continue;
    // A call's literal must look generated, as a weak name's value does (`setPassword("Enter it")` is text); so must a pair's.
    if (call || laterArgument || (pair && sep.sep === ',')) strength = 'weak';
    // After blanks alone: a strong name's value, and a generated value of a `--key` or `--auth` flag
    // (`netlify deploy --auth <token>`; the weak branch of secretValue wants it generated).
    const weakFlag = flag && strength === 'weak' && nameWords(name).some((w) => w === 'key' || w === 'auth');
    if (sep.sep === ' ' && !(strength === 'strong' && (flag || configured || blankSeparated(name))) && !weakFlag) continue;
    // A value may follow a type annotation: `password: str = "…"`, `token: string = '…'`.
    let vp = sep.end;
    // PHP's var_dump: `["api_secret"]=>` then `string(40) "…"` on the next line.
    if (sep.sep === '=>') {
      const dumped = /^\s*string\(\d+\)[ \t]*(?=")/.exec(text.slice(vp, vp + 40));
      if (dumped) vp += dumped[0].length;
    }
    if (sep.sep === ':' || sep.sep === ' ') {
      // (also Rust's `&str`, `&'static str`, `&[u8]`)
      const annotated = /^[ \t]*(?:&(?:'[a-z]+[ \t]+)?(?:mut[ \t]+)?)?(?:[A-Za-z_][\w.]*(?:\[[^\]=\n]*\]|<[^>=\n]*>)?|\[[A-Za-z_]\w*(?:;[ \t]*\d+)?\])(?:[ \t]*\|[ \t]*[A-Za-z_][\w.]*(?:\[[^\]=\n]*\])?)*[ \t]*=(?!=)/.exec(text.slice(vp, vp + 80));
      if (annotated && isTypeAnnotation(annotated[0].replace(/=$/, '').trim())) vp += annotated[0].length;
    }
    // (not a string that opens before the name and holds `name:field`, Scheme's `"passwd:dir"`: a line of settings starts with its name)
    const lineMode = vp === sep.end && startsLine(text, quotedName ? openQuote : s) && !(sep.sep === ':' && !quotedName && isQuote(text[s - 1] ?? ''));
    const value = readValue(text, vp, lineMode && sep.sep === ':', sep.sep, lineMode && sep.sep === '=');
    if (!value) {
      // A YAML plain scalar may start on the next, deeper line (`root_password:` then the value alone below it, as Salt's
      // outputter prints a pillar); not a mapping or a list there, nor a deeper line after it.
      const below = lineMode && sep.sep === ':' && strength === 'strong' ? nextLineScalar(text, sep.end, s) : undefined;
      if (below && secretValue(below.value, strength, { spaced: false, quoted: false, quotedName, sep: ':', lineMode: true, passwordish: false, flag: false, netrc: false, name, next: '' })) {
        found.push({ start: below.start, end: below.start + below.value.length, secret: below.value });
        resume = Math.max(resume, below.start + below.value.length);
      }
      continue;
    }
    let vs = value.start;
    let secret = text.slice(vs, value.end);
    // A literal that holds a literal (Gradle's `"\"…\""`): the inner one is the value.
    if (value.quoted && secret.length > 4 && secret.startsWith('\\"') && secret.endsWith('\\"')) (vs += 2), (secret = secret.slice(2, -2));
    // A type token's scope, not a value: a Pulumi URN's `…/randomPassword:RandomPassword::ledger-db`.
    if (!value.quoted && /^[A-Z][a-z]+(?:[A-Z][a-z]+)*::/.test(text.slice(value.start, value.end + 2))) continue;
    // A digest's annotation names what it digests: Helm's `checksum/secret: <sha256>`.
    if (/(?:checksum|digest|hash|sha\d{0,3})\/$/i.test(text.slice(Math.max(0, s - 10), s))) continue;
    // hiera-eyaml's decrypted value, `DEC::PKCS7[<pw>]!`: the password is inside.
    const eyaml = /^DEC(?:\(\d+\))?::PKCS7\[(.+)\]!$/.exec(secret);
    if (eyaml) (vs += secret.length - eyaml[1].length - 2), (secret = eyaml[1]);
    // openssl's `-passin pass:…`, `-pass pass:…`
    if (/^pass:/.test(secret)) (vs += 5), (secret = secret.slice(5));
    // Yarn's `npmAuthIdent: "user:password"`, ProxySQL's `admin_credentials="admin:password"`: the user stays.
    const identUser = /(?:ident|credentials)$/i.test(name) ? /^[A-Za-z_][\w.@-]{0,63}:(?=[^\s/])/.exec(secret) : null;
    if (identUser) (vs += identUser[0].length), (secret = secret.slice(identUser[0].length));
    // A user and a password under an `auth` name (mitmproxy's `upstream_auth: user:<pw>`, `proxy_auth=u:<pw>`): the user stays.
    const authPair = !identUser && !flag && /auth$/i.test(name) ? /^([A-Za-z_][\w.@-]{0,63}:)([^\s:/"']{6,200})$/.exec(secret) : null;
    if (authPair && typedPassword(authPair[2])) (vs += authPair[1].length), (secret = authPair[2]), (strength = 'strong');
    // YAML block scalars `password: |` hold the value on the lines below.
    if (!value.quoted && /^[|>][-+]?$/.test(secret) && sep.sep === ':') {
      const block = /^\r?\n([ \t]+)\S[^\n]*(?:\r?\n\1[^\n]*)*/.exec(text.slice(value.end));
      if (block && strength === 'strong') {
        const start = value.end + block[0].indexOf(block[1]) + block[1].length;
        const end = value.end + block[0].replace(/\s+$/, '').length;
        found.push({ start, end, secret: text.slice(start, end) });
        resume = end;
      }
      continue;
    }
    // Google's app passwords are shown as four groups of four random letters: `spring.mail.password=hlaf uayv qwih dvhw`
    // (random letters hold about one vowel in five, English words two: "what does this mean" is a sentence).
    const appPassword = !value.quoted && strength === 'strong' ? /^[a-z]{4}(?: [a-z]{4}){3}(?![A-Za-z0-9])/.exec(text.slice(vs, vs + 24)) : null;
    if (appPassword && (appPassword[0].match(/[aeiou]/g)?.length ?? 0) <= 4 && nameWords(name).some((w) => /pass|pwd/.test(w))) {
      found.push({ start: vs, end: vs + appPassword[0].length, secret: appPassword[0] });
      resume = Math.max(resume, vs + appPassword[0].length);
      continue;
    }
    if (!value.quoted && secret.length > MAX_VALUE) {
      // One look at a long bare value (an AWS session token, a base64 blob), then past it: names
      // inside it are data, and reading it again for each would cost its length squared.
      if (strength === 'strong' ? /^[A-Za-z0-9+/=_.~%-]+$/.test(secret) && looksRandom(secret.slice(0, 64)) : looksRandom(secret.slice(0, 64))) {
        found.push({ start: vs, end: vs + secret.length, secret });
      }
      resume = Math.max(resume, value.after);
      continue;
    }
    let nx = value.after;
    while (text[nx] === ' ' || text[nx] === '\t') nx++;
    const next = text[nx] ?? '';
    const passwordish = nameWords(name).some((w) => /pass|pwd|pin/.test(w));
    const spaced = /[ \t]$/.test(text.slice(p, sep.end - sep.sep.length) + (sep.sep === ' ' ? ' ' : '')) && /^[ \t]/.test(text.slice(sep.end, sep.end + 1));
    const netrc = sep.sep === ' ' && /^pass(?:word|wd)?$/i.test(name) && /(?:\bmachine[ \t]+\S+|(?:^|\n)[ \t]*default|\blogin[ \t]+\S+)\s+$/.test(text.slice(Math.max(0, s - 200), s));
    // Only a UUID or a hex digest needs the user beside it (secretValue's weak branch): the line is read for those alone.
    const bare = secret.trim();
    // In a URL's query a key's hex value is the key (`?key=<hex>&…`), as when a user is named beside it.
    const query = inUrlQuery(text, s, sep.sep);
    const paired = strength === 'weak' && (sep.sep === ':' || sep.sep === '=') && (UUID.test(bare) || HEX_DIGEST.test(bare)) && (query || namesUser(text, s, value.after));
    // A union of literal types: `root_key: 'HKLM' | 'HKEY_LOCAL_MACHINE' | …` (not a fallback: `'…' || x`).
    if (value.quoted && sep.sep === ':' && next === '|' && text[nx + 1] !== '|') continue;
    // An operand of a test is not the value assigned: `isPrivateKeyJSON = "private_key_id" in credentials`.
    if (value.quoted && /^(?:(?:not[ \t]+)?in|instanceof)[ \t]+[A-Za-z_$]|^[!=]==?(?!=)/.test(text.slice(nx, nx + 16)) && !looksRandom(bare, 16)) continue;
    // (spaced: a shell function's `export DB_PASSWORD=hunter2` is inside braces too)
    const inBlock = lineMode && spaced && !quotedName && !value.quoted && sep.sep === '=' && /^[A-Za-z_$][\w$]*$/.test(bare) && insideCodeBlock(text, s);
    // (an element with attributes is as often markup's vocabulary, `<token type="keyword">return</token>`: a password's shape only)
    if (attributed && !(typedPassword(bare) || looksRandom(bare, 12))) continue;
    const backtick = value.quoted && text[value.start - 1] === BT;
    if (secretValue(secret, strength, { spaced, quoted: value.quoted, quotedName, sep: sep.sep, lineMode, passwordish, flag: flag || configured, netrc, paired, name, next, query, inBlock, backtick, prose: prev !== null && !quotedName })) {
      let trimmed = secret.replace(/\s+$/, '');
      if (sep.sep === ' ' && !value.quoted) trimmed = trimmed.replace(/[.,:;!?)]+$/, '');
      found.push({ start: vs, end: vs + trimmed.length, secret: trimmed });
      resume = Math.max(resume, value.after);
    }
  }
  return splice(text, found, 'secret', mark);
}

/**
 * Whether the JSON object holding the key quoted at `at` is a thinking block (`"type": "thinking"` or
 * `"redacted_thinking"`, plain or inside a JSON string's escapes): the last `"type"` key before it is the object's own
 * (a string's quotes are escaped, so no `"type"` inside the thinking text matches).
 */
function inThinkingBlock(text: string, at: number): boolean {
  const plain = text.lastIndexOf('"type"', at);
  const escaped = text.lastIndexOf('\\"type\\"', at);
  const t = Math.max(plain, escaped);
  return t >= 0 && /^\\?"type\\?"[ \t]*:[ \t]*\\?"(?:redacted_)?thinking\\?"/.test(text.slice(t, t + 48));
}

/** The scalar alone on the line below a `name:` that ends its line, indented deeper than the name (YAML's plain scalar). */
function nextLineScalar(text: string, from: number, nameStart: number): { start: number; value: string } | undefined {
  const rest = /^[ \t]*\r?\n([ \t]+)([^\s#'"&*!|>%@`{[\-][^\s]{0,200})[ \t]*(?:\r?\n|$)/.exec(text.slice(from, from + 400));
  if (!rest) return undefined;
  const indent = nameStart - (text.lastIndexOf('\n', nameStart - 1) + 1);
  if (rest[1].length <= indent || rest[2].endsWith(':')) return undefined;
  const after = /^([ \t]*)\S/.exec(text.slice(from + rest[0].length, from + rest[0].length + 200));
  if (after && after[1].length >= rest[1].length) return undefined;
  return { start: from + rest[0].indexOf(rest[2], rest[1].length), value: rest[2] };
}

/** Whether the name at `s` is a parameter of a URL's query (`https://…?key=…`). */
function inUrlQuery(text: string, s: number, sep: string): boolean {
  if (sep !== '=' || (text[s - 1] !== '?' && text[s - 1] !== '&')) return false;
  let ws = s;
  while (ws > 0 && s - ws < 400 && !/\s/.test(text[ws - 1])) ws--;
  // (any scheme, `jdbc:postgres://` too, perhaps quoted: `Get "https://…?appid=…"`)
  return /^["'(]?(?:[A-Za-z][\w+.-]*:)+\/\//.test(text.slice(ws, s));
}

/** A user's name as a field of the same line as the value at `s`..`after` (kaggle.json's `"username"`, a `user=` beside `key=`). */
const USER_FIELD = /(?:^|[^\w.-])["']?(?:user(?:_?name)?|login|email|account(?:_?id)?|client_?id|role_?id)["']?[ \t]*[:=]/i;
function namesUser(text: string, s: number, after: number): boolean {
  let ls = s;
  while (ls > 0 && s - ls < 200 && text[ls - 1] !== '\n') ls--;
  let le = after;
  while (le < text.length && le - after < 200 && text[le] !== '\n') le++;
  return USER_FIELD.test(text.slice(ls, s)) || USER_FIELD.test(text.slice(after, le));
}

function splice(text: string, found: Found[], type: string, mark: Marker): string {
  if (found.length === 0) return text;
  found.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const f of found) {
    if (f.start < at) continue;
    out += text.slice(at, f.start) + mark(type, f.secret);
    at = f.end;
  }
  return out + text.slice(at);
}

// ---------------------------------------------------------------------------------------------
// Tokens recognised by their shape: vendor prefixes, JWTs, generated-looking strings after a prefix

interface Family {
  type: string;
  /** Regex source of the whole token; no capture groups. */
  source: string;
  keep?: (token: string) => boolean;
}

/** `pk_live_…` bodies, `abc_test_…` and other prefixes must look generated: identifiers do not. */
const bodyAfterPrefix = (token: string): boolean => !looksRandom(token.replace(/^[A-Za-z0-9]+[_-](?:(?:live|test|prod|sandbox|v\d)[_-])?/, ''), 16);

/**
 * The generic vendor shape: kept unless what follows its prefix is generated — 32 or more letters and
 * digits (its last run 24 or more, not hex: digests and ids) of at least two kinds, in short runs (no
 * words); digests' names never.
 */
function keepGeneric(token: string): boolean {
  if (/^(?:sha\d*|md5|blake2[bs]?|crc\d*|xxh\d*)[_-]/i.test(token)) return true;
  const body = /[A-Za-z0-9]+$/.exec(token)![0];
  const generated = token.slice(/^[A-Za-z0-9]+[_-]/.exec(token)![0].length).replace(/[_-]/g, '');
  if (body.length < 24 || generated.length < 32 || /^[0-9a-fA-F]+$/.test(body)) return true;
  return !(looksRandom(generated, 32) || oneCaseGenerated(generated));
}

/**
 * One case and digits (`hcaik_…`, a base36 key): random runs of 26 letters are longer than looksRandom's
 * words allow, so a long run of them is told by its entropy and its digits instead.
 */
function oneCaseGenerated(v: string): boolean {
  if (v.length < 24 || !/^(?:[a-z0-9]+|[A-Z0-9]+)$/.test(v)) return false;
  return v.replace(/\D/g, '').length >= v.length * 0.1 && shannon(v) >= 4.3;
}

function decodes(token: string, test: RegExp): boolean {
  try {
    return test.test(Buffer.from(token.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1'));
  } catch {
    return false;
  }
}

const B62 = 'A-Za-z0-9';
export const TOKEN_FAMILIES: readonly Family[] = [
  { type: 'aws_access_key', source: `(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9]|AIPA|ANPA|ANVA|AGPA|APKA)[A-Z0-9]{16}(?![${B62}])` },
  { type: 'github_token', source: `gh[pousr]_[${B62}]{30,255}|github_pat_[${B62}_]{22,255}` },
  { type: 'gitlab_token', source: `gl(?:pat|dt|ft|rt|ptt|cbt|imt|agent|oas|soat|ffct|dt|wt)-[${B62}_.-]{20,}|GR1348941[${B62}_-]{20,}` },
  { type: 'anthropic_key', source: `sk-ant-[${B62}_-]{20,}` },
  // A digit somewhere: real keys always have one, long hyphenated words (`sk-learn-…`) do not.
  // (not OpenSSH's security-key algorithms, short lower-case words: `sk-ssh-ed25519-cert-v01@openssh.com`)
  { type: 'openai_key', source: `sk-(?:proj-|svcacct-|admin-|None-|or-v1-)?(?=[A-Za-z_-]*\\d)[${B62}_-]{20,}`, keep: (t) => /^sk-(?:[a-z0-9]{1,10}-)+[a-z0-9]{1,10}$/.test(t) },
  { type: 'stripe_key', source: `(?:sk|rk|pk)_(?:live|test|prod)_[${B62}]{10,}|whsec_[${B62}+/=]{20,}` },
  { type: 'slack_token', source: `xox[a-z]-[${B62}-]{10,}|xoxe\\.xox[a-z]-[${B62}-]{20,}|xapp-\\d-[${B62}-]{10,}` },
  { type: 'slack_webhook', source: `https?://hooks\\.slack\\.com/(?:services|workflows|triggers)/[${B62}/_+-]+` },
  { type: 'discord_webhook', source: `https://(?:ptb\\.|canary\\.)?discord(?:app)?\\.com/api/webhooks/\\d+/[${B62}_-]{20,}` },
  { type: 'teams_webhook', source: `https://[a-z0-9-]+\\.webhook\\.office\\.com/webhookb2/[^\\s"'<>]+` },
  { type: 'google_api_key', source: `AIza[0-9A-Za-z_-]{35}` },
  { type: 'google_oauth', source: `1//0[${B62}_-]{20,}|ya29\\.[${B62}_-]{20,}|GOCSPX-[${B62}_-]{20,}` },
  { type: 'azure_client_secret', source: `[${B62}_~.]{3}\\dQ~[${B62}_~.-]{31,34}` },
  { type: 'npm_token', source: `npm_[${B62}]{36}(?![${B62}])` },
  { type: 'pypi_token', source: `pypi-[${B62}_-]{50,}` },
  { type: 'huggingface_token', source: `hf_[${B62}]{30,}|api_org_[${B62}]{30,}` },
  { type: 'sendgrid_key', source: `SG\\.[${B62}_-]{16,}\\.[${B62}_-]{16,}` },
  { type: 'digitalocean_token', source: `do[opr]_v1_[a-f0-9]{64}` },
  { type: 'shopify_token', source: `shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}` },
  { type: 'square_token', source: `sq0(?:atp|csp)-[${B62}_-]{22,}|EAAA[${B62}_-]{60,}` },
  { type: 'facebook_token', source: `EAA[CM][${B62}]{80,}` },
  { type: 'vault_token', source: `hv[sbr]\\.[${B62}_-]{20,}|s\\.(?=[A-Za-z]*\\d)[${B62}]{24}(?![${B62}.])` },
  { type: 'terraform_token', source: `[${B62}]{14}\\.atlasv1\\.[${B62}_=-]{60,}` },
  { type: 'pulumi_token', source: `pul-[a-f0-9]{40}` },
  { type: 'doppler_token', source: `dp\\.(?:pt|st|sa|ct|scim|audit)\\.(?:[a-z0-9_-]{1,40}\\.)?[${B62}]{40,}` },
  { type: 'postman_key', source: `PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}` },
  { type: 'linear_key', source: `lin_(?:api|oauth)_[${B62}]{40}` },
  { type: 'notion_token', source: `ntn_[${B62}]{40,}|secret_[${B62}]{43}(?![${B62}])` },
  { type: 'sentry_token', source: `sntry[us]_[${B62}+/=_]{40,}` },
  { type: 'newrelic_key', source: `NR(?:AK|II|JS|AA|RA)-[${B62}]{19,}` },
  { type: 'heroku_key', source: `HRKU-[${B62}_-]{40,}` },
  { type: 'age_secret_key', source: `AGE-SECRET-KEY-1[0-9A-Z]{58}` },
  { type: 'onepassword_token', source: `ops_eyJ[${B62}+/]{100,}={0,3}|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}` },
  { type: 'atlassian_token', source: `AT(?:ATT|CTT|OA)3[${B62}_=-]{60,}` },
  { type: 'dynatrace_token', source: `dt0[a-z]\\d{2}\\.[${B62}]{24}\\.[${B62}]{64}` },
  { type: 'flyio_token', source: `fo1_[${B62}_-]{40,}|fm[12][ar]?_[${B62}+/]{60,}={0,3}` },
  { type: 'planetscale_token', source: `pscale_(?:tkn|oauth|pw)_[${B62}_=.-]{32,}` },
  { type: 'grafana_token', source: `glsa_[${B62}]{32}_[A-Fa-f0-9]{8}|glc_[${B62}+/]{32,}={0,3}|eyJrIjoi[${B62}]{40,}={0,3}` },
  { type: 'rubygems_key', source: `rubygems_[a-f0-9]{48}` },
  { type: 'readme_key', source: `rdme_[a-z0-9]{70}` },
  { type: 'prefect_key', source: `pnu_[${B62}]{36}` },
  { type: 'easypost_key', source: `EZ[AT]K[${B62}]{54}` },
  { type: 'flutterwave_key', source: `FLW(?:SECK|PUBK)(?:_TEST)?-[${B62}]{12,}(?:-X)?` },
  { type: 'frameio_token', source: `fio-u-[${B62}_=-]{64}` },
  { type: 'alibaba_key', source: `LTAI[${B62}]{20}(?![${B62}])` },
  { type: 'artifactory_key', source: `AKCp[${B62}]{69}|cmVmd[${B62}]{59}` },
  { type: 'adobe_secret', source: `p8e-[${B62}]{32}` },
  { type: 'cloudflare_origin_key', source: `v1\\.0-[a-f0-9]{24}-[a-f0-9]{146}` },
  { type: 'defined_networking_key', source: `dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}` },
  { type: 'infracost_key', source: `ico-[${B62}]{32}` },
  { type: 'intra42_secret', source: `s-s4t2(?:ud|af)-[a-f0-9]{64}` },
  { type: 'maxmind_key', source: `[${B62}]{6}_[${B62}]{29}_mmk` },
  { type: 'octopus_key', source: `API-[A-Z0-9]{26}(?![${B62}])` },
  { type: 'openshift_token', source: `sha256~[${B62}_-]{43}` },
  { type: 'sendinblue_key', source: `xkeysib-[a-f0-9]{64}-[${B62}]{16}` },
  { type: 'settlemint_token', source: `sm_(?:aat|pat|sat)_[${B62}]{16}` },
  { type: 'scalingo_token', source: `tk-us-[${B62}_-]{48}` },
  { type: 'typeform_token', source: `tfp_[${B62}_.=-]{59}` },
  { type: 'yandex_token', source: `AQVN[${B62}_-]{35,38}|t1\\.[${B62}_-]+={0,2}\\.[${B62}_-]{86}={0,2}` },
  { type: 'twilio_key', source: `SK[0-9a-fA-F]{32}(?![${B62}])` },
  { type: 'mailgun_key', source: `key-[0-9a-f]{32}(?![${B62}])` },
  { type: 'mailchimp_key', source: `[0-9a-f]{32}-us\\d{1,2}(?![${B62}])` },
  { type: 'mapbox_token', source: `[sp]k\\.eyJ[${B62}_-]{20,}\\.[${B62}_-]{20,}` },
  { type: 'telegram_token', source: `\\d{8,10}:AA[${B62}_-]{33}` },
  { type: 'discord_token', source: `[MNO][${B62}_-]{23,25}\\.[${B62}_-]{6}\\.[${B62}_-]{27,38}` },
  { type: 'harness_token', source: `(?:pat|sat)\\.[${B62}_-]{22}\\.[${B62}]{24}\\.[${B62}]{20}` },
  { type: 'clojars_token', source: `CLOJARS_[a-z0-9]{60}` },
  { type: 'groq_key', source: `gsk_[${B62}]{40,}` },
  { type: 'replicate_token', source: `r8_[${B62}]{30,}` },
  { type: 'xai_key', source: `xai-[${B62}]{40,}` },
  { type: 'perplexity_key', source: `pplx-[${B62}]{40,}` },
  { type: 'langsmith_key', source: `lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}` },
  { type: 'pinecone_key', source: `pcsk_[${B62}_]{40,}` },
  { type: 'duffel_token', source: `duffel_(?:test|live)_[${B62}_=-]{43}(?![${B62}_=-])` },
  // ClickHouse Cloud's API secret: `4b1d` and 38 more, not all hex (a hex digest may start with 4b1d too)
  { type: 'clickhouse_key', source: `4b1d[${B62}]{38}(?![${B62}])`, keep: (t) => /^[0-9a-f]+$/.test(t) },
  { type: 'supabase_key', source: `sbp_[a-f0-9]{40}|sb_secret_[${B62}_-]{20,}` },
  { type: 'tencent_key', source: `AKID[${B62}]{32}(?![${B62}])` },
  // a Facebook app access token: the app id, `|`, the app secret (URL-encoded as `%7C` it is left to its name)
  { type: 'facebook_token', source: `\\d{15,16}\\|[${B62}_-]{27,40}(?![${B62}_-])`, keep: (t) => !looksRandom(t.slice(t.indexOf('|') + 1), 24) },
  { type: 'authress_key', source: `(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\\.[A-Za-z0-9]{4,6}\\.acc[_-][A-Za-z0-9-]{10,32}\\.[A-Za-z0-9+/_=-]{30,120}` },
  { type: 'bitbucket_token', source: `ATBB[${B62}]{24,}(?![${B62}])` },
  { type: 'circleci_token', source: `CCIPAT_[${B62}]{22}_[a-f0-9]{40}` },
  { type: 'sourcegraph_token', source: `sgp_(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}(?![${B62}])` },
  { type: 'buildkite_token', source: `bkua_[a-f0-9]{40}(?![${B62}])` },
  { type: 'databricks_token', source: `dapi[a-f0-9]{32}(?:-\\d)?(?![${B62}])` },
  { type: 'nuget_key', source: `oy2[a-z0-9]{43}(?![${B62}])` },
  { type: 'adafruit_key', source: `aio_[${B62}]{28}(?![${B62}])`, keep: bodyAfterPrefix },
  { type: 'airtable_token', source: `pat[${B62}]{14}\\.[a-f0-9]{64}(?![${B62}])` },
  { type: 'dropbox_token', source: `sl\\.[${B62}_-]{120,}` },
  { type: 'twitter_bearer', source: `A{22}[${B62}%]{80,100}(?![${B62}%+/=])`, keep: (t) => !t.includes('%') && !looksRandom(t.slice(22), 32) },
  // STS session tokens: base64 that starts with the same bytes every time
  { type: 'aws_session_token', source: `IQoJb3JpZ2luX2Vj[${B62}+/]{100,}={0,2}` },
  // base64 of `{"auths":` (a docker config), of a PEM private key, of a JWT
  { type: 'docker_config', source: `(?:eyJhdXRocyI6|ewogICJhdXRocyI6|ewoJImF1dGhzIjo|eyAiYXV0aHMiOi)[${B62}+/]{16,}={0,2}` },
  { type: 'private_key', source: `LS0tLS1CRUdJTi[${B62}+/]{40,}={0,2}`, keep: (t) => !decodes(t.slice(0, 96), /PRIVATE KEY|OpenVPN Static key/) },
  { type: 'jwt', source: `ZXlK[${B62}+/]{60,}={0,2}`, keep: (t) => !decodes(t.slice(0, 400), /^eyJ[\w-]+\.[\w-]+/) },
  { type: 'jwt', source: `eyJ[${B62}_-]{8,}\\.[${B62}_-]{8,}\\.[${B62}_-]*(?:\\.[${B62}_-]+){0,2}` },
  // `<vendor>_<live|test|prod>_<generated>` and `<…sk|key|pat|tok>_<generated>`: unknown vendors with the usual shapes
  { type: 'api_key', source: `[a-z][a-z0-9]{1,15}_(?:live|test|prod|sandbox)_[${B62}]{16,}|(?<![${B62}_-])(?:live|test)_[${B62}]{24,}(?![${B62}_-])`, keep: bodyAfterPrefix },
  { type: 'api_key', source: `[a-z]{0,8}(?:sk|key|pat|tok|token|secret|api|pw|pwd|sec)[_-][${B62}]{24,}(?![${B62}_-])`, keep: bodyAfterPrefix },
  // Any other vendor's `<prefix>_<generated>` (`figd_…`, `bkua_…`, `tskey-auth-…-…`, `CFPAT-…`): a short word, at
  // most two short parts, then 32 or more generated characters of two or three kinds (`hcaik_` + lower case and
  // digits, `pk_<n>_` + upper case and digits). Ids that look like this (`toolu_…`, `msg_…`, `call_…`, Stripe's
  // `cus_…`) are shorter; OpenAI's `resp_…`/`rs_…` are hex (keepGeneric).
  {
    type: 'api_key',
    // Never starting inside a base64url run (`…-abc_<32 more>` at the end of an encrypted blob).
    source: `(?<![${B62}_-])(?:[A-Za-z][a-z0-9]{1,7}|[A-Z][A-Z0-9]{1,7})[_-](?:[${B62}]{1,24}[_-]){0,2}[${B62}]{24,}(?![${B62}_+/=-])`,
    keep: keepGeneric,
  },
];

/** Each family's pattern, tried where a token may start (sticky). */
const TOKEN_AT = new RegExp(`(?:${TOKEN_FAMILIES.map((f) => `(${f.source})`).join('|')})`, 'y');

/**
 * Where a token may be: each family's prefix, found by a character that is rare in text (`_`, `-`,
 * `.`, `~`, `:`, `/`, or a capital) with the rest of the prefix checked by looking behind. Regex
 * engines scan for such an anchor quickly; an alternation of 80 prefixes that may start with any
 * letter costs a test of each at every position (5x slower over code and logs).
 */
export const TOKEN_ANCHORS: readonly string[] = [
  String.raw`_(?<=(?<![${B62}])(?:aio|sgp|bkua|CCIPAT|gh[pousr]|github_pat|npm|hf|api_org|do[opr]_v1|shp(?:at|ca|pa|ss)|lin_(?:api|oauth)|ntn|secret|sntry[us]|ops|fo1|fm[12][ar]?|pscale_(?:tkn|oauth|pw)|glsa|glc|rubygems|rdme|pnu|sm_(?:aat|pat|sat)|tfp|CLOJARS|gsk|r8|pcsk|duffel|sbp|sb_secret|lsv2_(?:pt|sk)|whsec|(?:sk|rk|pk)_(?:live|test|prod))_)`,
  String.raw`-(?<=(?<![${B62}])(?:gl(?:pat|dt|ft|rt|ptt|cbt|imt|agent|oas|soat|ffct|wt)|sk|pypi|GOCSPX|sq0(?:atp|csp)|pul|PMAK|NR(?:AK|II|JS|AA|RA)|HRKU|AGE-SECRET-KEY|A3|FLW(?:SECK|PUBK)(?:_TEST)?|fio-u|p8e|dnkey|ico|s-s4t2(?:ud|af)|API|xkeysib|tk-us|xai|pplx|xapp|xox[a-z]|v1\.0)-)|-(?<=(?<![${B62}])key-)(?=[0-9a-f]{32})`,
  // the generic shapes (`<vendor>_live_<generated>`, `<…key>_<generated>`): a long run after `_` or `-`
  String.raw`[_-](?=[${B62}]{16})`,
  String.raw`-(?<=[0-9a-f]{8}-)us\d`,
  String.raw`\.(?<=(?<![${B62}])(?:SG|ya29|hv[sbr]|dp\.(?:pt|st|sa|ct|scim|audit)|dt0[a-z]\d\d|[sp]k|pat|sat|t1|xoxe|hooks|discord|discordapp|\w+\.webhook|s|sl)\.|atlasv1\.)|\.(?=[0-9a-f]{64}(?![${B62}]))`,
  String.raw`\.(?<=\.[${B62}_-]{6}\.)(?=[${B62}_-]{27})`,
  String.raw`_(?=mmk(?![${B62}]))|~(?<=(?:Q|sha256)~)|:(?<=\d:)AA|\/(?<=1\/)\/0|\.acc[_-]`,
  String.raw`J(?<=(?<![${B62}])eyJ)|J(?<=(?<![${B62}])ewoJ)Im|I(?<=(?<![${B62}])ewogI)CJ|A(?<=(?<![${B62}])ey)iYXV0aHMi|V(?<=(?<![${B62}])cmV)md`,
  String.raw`AKIA|ASIA|ABIA|ACCA|A3T|AIPA|ANPA|ANVA|AGPA|APKA|AIza|AKCp|AKID|AQVN|ATATT3|ATBB|ATCTT3|ATOA3|EAA[ACM]|EZ[AT]K|GR1348941|LTAI|LS0tLS1CRUdJTi|SK[0-9a-fA-F]{30}|ZXlK`,
];
const TOKEN_ANCHOR = new RegExp(TOKEN_ANCHORS.join('|'), 'g');

/**
 * Anchors kept out of TOKEN_ANCHORS: added there (a lower-case first letter, `|`, the long literals),
 * together they slowed its scan of every text about 2.5x (V8 scans for the set of first characters),
 * so they are a rule of their own, run only on a text holding one of RARE_TOKEN_NEEDS.
 */
const RARE_TOKEN_ANCHOR_SOURCE = String.raw`dapi(?=[0-9a-f]{32})|oy2(?=[a-z0-9]{43})|A{22}|IQoJb3JpZ2luX2Vj|\|(?<=\d{15}\|)|4b1d(?=[A-Za-z0-9]{38}(?![A-Za-z0-9]))`;
const RARE_TOKEN_ANCHOR = new RegExp(RARE_TOKEN_ANCHOR_SOURCE, 'g');
// Each literal costs a string search of every text: the pre-2020 STS prefix (FwoGZXIvYXdz) and the
// URL-encoded `%7C` of a Facebook token are left to their names (AWS_SESSION_TOKEN=, access_token=).
const RARE_TOKEN_NEEDS = ['|', 'dapi', 'oy2', 'A'.repeat(22), 'IQoJb3JpZ2luX2Vj', '4b1d'];
const TOKEN_TAIL = /[A-Za-z0-9_-]*/y;
/** A short word and its `_` or `-` right before a token, the word starting the run: `dckr_` in `dckr_pat_…`. */
const TOKEN_HEAD = /(?:^|[^A-Za-z0-9_.-])([A-Za-z][A-Za-z0-9]{1,7}[_-])$/;
const GENERIC_START = /^(?:sk|key|pat|tok|token|secret|api|pw|pwd|sec)[_-]/i;
/** The characters a token is made of: where its start may be, looking left from an anchor. */
const TOKEN_CHAR = /[A-Za-z0-9_\-.~+/=:]/;

/** A digest's name right before a value (`sha256=<base64url>` in a wheel's RECORD, `md5:`): the value is a digest. */
const DIGEST_NAMED = /(?:^|[^A-Za-z0-9])(?:sha\d{0,3}|md5|blake2[bs]?|sha3-\d{3})[=:]$/i;

function redactTokens(text: string, mark: Marker, anchor: RegExp = TOKEN_ANCHOR): string {
  const found: Array<Found & { type: string }> = [];
  let covered = 0;
  anchor.lastIndex = 0;
  for (let m = anchor.exec(text); m !== null; m = anchor.exec(text)) {
    const at = m.index;
    if (at < covered) continue;
    let start = at;
    while (start > 0 && at - start < 48 && TOKEN_CHAR.test(text[start - 1])) start--;
    // A token starts after a character that is not a letter or digit; try each such start, leftmost first.
    for (let k = Math.max(start, covered); k <= at; k++) {
      if (k > 0 && /[A-Za-z0-9]/.test(text[k - 1])) continue;
      TOKEN_AT.lastIndex = k;
      const t = TOKEN_AT.exec(text);
      if (t === null || k + t[0].length <= at) continue;
      const i = t.findIndex((g, j) => j > 0 && g !== undefined) - 1;
      const family = TOKEN_FAMILIES[i];
      if (family.keep?.(t[0]) || t[0].includes(MARKER_PREFIX) || DIGEST_NAMED.test(text.slice(Math.max(0, k - 10), k))) continue;
      // A token the family's shape ends inside (`duffel_test_…-…`: its body goes on after a `-`)
      // is taken whole: leaving its tail would leave part of the secret.
      let end = k + t[0].length;
      if ((text[end] === '-' || text[end] === '_') && /[A-Za-z0-9]/.test(text[end + 1] ?? '')) {
        TOKEN_TAIL.lastIndex = end;
        end += TOKEN_TAIL.exec(text)![0].length;
      }
      // Its head too, when it starts with a generic word (`pat_…`, `key-…`): the vendor's short word
      // before it (`dckr_pat_…`). A vendor's own prefix (`ghp_…` in `call_ghp_…`) starts the token.
      let begin = k;
      const generic = family.type === 'api_key' && GENERIC_START.test(t[0]);
      const head = generic && k >= 2 && (text[k - 1] === '_' || text[k - 1] === '-') ? TOKEN_HEAD.exec(text.slice(Math.max(covered, k - 10), k)) : null;
      if (head) begin = k - head[1].length;
      found.push({ start: begin, end, secret: text.slice(begin, end), type: family.type });
      covered = end;
      break;
    }
    if (anchor.lastIndex < covered) anchor.lastIndex = covered;
  }
  if (found.length === 0) return text;
  let out = '';
  let pos = 0;
  for (const f of found) {
    out += text.slice(pos, f.start) + mark(f.type, f.secret);
    pos = f.end;
  }
  return out + text.slice(pos);
}

// ---------------------------------------------------------------------------------------------
// Structured secrets: private keys, Kubernetes Secrets, URLs, Authorization headers, commands

/** OpenVPN's shared static key (`tls-auth`, `tls-crypt`, `secret`): hex lines between its own armour. */
const OPENVPN_STATIC_KEY = /-----BEGIN OpenVPN Static key V\d-----[\s\S]*?(?:-----END OpenVPN Static key V\d-----|$)/g;

// A header is a key's only when a line break (real or escaped, once or twice: JSON's `\n`) or the key's base64 follows it: a
// header alone in a string (`_SK_START = b"-----BEGIN OPENSSH PRIVATE KEY-----"`, a MIME magic rule) is not a key.
const PEM = /-{4,5} ?BEGIN [A-Z0-9 _-]{0,40}(?:PRIVATE KEY|NKEY SEED)(?: BLOCK)?[A-Z ]{0,20}-{4,5}(?=[ \t]*(?:\r?\n|\\+(?:r\\+)?n)|[ \t]+[A-Za-z0-9+/]{16})[\s\S]*?(?:-{4,6} ?END [A-Z0-9 _-]{0,40}(?:PRIVATE KEY|NKEY SEED)(?: BLOCK)?[A-Z ]{0,20}-{4,6}|$)/g;

/** A wallet's seed phrase, 12 to 24 lower-case words (BIP-39), under a name that says so (`MNEMONIC`, `seed_phrase`; `Mnemonic: "Get Visual"` in Vim's help is a menu's). */
const SEED_PHRASE = /((?:mnemonic|seed_?phrase|recovery_?phrase)[\w-]*["']?[ \t]*[:=][ \t]*["'])([a-z]+(?: [a-z]+){11,23})(["'])/gi;
/** A Bitcoin private key in wallet import format, compressed (base58, 52 characters from K or L), after `importprivkey`, `dumpprivkey` or `WIF`. */
const WIF_KEY = /(?<![1-9A-HJ-NP-Za-km-z])[KL][1-9A-HJ-NP-Za-km-z]{51}(?![1-9A-HJ-NP-Za-km-z])/g;

function redactWalletSecrets(text: string, mark: Marker): string {
  SEED_PHRASE.lastIndex = 0;
  WIF_KEY.lastIndex = 0;
  return text
    .replace(SEED_PHRASE, (_all, head: string, phrase: string, tail: string) => head + mark('private_key', phrase) + tail)
    .replace(WIF_KEY, (key) => (looksRandom(key) ? mark('private_key', key) : key));
}

/** PuTTY's `.ppk`: the lines after `Private-Lines: N` and the MAC. */
const PUTTY = /(Private-Lines:[ \t]*\d+(?:\r?\n|\\r?\\n))((?:[A-Za-z0-9+/=]+(?=\r?\n|\\r?\\n|$)(?:\r?\n|\\r?\\n)?)+)|(Private-(?:MAC|Hash):[ \t]*)([0-9a-fA-F]{20,})/g;

function redactPutty(text: string, mark: Marker): string {
  PUTTY.lastIndex = 0;
  return text.replace(PUTTY, (_all, head: string | undefined, lines: string | undefined, macHead: string | undefined, mac: string | undefined) => {
    if (head !== undefined && lines !== undefined) {
      const body = lines.replace(/(?:\r?\n|\\r?\\n)$/, '');
      return head + mark('private_key', body) + lines.slice(body.length);
    }
    return (macHead ?? '') + mark('private_key', mac ?? '');
  });
}

/** A JWK's private members (`d`, `p`, `q`, `dp`, `dq`, `qi`, and `k` of a symmetric key) in text that names a `kty`. */
const JWK_PRIVATE = /(["']?\b(?:d|p|q|dp|dq|qi|k)\b["']?[ \t]*:[ \t]*["'])([A-Za-z0-9_-]{16,}={0,2})(["'])/g;

/** Kubernetes Secrets: every value under `data:` / `stringData:` of a document of `kind: Secret`. */
const ESCAPED_SECRET_KIND = /\\n[ \t]*kind:[ \t]*(?:\\?["'])?Secret(?:\\?["'])?[ \t]*\\n/;

function redactKubernetesSecrets(text: string, mark: Marker): string {
  // A Secret printed inside a JSON string (a transcript's tool result) has `\n` escapes for line breaks: each line of the
  // text holding one is read with them as breaks (a JSON line has no real ones), then written back with them.
  if (ESCAPED_SECRET_KIND.test(text)) {
    text = text
      .split('\n')
      .map((line) => (ESCAPED_SECRET_KIND.test(line) ? redactKubernetesSecrets(line.replace(/(?<!\\)\\n/g, '\n'), mark).replace(/\n/g, '\\n') : line))
      .join('\n');
  }
  let out = text;
  if (/^[ \t]*kind:[ \t]*["']?Secret["']?[ \t]*$/m.test(text)) {
    out = out
      .split(/(^---[ \t]*$)/m)
      .map((doc) => {
        if (!/^[ \t]*kind:[ \t]*["']?Secret["']?[ \t]*$/m.test(doc)) return doc;
        const lines = doc.split('\n');
        let inData = -1;
        let block = -1;
        for (let i = 0; i < lines.length; i++) {
          const line = lines[i];
          const indent = /^[ \t]*/.exec(line)![0].length;
          if (line.trim() === '') continue;
          if (block >= 0 && indent > block) {
            lines[i] = line.slice(0, indent) + mark('k8s_secret', line.slice(indent));
            continue;
          }
          block = -1;
          if (inData >= 0 && indent > inData) {
            const kv = /^([ \t]*["']?[\w.-]+["']?:[ \t]*)(.*?)([ \t]*)$/.exec(line);
            if (kv && kv[2] !== '' && !/^\{\{.*\}\}$/.test(kv[2]) && !/^["']{2}$/.test(kv[2])) {
              if (/^[|>][-+]?$/.test(kv[2])) block = indent;
              else {
                const q = /^(\\?["'])(.*)\1$/.exec(kv[2]); // (perhaps escaped, in a JSON string: `\"…\"`)
                lines[i] = kv[1] + (q ? q[1] + mark('k8s_secret', q[2]) + q[1] : mark('k8s_secret', kv[2])) + kv[3];
              }
            }
            continue;
          }
          inData = /^[ \t]*(?:data|stringData):[ \t]*$/.test(line) ? indent : -1;
        }
        return lines.join('\n');
      })
      .join('');
  }
  if (/"kind"\s*:\s*"Secret"/.test(out)) {
    out = out.replace(/("(?:data|stringData)"\s*:\s*\{)([^{}]*)(\})/g, (_all, open: string, body: string, close: string) =>
      open + body.replace(/("[^"\\]*"\s*:\s*")((?:[^"\\]|\\.)+)(")/g, (kv, k: string, v: string, q: string) => (v.includes(MARKER_PREFIX) ? kv : k + mark('k8s_secret', v) + q)) + close,
    );
  }
  return out;
}

/**
 * Credentials in a URL of any scheme: `scheme://user:password@host`, `redis://:password@host`, and
 * `https://<generated token>@host` (a token as the user: GitHub, Sentry DSNs).
 */
const URL_CREDENTIALS = /(?<![A-Za-z0-9+.-])([a-zA-Z][a-zA-Z0-9+.-]{0,30}:\/\/|[a-zA-Z][a-zA-Z0-9+.-]{0,30}\/\/(?=[^\s:/?#@"'<>\\[\]]+:[^\s/"'<>\\@]+@))([^\s:/?#@"'<>\\[\]]*)(?::([^\s/"'<>\\]*))?@(?=[^\s@/?#"'<>\\]*[A-Za-z0-9\]])/g;

function redactUrls(text: string, mark: Marker): string {
  URL_CREDENTIALS.lastIndex = 0;
  return text.replace(URL_CREDENTIALS, (all, scheme: string, user: string, password: string | undefined) => {
    // (an empty password after a token as the user, Gemfury's `https://<token>:@pypi.fury.io/…`, is the user's case below)
    if (password !== undefined && password !== '') {
      if (notALiteral(password) || password.includes(MARKER_PREFIX)) return all;
      // A CVSROOT names an access method and a user, `:pserver:anoncvs@host:/cvs`; its password, if any, comes after the user.
      if (user === '' && /^(?:pserver|ext|extssh|local|fork|gserver|kserver|server|sspi)(?:;[^:]*)?:/.test(password)) {
        const method = /^[^:]*:[^:]*:?/.exec(password)![0];
        const rest = password.slice(method.length);
        return rest === '' || notALiteral(rest) ? all : `${scheme}:${method}${mark('url_password', rest)}@`;
      }
      return `${scheme}${user}:${mark('url_password', password)}@`;
    }
    if (user.includes(MARKER_PREFIX) || !(looksRandom(user, 16) || /^[0-9a-f]{32}$/.test(user))) return all;
    return `${scheme}${mark('url_password', user)}${password === '' ? ':' : ''}@`;
  });
}

// ---------------------------------------------------------------------------------------------
// Prose (rule set 9): what users tell an agent in a sentence, in any of a dozen languages

/** Words for a password in prose, lower case (the rule's regex is caseless); `mot de passe`'s blanks match any blank. */
const ENGLISH_PASSWORD_WORDS = ['password', 'passwd', 'passphrase', 'passcode', 'pw'];
const PROSE_PASSWORD_WORDS = [
  ...ENGLISH_PASSWORD_WORDS, 'passwort', 'kennwort', 'contraseña', 'contrasena', 'mot de passe', 'senha', 'wachtwoord', 'пароль', 'пароля',
  'şifre', 'şifresi', 'sifre', 'hasło', 'haslo', 'heslo', "parola d'ordine", 'parolă', 'lösenord', 'losenord', 'passord', 'adgangskode',
  'salasana', 'jelszó', 'jelszo', 'lozinka', 'geslo', 'parool', 'slaptažodis', 'κωδικός', 'סיסמה', 'كلمة المرور', 'mật khẩu', 'kata sandi',
  'パスワード', '密码', '密碼', '口令', '비밀번호', '암호', 'รหัสผ่าน',
];
/** Words for a key or token in prose: the value must then look generated. */
const ENGLISH_TOKEN_WORDS = ['api key', 'api token', 'access key', 'access token', 'secret key', 'auth token', 'key', 'token', 'secret'];
const PROSE_TOKEN_WORDS = [
  ...ENGLISH_TOKEN_WORDS,
  'schlüssel', 'clave', 'chave', 'chiave', 'clé', 'ключ', 'токен',
  '密钥', '密鑰', '秘钥', '私钥', '令牌', '秘密鍵', 'アクセスキー', 'シークレット', 'トークン', '토큰', '액세스 키', '비밀 키',
];
/** Cues written in scripts without blanks between words (`管理员密码`): no word boundary is asked of them. */
const UNSPACED_CUE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;
/** The words as alternatives of a regex (a blank in a word matches any run of blanks). */
const proseAlternatives = (words: readonly string[]) => words.map((w) => w.replace(/ /g, '[ \\t]+')).join('|');
/**
 * `the db password is 'Pgixkw86%wwm'`, `temp admin password for the demo tenant is …`, `das Passwort ist …`, `la
 * contraseña es …`, `mot de passe : …`, `パスワードは「…」`, `密码是…`, `비밀번호는 …인데`, `пароль: …`, `` `POSTGRES_PASSWORD` is set
 * to `…` ``, `the new key is <generated>`. The connector is a verb (is, was, ist, es, est, は, 是, 는…) or, after a word
 * other than English (whose `password: …` the assignment scanner reads, with its care for code), a colon; a blank alone
 * only after `pw`. Groups: the cue, the qualification, the connector, the opening quote, the value.
 */
const PROSE_SECRET = new RegExp(
  // (a cue may end an identifier, `POSTGRES_PASSWORD`: `_` is no letter; no lazy prefix, which would be tried at every position)
  String.raw`((?:(?<![\p{L}\p{N}])(?:${proseAlternatives([...PROSE_PASSWORD_WORDS, ...PROSE_TOKEN_WORDS].filter((w) => !UNSPACED_CUE.test(w)))})|${proseAlternatives([...PROSE_PASSWORD_WORDS, ...PROSE_TOKEN_WORDS].filter((w) => UNSPACED_CUE.test(w)))})\x60?)` +
    String.raw`((?:[ \t]+(?:for|of|on|to|at|in|für|de|del|pour|du|для|от)[ \t]+[^\n.!?:=;,]{1,40}?)?)` +
    String.raw`([ \t]+(?:is(?:[ \t]+now|[ \t]+set[ \t]+to)?|was|ist|lautet|es|est|é|è|är|er|это)[ \t]+|[ \t]*[:：][ \t]*|=|[ \t]*(?:は|が|是|为|為|는|은|이|가)[ \t]*|[ \t]+(?=[^\s]*\d))` +
    String.raw`(["'\x60「『“«‘]?)([^\s"'\x60」』”»’<>，。！？、\p{Script=Han}\p{Script=Hangul}\p{Script=Hiragana}\p{Script=Katakana}]{6,80})`,
  'giu',
);
const PROSE_PASSWORD_CUE = new RegExp(String.raw`^(?:${proseAlternatives(PROSE_PASSWORD_WORDS)})\x60?$`, 'iu');
const PROSE_CLOSERS: Record<string, string> = { '"': '"', "'": "'", '\x60': '\x60', '「': '」', '『': '』', '“': '”', '«': '»', '‘': '’' };
const ENGLISH_CUE = new RegExp(String.raw`^(?:${proseAlternatives([...ENGLISH_PASSWORD_WORDS, ...ENGLISH_TOKEN_WORDS])})\x60?$`, 'i');

/**
 * What the prose rule's pre-test looks for besides its English forms: a part of each word other than English, in the
 * cases it is written in (`Senha`, `BANCO_SENHA`, `Şifre`), so that most text skips the rule.
 */
const PROSE_WORD_LITERALS = [
  'asswort', 'ASSWORT', 'ennwort', 'ENNWORT', 'ontrase', 'ONTRASE', 'enha', 'ENHA', 'achtwoord', 'ACHTWOORD', 'ароль', 'АРОЛЬ', 'Пароль',
  'ifre', 'IFRE', 'İFRE', 'asło', 'ASŁO', 'aslo', 'ASLO', 'eslo', 'ESLO', "d'ordine", 'arolă', 'ösenord', 'ÖSENORD', 'osenord', 'assord', 'ASSORD',
  'dgangskode', 'DGANGSKODE', 'alasana', 'ALASANA', 'elszó', 'ELSZÓ', 'elszo', 'ELSZO', 'ozinka', 'OZINKA', 'arool', 'laptažod', 'LAPTAŽOD',
  'κωδικ', 'ΚΩΔΙΚ', 'Κωδικ', 'סיסמ', 'كلمة المرور', 'ật khẩu', 'ẬT KHẨU', 'ata sandi', 'ATA SANDI',
  'chlüssel', 'CHLÜSSEL', 'clave', 'Clave', 'CLAVE', 'chave', 'Chave', 'CHAVE', 'hiave', 'HIAVE', 'clé', 'Clé', 'CLÉ', 'люч', 'ЛЮЧ', 'окен', 'ОКЕН',
  'パスワード', '密码', '密碼', '口令', '비밀번호', '암호', 'รหัสผ่าน', '密钥', '密鑰', '秘钥', '私钥', '令牌', '秘密鍵', 'アクセスキー', 'シークレット', 'トークン', '토큰', '액세스 키', '비밀 키',
];
const escapeRegExp = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function redactProse(text: string, mark: Marker): string {
  PROSE_SECRET.lastIndex = 0;
  return text.replace(PROSE_SECRET, (all: string, cue: string, qualification: string, connector: string, open: string, raw: string, at: number) => {
    // In English a colon is an assignment's (the scanner's), unless a qualification makes it prose; a blank alone
    // only right after "pw" (`pw xamf5326vjec`).
    if (ENGLISH_CUE.test(cue) && /[:：=]/.test(connector) && qualification === '') return all;
    if (/^[ \t]+$/.test(connector) && (!/^pw$/i.test(cue) || qualification !== '')) return all;
    // A quote opened must close right after the value.
    if (open && text[at + all.length] !== PROSE_CLOSERS[open]) return all;
    // (an HTML entity ends a value: `printf(&quot;Password is correct.&quot;)`)
    let v = raw.replace(/&(?:quot|apos|amp|lt|gt|#\d+|#x[0-9a-f]+);[\s\S]*$/i, '');
    if (!open) v = v.replace(/[.,;:?)\]]+$/, '');
    if (v.length < 6 || v.includes(MARKER_PREFIX) || notALiteral(v) || isCode(v) || PATH.test(v) || /^[a-z][\w+.-]*:\/\//i.test(v)) return all;
    if (/^[A-Z][A-Z0-9_]*$/.test(v) || /^[-+]?\d+(?:\.\d+)?$/.test(v) || /^0x[0-9a-f]+$/i.test(v) || /[()[\]{}]/.test(v)) return all;
    // (lower-case words joined by hyphens are prose, `case-sensitive`, unless four or more: `correct-horse-battery-staple`)
    if (/^[a-z]+(?:-[a-z]+){1,2}$/.test(v)) return all;
    const password = PROSE_PASSWORD_CUE.test(cue);
    // (`=` is a setting's, `BANCO_SENHA=…`: not code's `senha = senhaDigitada`)
    if (connector === '=' && (qualification !== '' || !(password ? typedPassword(v) : looksRandom(v, 16)))) return all;
    if (!(password ? secretLike(v) || looksRandom(v, 12) : looksRandom(v, 16))) return all;
    return all.slice(0, all.length - raw.length) + mark('password', v) + raw.slice(v.length);
  });
}

/** `use admin / <password>`: a well-known account, a slash between blanks, then a password. */
const ACCOUNT_SLASH_PASSWORD = /(?<![\p{L}\p{N}_/])(?:admin|root|administrator|user|test|demo|guest|deploy|postgres|ubuntu)[ \t]+\/[ \t]+([^\s/]{6,80})/giu;

function redactAccountSlash(text: string, mark: Marker): string {
  ACCOUNT_SLASH_PASSWORD.lastIndex = 0;
  return text.replace(ACCOUNT_SLASH_PASSWORD, (all, raw: string) => {
    const v = raw.replace(/[.,;:?)]+$/, '');
    if (v.length < 6 || notALiteral(v) || isCode(v) || !secretLike(v) || /[()[\]{}]/.test(v)) return all;
    return all.slice(0, all.length - raw.length) + mark('password', v) + raw.slice(v.length);
  });
}

/**
 * An object named for a secret that holds it under `"value"`: `terraform output -json`'s `"db_password": {
 * "sensitive": true, "type": "string", "value": "…" }`. Whatever its name, an object marked `"sensitive": true` holds a
 * secret; otherwise the name's strength decides, as in an assignment.
 */
const NAMED_OBJECT_VALUE = /"([A-Za-z0-9_.-]{1,80})"[ \t]*:[ \t]*\{([^{}]{0,400}?)"value"[ \t]*:[ \t]*"((?:[^"\\\n]|\\.){1,400})"/g;

/**
 * An object that names its field in a label and holds it under `"value"`: `op item get --format json`'s `{ "label":
 * "password", "value": "…" }`, and the same with `"name"`, `"key"`, `"field"` or `"title"`. The label's strength decides.
 */
const LABELLED_VALUE = /\{([^{}]{0,200}?)"(?:label|name|key|field|title)"[ \t]*:[ \t]*"([A-Za-z0-9_. -]{1,60})"[ \t]*,([^{}]{0,200}?)"value"[ \t]*:[ \t]*"((?:[^"\\\n]|\\.){1,400})"/g;

function redactNamedObjects(text: string, mark: Marker): string {
  /** `match` (ending in the value and its closing quote) with the value marked when `name` says it is a secret, as in a JSON assignment. */
  const markValue = (match: string, name: string, value: string, sensitive = false): string => {
    const strength = sensitive ? 'strong' : nameStrength(name);
    if (strength === 'none' || notALiteral(value) || value.includes(MARKER_PREFIX)) return match;
    if (!sensitive && !secretValue(value, strength, { spaced: true, quoted: true, quotedName: true, sep: ':', lineMode: false, passwordish: false, flag: false, netrc: false, name, next: '' })) return match;
    return match.slice(0, match.length - value.length - 1) + mark('secret', value) + '"';
  };
  LABELLED_VALUE.lastIndex = 0;
  NAMED_OBJECT_VALUE.lastIndex = 0;
  return text
    .replace(LABELLED_VALUE, (all, _before: string, label: string, _between: string, value: string) => markValue(all, label, value))
    .replace(NAMED_OBJECT_VALUE, (all, name: string, between: string, value: string) => markValue(all, name, value, /"sensitive"[ \t]*:[ \t]*true/.test(between)));
}

/** A conda channel's token, a path segment after `/t/` on Anaconda's hosts: `https://conda.anaconda.org/t/<token>/acme`. */
const CONDA_CHANNEL_TOKEN = /(\/\/(?:[\w-]+\.)*anaconda\.(?:org|com|cloud)\/t\/)([A-Za-z0-9_-]{16,200})(?=\/)/g;

/** Deno's `DENO_AUTH_TOKENS`: `;`-separated `token@host` or `user:password@host`; each part before an `@` is a credential. */
const DENO_AUTH_TOKENS = /(DENO_AUTH_TOKENS["']?[ \t]*[=:][ \t]*["']?)([^\s"']{1,4000})/g;

function redactDenoAuthTokens(text: string, mark: Marker): string {
  DENO_AUTH_TOKENS.lastIndex = 0;
  return text.replace(DENO_AUTH_TOKENS, (all, head: string, list: string) => {
    if (notALiteral(list)) return all;
    const parts = list.split(';').map((part) => {
      const at = part.lastIndexOf('@');
      const cred = at > 0 ? part.slice(0, at) : '';
      if (cred.length < 8 || notALiteral(cred) || cred.includes(MARKER_PREFIX)) return part;
      return mark('token', cred) + part.slice(at);
    });
    return head + parts.join(';');
  });
}

/**
 * AWS secret access keys printed bare after a command or a document names them (`aws sts assume-role --query
 * 'Credentials.[SecretAccessKey,…]'` prints a JSON array of strings): each 40-character value of their alphabet with
 * upper- and lower-case letters and digits in the 3 KB after the name. (A git hash is lower-case hex.)
 */
const AWS_SECRET_KEY_NAMED = /SecretAccessKey|secret_access_key|SECRET_ACCESS_KEY/g;
// (also right after an escaped line break, in a transcript's JSON: `…config\nMihZ…`)
const AWS_SECRET_KEY_SHAPE = /(?:(?<![A-Za-z0-9/+=])|(?<=\\[nrt]))[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

function redactBareAwsSecretKeys(text: string, mark: Marker): string {
  const spans: Array<[number, number]> = [];
  let reach = 0;
  AWS_SECRET_KEY_NAMED.lastIndex = 0;
  for (let m = AWS_SECRET_KEY_NAMED.exec(text); m !== null; m = AWS_SECRET_KEY_NAMED.exec(text)) {
    // Windows after each name that do not overlap, so each character is looked at once however many names there are.
    const from = Math.max(m.index, reach);
    reach = Math.min(text.length, m.index + 3072);
    if (from >= reach) continue;
    // (one character before it for the boundary, and room after it for a key that starts inside it)
    const base = Math.max(0, from - 1);
    const window = text.slice(base, reach + 41);
    AWS_SECRET_KEY_SHAPE.lastIndex = from - base;
    for (let k = AWS_SECRET_KEY_SHAPE.exec(window); k !== null && base + k.index < reach; k = AWS_SECRET_KEY_SHAPE.exec(window)) {
      const v = k[0];
      if (/[a-z]/.test(v) && /[A-Z]/.test(v) && /\d/.test(v) && looksRandom(v, 16)) spans.push([base + k.index, base + k.index + 40]);
    }
  }
  return spans.length ? replaceAt(text, spans, 'aws_secret_key', mark) : text;
}

/**
 * Network and mail daemons' own lines for a shared secret (set Z): HAProxy's `stats auth <user>:<password>`, Cisco's
 * `crypto isakmp key <key> address …` and `pre-shared-key <key>`, Dovecot's `{PLAIN}<password>` in a passwd-file,
 * and a Redis ACL's `>password` (`user app on >… ~* +@all`, `ACL SETUSER app on >…`; `#<sha256>` is a hash).
 */
const DAEMON_SECRETS = /(\bstats[ \t]+auth[ \t]+[^\s:]+:)([^\s"'`,;]+)|(\bcrypto[ \t]+isakmp[ \t]+key[ \t]+(?:[06][ \t]+)?)([^\s"'`,;]+)(?=[ \t]+(?:address|hostname)\b)|(\bpre-shared-key[ \t]+(?:(?:local|remote)[ \t]+)?(?:[06][ \t]+)?)(?!(?:ascii-text|hexadecimal|address|hostname)\b)([^\s"'`,;]+)|(\{(?:PLAIN|CLEARTEXT|CLEAR)\})([^\s:"'`,;]+)|((?:^|\n)[ \t]*(?:user|ACL[ \t]+SETUSER)[ \t]+\S+[ \t](?:[^\n>]*?[ \t])?>)([^\s"'`]+)/gi;

function redactDaemonSecrets(text: string, mark: Marker): string {
  DAEMON_SECRETS.lastIndex = 0;
  return text.replace(DAEMON_SECRETS, (all: string, ...args: unknown[]) => {
    // (a head and a value for each form; after the groups come the offset and the text)
    const g = args.slice(0, -2) as Array<string | undefined>;
    for (let k = 0; k + 1 < g.length; k += 2) {
      const head = g[k];
      const value = g[k + 1];
      if (head === undefined || value === undefined) continue;
      if (value.length < 4 || notALiteral(value) || value.includes(MARKER_PREFIX)) return all;
      return head + mark('password', value) + all.slice(head.length + value.length);
    }
    return all;
  });
}

/** net-snmp's `createUser <name> SHA "<auth passphrase>" AES "<privacy passphrase>"`: both passphrases. */
const SNMP_CREATE_USER = /(\bcreateUser[ \t]+(?:-e[ \t]+\S+[ \t]+)?\S+[ \t]+(?:MD5|SHA(?:-\d+)?)[ \t]+)("[^"\n]+"|[^\s"]+)(?:([ \t]+(?:DES|AES(?:-?\d+)?)[ \t]+)("[^"\n]+"|[^\s"]+))?/g;

function redactSnmpUsers(text: string, mark: Marker): string {
  SNMP_CREATE_USER.lastIndex = 0;
  const one = (v: string): string => {
    const quoted = v.startsWith('"');
    const inner = quoted ? v.slice(1, -1) : v;
    if (inner.length < 8 || notALiteral(inner)) return v;
    return quoted ? `"${mark('password', inner)}"` : mark('password', inner);
  };
  return text.replace(SNMP_CREATE_USER, (_all, head: string, auth: string, gap?: string, priv?: string) => head + one(auth) + (gap !== undefined && priv !== undefined ? gap + one(priv) : ''));
}

/** Redis `MONITOR`'s echo of an `AUTH`: `"AUTH" "<password>"`, `"AUTH" "<user>" "<password>"`. */
const REDIS_MONITOR_AUTH = /("(?:AUTH|auth)"(?:[ \t]+"[^"\n]*")?[ \t]+")([^"\n]+)(?=")/g;

/** `Authorization: <scheme> <credentials>` (or after a blank, quoted: nginx's `proxy_set_header Authorization "Basic …"`), and a bare `Bearer <token>`. */
const AUTHORIZATION = /\b((?:proxy-)?authorization(?:\\?["'])?(?:[ \t]*[:=,][ \t]*(?:\\?["'`])?|[ \t]+(?=["'`][A-Za-z]+[ \t]+[A-Za-z0-9+/=._~-]{8})["'`])[ \t]*)([A-Za-z][\w-]*)?([ \t]+)?([^\s"'`\\,;]+)?|\b(bearer[ \t]+)([A-Za-z0-9._~+/=-]{16,})/gi;

function redactAuthorization(text: string, mark: Marker): string {
  AUTHORIZATION.lastIndex = 0;
  return text.replace(AUTHORIZATION, (all, head: string | undefined, scheme: string | undefined, gap: string | undefined, cred: string | undefined, bearer: string | undefined, bare: string | undefined) => {
    if (bearer !== undefined && bare !== undefined) {
      if (notALiteral(bare) || !(looksRandom(bare, 16) || secretLike(bare))) return all;
      return bearer + mark('bearer_token', bare);
    }
    if (head === undefined || scheme === undefined) return all;
    // `Authorization: key=<server key>` (Firebase's legacy FCM): the label stays.
    if (gap === undefined && cred !== undefined && cred.startsWith('=') && /^(?:key|token|api[-_]?key)$/i.test(scheme)) {
      const v = cred.slice(1);
      if (v.includes(MARKER_PREFIX) || notALiteral(v) || v.length < 8 || !(looksRandom(v, 16) || secretLike(v))) return all;
      return head + scheme + '=' + mark('bearer_token', v);
    }
    if (gap !== undefined && cred !== undefined) {
      // `Authorization: Basic dXNlcjpwYXNz`, `Authorization: Bearer eyJ…`, `Authorization: token ghp_…`
      // (nor the next flag of a command line: `--allow-interactive-authorization=no --augment-creds=no`)
      if (cred.includes(MARKER_PREFIX) || notALiteral(cred) || cred.length < 8 || cred.startsWith('--')) return all;
      // (nor a parameter's name, its quoted value next: `'WSSE profile="UsernameToken"'`; a base64 credential has capitals)
      if (/^[a-z]+(?:-[a-z]+)*=$/.test(cred)) return all;
      // (nor code building the header: `Authorization = new AuthenticationHeaderValue("Basic", …)`, a call)
      if (/^(?:new|await|this)$/.test(scheme) || /\($/.test(cred)) return all;
      // After a blank alone, the words may be prose (`Authorization 'Basic authentication failed'`).
      if (!/[:=,]/.test(head) && !(isBase64Credentials(cred) || looksRandom(cred, 16) || secretLike(cred))) return all;
      // Rails' `Authorization: Token token=<v>` (PagerDuty): the label stays.
      const labelled = /^((?:token|key)=)(.{8,})$/i.exec(cred);
      if (labelled && !notALiteral(labelled[2])) return head + scheme + gap + labelled[1] + mark('bearer_token', labelled[2]);
      if (/^(?:basic)$/i.test(scheme)) return head + scheme + gap + mark('basic_auth', cred);
      if (/^(?:bearer|token|jwt|oauth|ssws|key|apikey|api-key|sharedkey|sharedaccesssignature|genieKey|splunk|klaviyo-api-key|zoho-oauthtoken|deepl-auth-key)$/i.test(scheme)) {
        return head + scheme + gap + mark('bearer_token', cred);
      }
      if (!(looksRandom(cred, 16) || secretLike(cred)) || /^[A-Za-z]+$/.test(cred)) return all;
      return head + scheme + gap + mark('bearer_token', cred);
    }
    // `Authorization: <credentials>` with no scheme
    if (cred === undefined && gap === undefined && !scheme.includes(MARKER_PREFIX) && looksRandom(scheme, 16)) return head + mark('bearer_token', scheme);
    return all;
  });
}

/** Password flags of common commands: `mysql -psecret`, `curl -u user:pw`, `sshpass -p pw`, `redis-cli -a pw`, … */
const COMMANDS: Array<{ command: RegExp; flag: RegExp; keep?: (value: string) => boolean }> = [
  { command: /\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mysqlcheck|mysqlpump|mariadb(?:-dump|-admin)?)\b/, flag: /(?<=[ \t])-p(?:(["'])([^"'\n]+)\1|([^\s"'`;|&]+))/g },
  { command: /\b(?:curl|wget|httpie|xh)\b|\bhttps?[ \t]+(?:-|GET|POST|PUT|PATCH|DELETE|HEAD)/, flag: /(?<=[ \t])(?:-u|--user|-a|--auth)(?:[ \t]+|=)(?:(["'])[^:"'\n]*:([^"'\n]+)\1|[^\s:"'`]*:([^\s"'`;|&]+))/g },
  // A key as the user and no password (`curl -u sk_…:`), as Stripe, Lob and Checkr document their APIs.
  {
    command: /\b(?:curl|wget|httpie|xh)\b/,
    flag: /(?<=[ \t])(?:-u|--user)(?:[ \t]+|=)(["']?)([^\s:"'`]{16,}):\1(?=[\s;|&]|$)/g,
    keep: (v) => !(looksRandom(v, 16) || /^[0-9a-f]{32,}$/i.test(v) || oneCaseGenerated(v)),
  },
  { command: /\bsshpass\b/, flag: /(?<=[ \t])-p[ \t]*(?:(["'])([^"'\n]+)\1|([^\s"'`;|&]+))/g },
  { command: /\bredis-cli\b/, flag: /(?<=[ \t])-a[ \t]+(?:(["'])([^"'\n]+)\1|([^\s"'`;|&]+))/g },
  { command: /\b(?:docker|podman|helm|buildah|skopeo|nerdctl|oras|crane)\b[^\n]*\blogin\b/, flag: /(?<=[ \t])-p[ \t]+(?:(["'])([^"'\n]+)\1|([^\s"'`;|&]+))/g },
  { command: /\b(?:zip|unzip|7z|7za|rar|unrar)\b/, flag: /(?<=[ \t])-[pP][ \t]*(?:(["'])([^"'\n]+)\1|([^\s"'`;|&-][^\s"'`;|&]*))/g },
  { command: /\b(?:sqlcmd|bcp|isql)\b/, flag: /(?<=[ \t])-P[ \t]*(?:(["'])([^"'\n]+)\1|([^\s"'`;|&]+))/g },
  { command: /\bldap(?:search|add|modify|delete|passwd|whoami)\b/, flag: /(?<=[ \t])-w[ \t]+(?:(["'])([^"'\n]+)\1|([^\s"'`;|&]+))/g },
  { command: /\bmongo(?:sh|dump|restore|export|import)?\b/, flag: /(?<=[ \t])-p[ \t]+(?:(["'])([^"'\n]+)\1|([^\s"'`;|&-][^\s"'`;|&]*))/g },
  { command: /\bsmbclient\b/, flag: /(?<=[ \t])(?:-U|--user)[ \t=]+[^\s%]+%(?:(["'])([^"'\n]+)\1|([^\s"'`;|&]+))/g },
  { command: /\bopenssl\b/, flag: /(?<=[ \t])-(?:k|kfile-never|pass(?:in|out)?)[ \t]+(?:pass:)?(?:(["'])([^"'\n]+)\1|([^\s"'`;|&-][^\s"'`;|&]*))/g },
  { command: /\bnet[ \t]+use\b/i, flag: /\/user:\S+[ \t]+(?:(["'])([^"'\n]+)\1|([^\s"'`\/*][^\s"'`]*))/gi },
  { command: /\bssh-keygen\b/, flag: /(?<=[ \t])-[NP][ \t]*(?:(["'])([^"'\n]+)\1|([^\s"'`;|&-][^\s"'`;|&]*))/g },
  { command: /\baz[ \t]+login\b/, flag: /(?<=[ \t])(?:-p|--password)(?:[ \t]+|=)(?:(["'])([^"'\n]+)\1|([^\s"'`;|&-][^\s"'`;|&]*))/g },
  // Any other command given a user and then a password (`xcrun altool -u me -p …`, `unity -username u -password …`):
  // the convention of most CLIs. A port (`docker run -u 1000 -p 8080:80`) or a word (`cp -u -p src`) is not a password.
  {
    command: /(?<=[ \t])(?:-u|-U|--user|--username|-username|-user)[ \t=]+[^\s-][^\n]{0,300}?[ \t]-(?:p|P|-password|password|pw|-pass)[ \t=]/,
    flag: /(?<=[ \t])(?:-p|-P|--password|-password|-pw|--pass)(?:[ \t]+|=)(?:(["'])([^"'\n]+)\1|([^\s"'`;|&-][^\s"'`;|&]*))/g,
    keep: (v) => (/^\d[\d:./a-z-]*$/.test(v)) || !(secretLike(v) || looksRandom(v)),
  },
  { command: /\bsecurity[ \t]+add-(?:generic|internet)-password\b/, flag: /(?<=[ \t])-w[ \t]+(?:(["'])([^"'\n]+)\1|([^\s"'`;|&-][^\s"'`;|&]*))/g },
  // rule set 10 (set AD): signing and publishing tools
  { command: /\bcertutil(?:\.exe)?\b/i, flag: /(?<=[ \t])-p[ \t]+(?:(["'])([^"'\n]+)\1|([^\s"'\x60;|&-][^\s"'\x60;|&]*))/g },
  { command: /\bsecurity[ \t]+(?:unlock-keychain|create-keychain)\b/, flag: /(?<=[ \t])-p[ \t]+(?:(["'])([^"'\n]+)\1|([^\s"'\x60;|&-][^\s"'\x60;|&]*))/g },
  { command: /\bsecurity[ \t]+import\b/, flag: /(?<=[ \t])-P[ \t]+(?:(["'])([^"'\n]+)\1|([^\s"'\x60;|&-][^\s"'\x60;|&]*))/g },
  { command: /\bsecurity[ \t]+set-key-partition-list\b/, flag: /(?<=[ \t])-k[ \t]+(?:(["'])([^"'\n]+)\1|([^\s"'\x60;|&-][^\s"'\x60;|&]*))/g },
  { command: /\b(?:vsce|ovsx)\b/, flag: /(?<=[ \t])(?:-p|--pat)(?:[ \t]+|=)(?:(["'])([^"'\n]+)\1|([^\s"'\x60;|&-][^\s"'\x60;|&]*))/g },
  { command: /\bhtpasswd\b/, flag: /(?<=[ \t])-[a-zA-Z]*b[a-zA-Z]*[ \t]+(?:-\S+[ \t]+)*\S+[ \t]+\S+[ \t]+(?:(["'])([^"'\n]+)\1|([^\s"'`;|&]+))/g },
];
/** Password flags of commands named by a literal (tested only where it is, not in the one scan: `/p` and `+login` would slow it). */
const LITERAL_COMMANDS: typeof COMMANDS = [
  { command: /\bsigntool(?:\.exe)?\b/i, flag: /(?<=[ \t])\/p[ \t]+(?:(["'])([^"'\n]+)\1|([^\s"'\x60;|&/][^\s"'\x60;|&]*))/g },
  { command: /\bpvk2pfx(?:\.exe)?\b/i, flag: /(?<=[ \t])[-/]p[io][ \t]+(?:(["'])([^"'\n]+)\1|([^\s"'\x60;|&-][^\s"'\x60;|&]*))/g },
  { command: /\bsteamcmd\b|\+login[ \t]+\S+[ \t]+\S+[^\n]*?\+(?:run_app_build|app_update|quit|workshop_build_item|force_install_dir)\b/i, flag: /(?<=[ \t])\+login[ \t]+\S+[ \t]+(?:(["'])([^"'\n]+)\1|([^\s"'\x60;|&+][^\s"'\x60;|&]*))/g },
];

/** `echo` or `printf` and their flags, before what they print into a pipe. */
const ECHO = String.raw`\b(?:echo|printf)[ \t]+(?:-[ne]+[ \t]+)?`;
/** Secrets handed to a command on its standard input or as a plain argument. */
// (an unquoted word ends at `)`, as the shell ends it: `(echo pw) | …`)
const PIPED_SECRET = new RegExp(String.raw`(${ECHO})(["']?)((?:(?<=["'])[^\s"'|]+|[^\s"'|)]+))\2([ \t]*\|[ \t]*(?:sudo[ \t]+-S|(?:docker|podman|nerdctl|buildah|skopeo|oras)[ \t]+login|helm[ \t]+registry[ \t]+login|passwd[ \t]+--stdin|chpasswd|(?:sudo[ \t]+)?(?:smbpasswd|pdbedit|mosquitto_passwd)\b|kinit|vault[ \t]+login|[a-z][\w.-]*[ \t]+(?:[\w-]+[ \t:]+)?(?:secrets?|user-secrets)(?:[ \t]+|:)(?:set|put|add|create|update|store)\b|[a-z][\w.-]*[ \t]+(?:[\w-]+[ \t]+)?store-secret\b|[a-z][\w.-]*[ \t][^\n|]{0,200}--password-stdin))|(\bConvertTo-SecureString[ \t]+(?:-String[ \t]+)?)(["'])([^"'\n]+)\6|(\bBUNDLE_[A-Z0-9_]+__[A-Z0-9_]+[ \t]*[=:][ \t]*["']?)([^\s:"']+:[^\s"']+)`, 'g');
/** A password typed twice into a command that asks for it twice: `(echo 'pw'; echo 'pw') | sudo smbpasswd -s -a alice`. */
const PIPED_TWICE = /\(([^()\n]{1,400})\)([ \t]*\|[ \t]*(?:sudo[ \t]+(?:-\S+[ \t]+)*)?[\w-]*passwd\b)/g;
const ECHOED = new RegExp(String.raw`(${ECHO})(["']?)([^\s"';|]+)\2`, 'g');
/** A user and a password as a call's two string arguments: `smtp.login("me", "…")`, `auth=("api", "…")`, `HTTPBasicAuth('u', '…')`. */
const CREDENTIAL_PAIR = /((?:\.login|\bauth[ \t]*=[ \t]*|\bBasicAuth|\bHTTPBasicAuth|\bHTTPDigestAuth|\bbasic_auth|\.auth|\.setCredentials|\bPasswordAuthentication|\bNetworkCredential)[ \t]*\(?\(?[ \t]*(?:(["'])[^"'\n]*\2|([A-Za-z_][\w.]*))[ \t]*,[ \t]*)(["'])([^"'\n]+)\4/g;
/** A password flag after a blank (`-p…`, `-u`, `--user`, `-a`, `-P`, `-w`, `-U`, `-k`, `-S`, `-b…`), `echo … |`, `ConvertTo-SecureString`, `BUNDLE_…`. */
const COMMAND_TRIGGER = /-(?<=[ \t]-)(?:[pPauUwkbSN]|-(?:user(?:name)?|auth|basic-auth|cred(?:entials?|s)?|password|pat)\b)|-(?<=ConvertTo-)S|_(?<=BUNDLE_)|\|(?<=\b(?:echo|printf)[ \t][^\n|]{1,200}\|)|:(?<=\/[uU][sS][eE][rR]:)/;

/** A user and password piped into base64, a Basic credential being built: `printf ':<pat>' | base64`. */
const PIPED_BASIC = new RegExp(String.raw`(${ECHO}(["'])[^"'\s:]{0,100}:)([^"'\s]+)(\2[ \t]*\|[ \t]*base64\b)`, 'g');
/** A key as the user and no password, piped into base64 (`echo -n <key>: | base64`, Unity's and Stripe's Basic form). */
const PIPED_BASIC_KEY = new RegExp(String.raw`(${ECHO}(["']?))([A-Za-z0-9_-]{16,}):(\2[ \t]*\|[ \t]*base64\b)`, 'g');

function redactCredentialCalls(text: string, mark: Marker): string {
  CREDENTIAL_PAIR.lastIndex = 0;
  return text.replace(CREDENTIAL_PAIR, (all, head: string, _q: string, userVariable: string | undefined, quote: string, secret: string) => {
    if (notALiteral(secret) || secret.length < 3) return all;
    // With the user in a variable (`auth=(api_key, '<secret>')`) the literal must look generated: `f(x, 'text')` is common.
    if (userVariable !== undefined && !(looksRandom(secret, 16) || /^[0-9a-f]{32,}$/i.test(secret))) return all;
    return head + quote + mark('password', secret) + quote;
  });
}

function redactCommands(text: string, mark: Marker): string {
  PIPED_SECRET.lastIndex = 0;
  let out = text;
  out = out.replace(PIPED_SECRET, (all, e1?: string, q1?: string, s1?: string, t1?: string, e2?: string, q2?: string, s2?: string, e3?: string, s3?: string) => {
    const secret = s1 ?? s2 ?? s3 ?? '';
    if (secret.length < 3 || notALiteral(secret)) return all;
    if (s1 !== undefined) return `${e1}${q1}${mark('password', secret)}${q1}${t1}`;
    if (s2 !== undefined) return `${e2}${q2}${mark('password', secret)}${q2}`;
    return `${e3}${mark('password', secret)}`;
  });
  PIPED_TWICE.lastIndex = 0;
  out = out.replace(PIPED_TWICE, (all, inner: string, tail: string) => {
    ECHOED.lastIndex = 0;
    const redacted = inner.replace(ECHOED, (e, head: string, q: string, secret: string) =>
      secret.length < 3 || notALiteral(secret) ? e : `${head}${q}${mark('password', secret)}${q}`,
    );
    return redacted === inner ? all : `(${redacted})${tail}`;
  });
  PIPED_BASIC.lastIndex = 0;
  out = out.replace(PIPED_BASIC, (all, head: string, _q: string, secret: string, tail: string) =>
    secret.length < 3 || notALiteral(secret) ? all : head + mark('password', secret) + tail,
  );
  PIPED_BASIC_KEY.lastIndex = 0;
  out = out.replace(PIPED_BASIC_KEY, (all, head: string, _q: string, key: string, tail: string) =>
    notALiteral(key) || !(looksRandom(key, 16) || /^[0-9a-f]{32,}$/i.test(key)) ? all : head + mark('password', key) + ':' + tail,
  );
  out = redactCommandFlags(out, mark, COMMANDS);
  // any command's `--user <user>:<password>`, `-u <user>,'<password>'` (rule set 7)
  return redactUserPasswordArgs(out, mark);
}

/** Each command's password flags (`commands`) on the lines that run it. */
function redactCommandFlags(text: string, mark: Marker, commands: typeof COMMANDS): string {
  let out = text;
  for (const { command, flag, keep } of commands) {
    if (!command.test(out)) continue;
    out = editLines(out, command, (line, m) => {
      flag.lastIndex = 0;
      return line.replace(flag, (all, _q: string | undefined, quoted: string | undefined, bare: string | undefined, at0: number) => {
        // (a flag before the command's name is no flag of it: "use gcc -pg, gprof to do profiling on unzip")
        if (at0 < m.index) return all;
        const secret = quoted ?? bare ?? '';
        // A marker an earlier rule left (`-u [REDACTED:…]:`) is not a user and a password.
        if (secret.length < 2 || all.includes(MARKER_PREFIX) || notALiteral(secret) || /^\$/.test(secret) || keep?.(secret)) return all;
        const at = all.lastIndexOf(secret);
        return all.slice(0, at) + mark('password', secret) + all.slice(at + secret.length);
      });
    });
  }
  return out;
}

/** `text` with each line where `head` matches rewritten by `edit` (given the line and the match), the others as they are. */
function editLines(text: string, head: RegExp, edit: (line: string, m: RegExpExecArray) => string): string {
  // A command continued on the next line (`\` in a shell, `\x60` in PowerShell, `^` in cmd) is one line here: its
  // flags may be lines below its name (`curl -s -X POST \` then `-u '<key>:' \`).
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const last = lines.length - 1;
    if (last >= 0 && /[\\\x60^][ \t]*\r?$/.test(lines[last])) lines[last] += '\n' + line;
    else lines.push(line);
  }
  return lines
    .map((line) => {
      head.lastIndex = 0;
      const m = head.exec(line);
      return m === null ? line : edit(line, m);
    })
    .join('\n');
}

/** `expect "Password:"` (Tcl expect, pexpect's spawn scripts), then the `send` that answers it: the password. */
const EXPECT_SEND_PASSWORD = /(\bexpect[ \t]+(?:-(?:re|ex|gl)[ \t]+)?["'{][^"'\n}]{0,60}(?:pass(?:phrase)?|assword)[^"'\n}]{0,20}["'}][^\n]{0,200}\r?\n[ \t]*send[ \t]+(?:--[ \t]+)?["'{])([^"'\n}\\]+)((?:\\[rn])*["'}])/gi;

/**
 * A `.pgpass` line: `host:port:database:user:password`. The password holds no `:` unless escaped (`\:`), which keeps
 * `/etc/shadow`'s `daemon:*:19683:0:99999:7:::` out.
 */
const PGPASS_LINE = /^([\w.*-]+:(?:\d{2,5}|\*):[\w.*-]+:[\w.*-]+:)((?:[^\s:\\]|\\\S){3,})$/gm;
/** The same line inside a JSON string (another agent's transcript): after `\n` or the string's opening quote, up to `\n` or its end. */
const PGPASS_ESCAPED_LINE = /((?:\\n|(?<=[:,[][ \t]*)")[\w.*-]+:(?:\d{2,5}|\*):[\w.*-]+:[\w.*-]+:)([^\s:\\"]{3,})(?=\\[rn]|"[ \t]*[,}\]])/g;

function redactPgpass(text: string, mark: Marker): string {
  const one = (all: string, head: string, secret: string) => (notALiteral(secret) ? all : head + mark('password', secret));
  PGPASS_LINE.lastIndex = 0;
  PGPASS_ESCAPED_LINE.lastIndex = 0;
  const out = text.replace(PGPASS_LINE, one);
  return out.includes('\\') || out.includes('"') ? out.replace(PGPASS_ESCAPED_LINE, one) : out;
}

// ---------------------------------------------------------------------------------------------
// Context rules of rule set 5: a secret told by where it stands, not by its name or its shape

/** A shell word of a command line, with where it starts and ends in the line (quotes excluded). */
interface ShellWord {
  text: string;
  start: number;
  end: number;
  quoted: boolean;
}

const SHELL_WORD = /"((?:[^"\\\n]|\\.){0,600})"|'([^'\n]{0,600})'|([^\s"'`|;&<>]{1,600})/y;

/** The words of `line` from `from` up to the end of its command (a `|`, `;`, `&`, `<`, `>` or the line's end). */
function shellWords(line: string, from: number): ShellWord[] {
  const words: ShellWord[] = [];
  let p = from;
  while (p < line.length && words.length < 40) {
    while (p < line.length && (line[p] === ' ' || line[p] === '\t')) p++;
    if (p >= line.length || '|;&<>\r'.includes(line[p])) break;
    SHELL_WORD.lastIndex = p;
    const m = SHELL_WORD.exec(line);
    if (m === null) break;
    if (m[3] !== undefined) words.push({ text: m[3], start: p, end: p + m[3].length, quoted: false });
    else words.push({ text: m[1] ?? m[2], start: p + 1, end: p + m[0].length - 1, quoted: true });
    p += m[0].length;
  }
  return words;
}

/** A value a person is unlikely to have typed as plain prose: generated, or digits or symbols in it. */
function generatedValue(v: string): boolean {
  return !notALiteral(v) && !v.includes('://') && !PATH.test(v) && !UUID.test(v) && (looksRandom(v, 12) || secretLike(v));
}

/** `text` with each of the (non-overlapping) spans replaced by its marker, in one pass. */
function replaceAt(text: string, spans: Array<[number, number]>, type: string, mark: Marker): string {
  const parts: string[] = [];
  let at = 0;
  for (const [s, e] of spans.sort((a, b) => a[0] - b[0])) {
    if (s < at) continue;
    parts.push(text.slice(at, s), mark(type, text.slice(s, e)));
    at = e;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

/**
 * A CLI's secret store, or its environment or variables, being set: `gh secret set NAME --body v`,
 * `netlify env:set STRIPE_KEY v`, `dotnet user-secrets set "Smtp:Password" v`, `az keyvault secret set --name n
 * --value v`, `doppler secrets set NAME=v`. After a secret store's setter the value is a secret whatever its name;
 * after an environment or variable setter, only when the name is a secret's.
 */
const SETTER_HEAD = /(?:^|[\s;&|(])[a-z][\w.-]{0,30}[ \t]+(?:[a-z][\w-]{0,30}(?:[ \t]+|:))?(?:(secrets?|user-secrets)|(env|envs|variables?|vars?))(?: +|:)(?:set|add|put|create|update|store)(?= )/g;
const VALUE_FLAGS = new Set(['--body', '-b', '--value', '--secret-string', '--data', '--string', '--secret']);
const NAME_FLAGS = new Set(['--name', '-n', '--key']);

function redactSetters(text: string, mark: Marker): string {
  return editLines(text, SETTER_HEAD, (line, head) => {
    const store = head[1] !== undefined;
    const words = shellWords(line, head.index + head[0].length);
    let name: string | undefined;
    let value: ShellWord | undefined;
    let flagged = false;
    const positional: ShellWord[] = [];
    for (let i = 0; i < words.length; i++) {
      const w = words[i];
      if (!w.quoted && w.text.startsWith('-')) {
        const eq = w.text.indexOf('=');
        const flag = eq < 0 ? w.text : w.text.slice(0, eq);
        const next = eq < 0 ? words[i + 1] : { text: w.text.slice(eq + 1), start: w.start + eq + 1, end: w.end, quoted: false };
        if (eq < 0 && next) i++;
        if (!next) continue;
        if (VALUE_FLAGS.has(flag)) (value = next), (flagged = true);
        else if (NAME_FLAGS.has(flag)) name = next.text;
        continue;
      }
      positional.push(w);
    }
    if (positional.length > 0 && name === undefined) {
      const first = positional[0];
      const eq = first.text.indexOf('=');
      if (eq > 0 && /^[\w.:-]+$/.test(first.text.slice(0, eq))) {
        name = first.text.slice(0, eq);
        value ??= { text: first.text.slice(eq + 1), start: first.start + eq + 1, end: first.end, quoted: first.quoted };
      } else {
        name = first.text;
        value ??= positional[1];
      }
    } else if (name !== undefined) value ??= positional[0];
    if (value === undefined || name === undefined) return line;
    if (!store && nameStrength(name.replace(/:/g, '_')) === 'none') return line;
    if (!(flagged ? value.text.length >= 3 && !notALiteral(value.text) : generatedValue(value.text))) return line;
    return replaceAt(line, [[value.start, value.end]], 'secret', mark);
  });
}

/**
 * A generated string literal (letters and digits) handed to a call that builds a client, connects, signs or logs in:
 * `jwt.sign(claims, "<key>")`, `hmac.new(b"<key>", …)`, `new Ably.Realtime("<key>")`, `getConnection(url, "app",
 * "<password>")`, `Client("AC…", "<token>")`. When the call has several such literals, the first ones are ids (an
 * account, an app) and the last is the secret. A hex literal counts only after another literal (`Client(sid,
 * "<hex>")`): alone it is more often a digest.
 */
const CALL_HEAD = /(?:(?:new[ \t]+)?(?:[A-Za-z_$][\w$]{0,40}\.){0,3}[A-Za-z_$][\w$]{0,40})[ \t]*\(/g;
const CALL_WORDS = new Set(['client', 'provider', 'sign', 'signer', 'hmac', 'jwt', 'jws', 'jose', 'auth', 'authenticate', 'authorize', 'connect', 'connection', 'init', 'initialize', 'configure', 'realtime', 'instance', 'login', 'credential', 'credentials', 'secret', 'token']);
const CALL_LITERAL = /(?:\(|, )b?(["'])([^"'`\s\\]{12,200})\1(?=[ \t]*[,)\]])/g;

/** The words of a callee (without `new`), lower-cased; a word in capitals only for the acronyms of CALL_WORDS (`HMAC`, `JWT`). */
function callWords(callee: string): string[] {
  return callee
    .split(/[.$_]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/)
    .filter((w) => !/^[A-Z]{2,}$/.test(w) || /^(?:HMAC|JWT|JWS|JOSE)$/.test(w))
    .map((w) => w.toLowerCase());
}

function redactCallLiterals(text: string, mark: Marker): string {
  CALL_HEAD.lastIndex = 0;
  const spans: Array<[number, number]> = [];
  for (let m = CALL_HEAD.exec(text); m !== null; m = CALL_HEAD.exec(text)) {
    const isNew = /^new[ \t]/.test(m[0]);
    const callee = m[0].slice(0, -1).trim().replace(/^new[ \t]+/, '');
    // `smartsheet.Smartsheet("<token>")`: an SDK's entry point, named after its module, takes its credential.
    const parts = callee.split('.');
    const sdkEntry = parts.length >= 2 && parts[parts.length - 1].toLowerCase() === parts[parts.length - 2].toLowerCase();
    // `meraki.DashboardAPI("<key>")`, `flickrapi.FlickrAPI('<key>', …)`: an SDK's class for its API is built from its key,
    // a hex one too (elsewhere a hex literal alone is more often a digest).
    const apiClass = /^[A-Z]\w*(?:API|Api|SDK)$/.test(parts[parts.length - 1]);
    const named = apiClass || callWords(callee).some((w) => CALL_WORDS.has(w));
    // `new Logtail("<token>")`: a class built from one generated literal alone is a client given its credential.
    const constructed = isNew && /^(?:[A-Za-z_$][\w$]*\.)*[A-Z][a-z][A-Za-z0-9]*$/.test(callee);
    // The argument list up to its closing parenthesis, on the same line, at most 400 characters.
    let depth = 1;
    let end = m.index + m[0].length;
    let quote = '';
    for (; end < text.length && end < m.index + m[0].length + 400 && depth > 0; end++) {
      const c = text[end];
      if (quote) {
        if (c === '\\') end++;
        else if (c === quote) quote = '';
      } else if (c === '"' || c === "'" || c === '`') quote = c;
      else if (c === '(' || c === '[' || c === '{') depth++;
      else if (c === ')' || c === ']' || c === '}') depth--;
      else if (c === '\n') break;
    }
    if (depth !== 0) continue;
    const args = text.slice(m.index + m[0].length - 1, end);
    // `twilio('<key id, redacted>', '<secret>')`: a literal beside a key another rule recognised is its secret.
    const besideKey = args.includes(MARKER_PREFIX);
    if (!sdkEntry && !named && !constructed && !besideKey) continue;
    const literals: Array<{ v: string; at: number }> = [];
    CALL_LITERAL.lastIndex = 0;
    for (let l = CALL_LITERAL.exec(args); l !== null; l = CALL_LITERAL.exec(args)) {
      literals.push({ v: l[2], at: m.index + m[0].length - 1 + l.index + l[0].length - l[2].length - 1 });
    }
    for (let i = literals.length - 1; i >= 0; i--) {
      const { v, at } = literals[i];
      // Names of algorithms and formats (`RSASSA-PKCS1-v1_5`) are short words joined: a key has a long run.
      if (notALiteral(v) || v.includes('://') || PATH.test(v) || UUID.test(v) || !/[A-Za-z0-9]{12}/.test(v) || !/\d/.test(v) || !/[A-Za-z]/.test(v)) continue;
      // An entry point named after its module is also a standard class (`buffer.Buffer('<base64>')`, `uuid.UUID('{…}')`),
      // and so is a class built from one literal (`new Intl.Locale(…)`): there only a long token counts, the only argument.
      if (!named && !besideKey && (v.length < (constructed && !sdkEntry ? 20 : 24) || /[={}+/]/.test(v) || (constructed && !sdkEntry && (literals.length > 1 || !/^\([ \t]*["']/.test(args))))) continue;
      if (/^[0-9a-fA-F]+$/.test(v) ? (i > 0 || apiClass) && v.length >= 32 : looksRandom(v, 16) || oneCaseGenerated(v)) {
        spans.push([at, at + v.length]);
        break;
      }
    }
    CALL_HEAD.lastIndex = Math.max(CALL_HEAD.lastIndex, m.index + m[0].length);
  }
  return spans.length ? replaceAt(text, spans, 'secret', mark) : text;
}

/**
 * The credential on an auth or login subcommand's line (`snyk auth <uuid>`, `ngrok authtoken <token>`, `b2
 * authorize-account <key id> <key>`, `cf auth <user> <password>`): the only plain argument when it is generated,
 * or the last of several (the ones before it name the account).
 */
const AUTH_LINE = /(?:^|[;&|(]|\$)[ \t]*(?:sudo[ \t]+|npx[ \t]+|pnpm[ \t]+dlx[ \t]+)?[a-z][\w.-]* +(?:auth|login|authtoken|auth-token|authorize|authorize-account)(?=[ \t])/gm;

function redactAuthSubcommands(text: string, mark: Marker): string {
  return editLines(text, AUTH_LINE, (line, head) => {
    const positional: ShellWord[] = [];
    const words = shellWords(line, head.index + head[0].length);
    for (let i = 0; i < words.length; i++) {
      const w = words[i];
      if (!w.quoted && w.text.startsWith('-')) {
        // A flag and its value: the flag rules judge those.
        if (!w.text.includes('=') && words[i + 1] && !words[i + 1].text.startsWith('-')) i++;
        continue;
      }
      positional.push(w);
    }
    if (positional.length === 0) return line;
    const last = positional[positional.length - 1];
    const v = last.text;
    const generated = !notALiteral(v) && (UUID.test(v) || /^[0-9a-f]{32,}$/i.test(v) || looksRandom(v, 16));
    if (!generated || (positional.length === 1 && v.length < 16)) return line;
    return replaceAt(line, [[last.start, last.end]], 'secret', mark);
  });
}

/**
 * A secret in a URL's path: the segment after a `key`, `token` or `secret` segment (`maker.ifttt.com/…/with/key/<key>`),
 * and after a hook segment (`hooks`, `webhook(s)`, `build_hooks`, `deploy`) the rest of the URL from its first segment
 * with a digit on, when some segment from there mixes letters and digits (`hooks.zapier.com/hooks/catch/<id>/<secret>/`,
 * `api.render.com/deploy/srv-<id>?key=<key>`): whoever has a hook's URL can post to it. A GitHub hook's number
 * (`/hooks/12345/pings`) mixes nothing and stays.
 */
const URL_PATH = /\bhttps?:\/\/[^\s/"'<>`]+(\/[^\s"'<>`?#]*)(\?[^\s"'<>`#]*)?/g;
const PATH_KEY_SEGMENT = /^(?:key|keys|token|tokens|secret|apikey|api_key|api-key|access_token|accesstoken)$/;
const HOOK_SEGMENT = /^(?:hooks?|webhooks?|build_hooks|deploy_hooks|build-hooks|deploy-hooks|deploy)$/;

function redactUrlPaths(text: string, mark: Marker): string {
  URL_PATH.lastIndex = 0;
  const spans: Array<[number, number]> = [];
  for (let m = URL_PATH.exec(text); m !== null; m = URL_PATH.exec(text)) {
    const pathStart = m.index + m[0].length - m[1].length - (m[2]?.length ?? 0);
    let at = pathStart;
    let afterKey = false;
    let afterHook = false;
    let hookFrom = -1;
    let hookMixed = false;
    for (const seg of m[1].split('/')) {
      if (seg.length > 0 && !seg.includes(MARKER_PREFIX)) {
        if (afterKey && looksRandom(seg, 16)) spans.push([at, at + seg.length]);
        if (afterHook && /\d/.test(seg) && /^[\w-]+$/.test(seg) && !UUID.test(seg) && hookFrom < 0) hookFrom = at;
        // (a word and its version, `…/staging/deploy/maven2`, `oauth2`, is a name)
        if (hookFrom >= 0 && /\d/.test(seg) && /[A-Za-z]/.test(seg) && seg.length >= 6 && !/^[A-Za-z]+\d{1,2}$/.test(seg)) hookMixed = true;
        afterKey = PATH_KEY_SEGMENT.test(seg);
        if (HOOK_SEGMENT.test(seg)) afterHook = true;
      }
      at += seg.length + 1;
    }
    if (hookFrom >= 0 && hookMixed) {
      let end = pathStart + m[1].length;
      while (end > hookFrom && text[end - 1] === '/') end--;
      if (m[2] !== undefined && m[2].length > 1) end = m.index + m[0].length;
      spans.push([hookFrom, end]);
    }
  }
  return spans.length ? replaceAt(text, spans, 'secret', mark) : text;
}

/**
 * What a command that prints a credential printed: the line after `aws ecr get-login-password`, `gcloud auth
 * print-access-token`, `heroku auth:token`, `vault print token` when it is one word.
 */
const PRINTED_BY = String.raw`get-login-password|print-access-token|print-identity-token|get-authorization-token|auth:token|auth[ \t]+token|print[ \t]+token|create[ \t]+token|token[ \t]+create`;
const PRINTS_CREDENTIAL = new RegExp(String.raw`\b(?:${PRINTED_BY})\b[^\n]{0,400}\r?\n([ \t]*)([A-Za-z0-9._~+/=-]{16,})(?=\r?\n|$)`, 'g');

function redactPrintedCredentials(text: string, mark: Marker): string {
  PRINTS_CREDENTIAL.lastIndex = 0;
  return text.replace(PRINTS_CREDENTIAL, (all, indent: string, v: string) => {
    if (notALiteral(v) || !(looksRandom(v, 16) || /^[A-Za-z0-9+/]{40,}={0,2}$/.test(v))) return all;
    return all.slice(0, all.length - v.length) + mark('secret', v);
  });
}

/**
 * Credentials keyed by host under an auth method's name (Composer's auth.json: `"github-oauth": {"github.com":
 * "<token>"}`, `"bearer": {"repo.example.com": "<token>"}`): every string value inside.
 */
const HOST_MAP = /("(?:bearer|github-oauth|gitlab-oauth|bitbucket-oauth)"[ \t]*:[ \t]*\{)([^{}]{0,2000})\}/g;
const HOST_MAP_VALUE = /("[\w.:-]{1,200}"[ \t]*:[ \t]*")([^"\\\n]{3,})"/g;

function redactHostMaps(text: string, mark: Marker): string {
  HOST_MAP.lastIndex = 0;
  return text.replace(HOST_MAP, (_all, head: string, body: string) => {
    HOST_MAP_VALUE.lastIndex = 0;
    return head + body.replace(HOST_MAP_VALUE, (all, h: string, v: string) => (notALiteral(v) ? all : h + mark('secret', v) + '"')) + '}';
  });
}

/** A Java key store (JKS: 0xFEEDFEED, JCEKS: 0xCECECECE) as base64: its magic says what it is, whatever its name. */
const KEY_STORE_MAGIC = /(?<![A-Za-z0-9+/])(?:\/u3\+7Q|zs7OzgAAAA)[A-Za-z0-9+/]{90,}={0,2}/g;
/**
 * A secret's name and its value as two fields of one record: Kubernetes' and Compose's `- name: DB_PASSWORD` with
 * `value: …` below, ECS's `{"name": "…", "value": "…"}`, Terraform's `name = "…"` / `value = "…"`, CloudFormation's
 * `ParameterKey=DbPassword,ParameterValue=…`. The name is judged as an assignment's would be.
 */
// (and describe-stacks' `"OutputKey": "ApiKeyValue"` with `"OutputValue": "…"`)
const VALUE_FIELD = /\b(?:value|parameter_?value|output_?value)["']?[ \t]*[:=][ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'`,;}\]]+))/gi;
/** The name field just before a value field: `name: X` on the line above or earlier on the same line. */
const NAME_FIELD_BEFORE = /\b(?:name|key|parameter_?key|output_?key)["']?[ \t]*[:=][ \t]*(["']?)([A-Za-z_][\w.-]{0,80})\1[ \t]*,?[ \t]*(?:\r?\n[ \t]*)?["']?$/i;

function redactNameValuePairs(text: string, mark: Marker): string {
  VALUE_FIELD.lastIndex = 0;
  const spans: Array<[number, number]> = [];
  for (let m = VALUE_FIELD.exec(text); m !== null; m = VALUE_FIELD.exec(text)) {
    const value = m[1] ?? m[2] ?? m[3] ?? '';
    const name = NAME_FIELD_BEFORE.exec(text.slice(Math.max(0, m.index - 200), m.index))?.[2];
    if (name === undefined || value.includes(MARKER_PREFIX)) continue;
    const strength = nameStrength(name);
    if (strength === 'none') continue;
    const quoted = m[3] === undefined;
    const passwordish = nameWords(name).some((w) => /pass|pwd|pin/.test(w));
    const how: ValueContext = { spaced: false, quoted, quotedName: false, sep: '=', lineMode: true, passwordish, flag: false, netrc: false, name, next: '' };
    if (!secretValue(value, strength, how)) continue;
    const at = m.index + m[0].length - value.length - (quoted ? 1 : 0);
    spans.push([at, at + value.length]);
  }
  return spans.length ? replaceAt(text, spans, 'secret', mark) : text;
}

/**
 * A literal given as the default of an environment variable named for a secret: `os.getenv("API_KEY", "…")`,
 * `process.env.API_KEY || "…"`, `std::env::var("API_KEY").unwrap_or_else(|_| "…".into())`, `ENV.fetch("API_KEY", "…")`,
 * and the shell's `${API_KEY:-…}`. The name is judged as an assignment's would be.
 */
// (its quotes escaped too, as in a transcript's JSON: `ENV.fetch(\"DB_PASSWORD\") { \"…\" }`)
const ENV_DEFAULT = /(?:\bprocess\.env\.([A-Za-z_]\w*)|(?:\bprocess\.env|\bENV|\benviron)\[\\?["']([\w.-]+)\\?["']\]|\b(?:getenv|var|get|fetch|getOrDefault|GetEnvironmentVariable)\([ \t]*\\?["']([\w.-]+)\\?["'])([^\n"'`\\]{0,60}?)(\\?["'`])([^"'`\n\\]{3,200})\5|\$\{([A-Za-z_]\w*):?-([^}\s"'`]{3,200})\}/g;
/** Between the lookup and the literal: a default's operator (`||`, `??`, `or`), after a call's `)` also Rust's `unwrap_or`. */
const DEFAULT_OPERATOR = /^[ \t]*(?:\|\||\?\?|\bor\b)[ \t]*$/;
/** (Ruby's block default too: `ENV.fetch("DB_PASSWORD") { "…" }`) */
const DEFAULT_AFTER_CALL = /^[ \t]*(?:,|\)[ \t]*(?:\|\||\?\?|\bor\b|\.unwrap_or(?:_else)?\([ \t]*(?:\|_\|)?|\.or(?:Else)?\(|\{[ \t]*(?:\|\w*\|[ \t]*)?))[ \t]*$/;

function redactEnvDefaults(text: string, mark: Marker): string {
  ENV_DEFAULT.lastIndex = 0;
  const spans: Array<[number, number]> = [];
  for (let m = ENV_DEFAULT.exec(text); m !== null; m = ENV_DEFAULT.exec(text)) {
    const name = m[1] ?? m[2] ?? m[3] ?? m[7];
    const value = m[6] ?? m[8];
    // a call's second argument (`getenv("X", "…")`), or an operator after the lookup (not a call's next argument)
    if (m[7] === undefined && !(m[3] !== undefined ? DEFAULT_AFTER_CALL : DEFAULT_OPERATOR).test(m[4])) continue;
    const strength = nameStrength(name);
    if (strength === 'none' || notALiteral(value) || value.includes(MARKER_PREFIX) || /\s/.test(value)) continue;
    if (!(strength === 'strong' ? looksRandom(value) || secretLike(value) : looksRandom(value))) continue;
    const end = m.index + m[0].length - (m[5]?.length ?? 1); // before the closing quote (perhaps escaped) or brace
    spans.push([end - value.length, end]);
  }
  return spans.length ? replaceAt(text, spans, 'secret', mark) : text;
}

/** SQL that sets a password: `CREATE USER 'u'@'%' IDENTIFIED BY '…'`, `… IDENTIFIED WITH mysql_native_password BY '…'`, `SET PASSWORD FOR u = '…'`. */
const SQL_PASSWORD = /(\b(?:identified[ \t]+(?:with[ \t]+['"`]?\w+['"`]?[ \t]+)?by(?:[ \t]+password)?|set[ \t]+password\b[^\n;=]{0,100}=)[ \t]*')([^'\n]{3,})(')/gi;
/**
 * A password hash in crypt(3)'s format (`$6$<salt>$<hash>` in /etc/shadow, htpasswd's `$apr1$`, bcrypt's `$2b$12$`,
 * `$argon2id$v=19$…`, yescrypt's `$y$`): whoever has one can try passwords against it offline.
 */
const CRYPT_HASH = /\$(?:1|5|6|8|9|sha1|apr1|2[abxy]|y|gy|7|argon2(?:id|i|d))\$(?=[^\s$]{1,100}\$)[A-Za-z0-9./+=,$-]{20,}/g;

/** Redis Sentinel's password line: `sentinel auth-pass <master> <password>`. */
const SENTINEL_AUTH = /^([ \t]*sentinel[ \t]+auth-pass[ \t]+\S+[ \t]+)(\S+)/gm;

/**
 * WireGuard's keys in `wg show`'s tab-separated output: `<public key>\t<preshared key>` (`preshared-keys`, a peer line
 * of `dump`), and `dump`'s interface line `<if>\t<private key>\t<public key>\t<port>`, whose first key is private.
 */
const WG_KEY = String.raw`[A-Za-z0-9+/]{42}[A-Za-z0-9]=`;
const WG_KEY_PAIR = new RegExp(String.raw`^((?:[\w.-]{1,15}\t)?)(${WG_KEY})\t(${WG_KEY})(?=(\t\d{1,5}\t)?)`, 'gm');

function redactWireGuardKeys(text: string, mark: Marker): string {
  WG_KEY_PAIR.lastIndex = 0;
  return text.replace(WG_KEY_PAIR, (_all, iface: string, first: string, second: string, port: string | undefined) =>
    iface && port ? iface + mark('private_key', first) + '\t' + second : iface + first + '\t' + mark('private_key', second));
}

/** pgbouncer's `userlist.txt`, a line of two quoted strings, a user and a password (or its md5/SCRAM hash): `"app" "<pw>"`. */
const PGBOUNCER_USER = /^("[\w.@-]{1,64}"[ \t]+")([^"\s]{6,400})("[ \t]*)$/gm;
/** In a text about pgbouncer's user list only: other lines of two quoted strings are tables (source-highlight's colours). */
const PGBOUNCER_CONTEXT = /userlist|pgbouncer|auth_file/;

function redactPgbouncerUsers(text: string, mark: Marker): string {
  if (!PGBOUNCER_CONTEXT.test(text)) return text;
  PGBOUNCER_USER.lastIndex = 0;
  return text.replace(PGBOUNCER_USER, (all, a: string, v: string, b: string) => (typedPassword(v) || looksRandom(v, 12) ? a + mark('password', v) + b : all));
}
/** Nagios's `resource.cfg` macros: `$USER4$=<password>` (most hold paths and user names, which stay). */
const NAGIOS_USER_MACRO = /^([ \t]*\$USER\d{1,3}\$[ \t]*=[ \t]*)(\S{6,400})(?=[ \t]*\r?$)/gm;

/** strongSwan's and Libreswan's ipsec.secrets: `<ids> : PSK "<secret>"` (also XAUTH, EAP). */
const IPSEC_SECRET = /(: (?:PSK|XAUTH|EAP)[ \t]+")([^"\n]+)(")/g;

/**
 * What prints a file whose name says it holds a secret (rule set 7): `cat /etc/mongod/keyfile`, `sudo cat
 * ~/.ansible/vault_pass.txt`, `type .\\token.txt`; not a public key, a certificate, `authorized_keys` or `/etc/passwd`.
 */
const SECRET_FILE_WORD = String.raw`(?:(?<![A-Za-z])(?:[Kk]ey(?:file|s)?|[Ss]ecrets?|[Pp]ass(?:word|wd|phrase)?s?|pwd|psk|[Tt]okens?|[Cc]redentials?|creds|auth(?=\.(?:txt|conf|cfg)$|$|[-_.](?:pass|user|file|txt))|(?<=\.)auth)|(?<=[a-z])(?:Key|Secret|Token|Pass(?:word)?))(?![a-z])`;
const PRINTS_SECRET_FILE = String.raw`(?:cat|head|tail|bat|type|Get-Content|gc)[ \t]+(?:-\S+[ \t]+(?:\d+[ \t]+)?)*(?:[^\s|;&'"]*[\/\\])?(?!passwd\b|authorized_keys\b)[\w.-]*?${SECRET_FILE_WORD}[\w.-]*(?<!\.(?:pub|crt|cer|csr|pem))(?=$|[\s|;&)'"])`;

/**
 * Commands whose output is a credential: tokens printed by cloud CLIs, secret stores read, secrets decoded or freshly
 * generated (`aws ecr get-login-password`, `gh auth token`, `op read op://…`, `gcloud secrets versions access`,
 * `vault kv get -field=password`, `kubectl get secret … | base64 -d`, `openssl rand -base64 32`). A tool's output
 * after one of them is judged by this, not by its shape: see `credentialOutput`.
 */
export const PRINTS_CREDENTIAL_COMMAND = new RegExp(String.raw`\b(?:${PRINTED_BY}|${PRINTS_SECRET_FILE}|(?:reset|setup|generate)-passwords?|reset-credentials|get-access-token|config:get|secrets?[ \t]+(?:versions[ \t]+)?(?:access|get|show|reveal)|keystore[ \t]+show|get-secret-value|get-parameters?\b[^\n]{0,200}--with-decryption|keyvault[ \t]+secret[ \t]+show|(?<=\/)text:[\w.]*(?:password|passwd|secret|token)|kv[ \t]+get|read[ \t]+-field|find-(?:generic|internet)-password|secret-tool[ \t]+lookup|keyring[ \t]+get|(?:op|bw|gopass)[ \t]+(?:read|get|show)|pass[ \t]+show|sops[ \t]+(?:-d|--decrypt)|base64[ \t]+(?:-d|--decode)|openssl[ \t]+rand|token_(?:hex|urlsafe|bytes)|randomBytes|pwgen|\/dev\/urandom)\b`);

/** Where a tool's own output starts in a result: after Scroll's `--- stdout ---` or Codex's `Output:` line, else at once. */
const OUTPUT_START = /(?:^|\n)(?:--- stdout ---|Output:)\r?\n/;

/**
 * The credential in a tool's output when the command that made it prints one (PRINTS_CREDENTIAL_COMMAND): the output
 * when it is one word (8 to 4,096 characters on its own; a table, JSON or an error message is left to the other rules).
 */
export function credentialOutput(output: string, mark: Marker): string {
  const m = OUTPUT_START.exec(output);
  const from = m ? m.index + m[0].length : 0;
  const end = output.indexOf('\n--- stderr ---', from);
  const to = end < 0 ? output.length : end;
  const at = oneWordAt(output, from, to) ?? labelledLastLine(output, from, to) ?? userThenPassword(output, from, to);
  return at === undefined ? output : output.slice(0, at[0]) + mark('secret', output.slice(at[0], at[1])) + output.slice(at[1]);
}

/** Where the text from `from` to `end` is one word that may be a credential (8 to 4,096 characters, no placeholder). */
function oneWordAt(text: string, from: number, end: number): [number, number] | undefined {
  const body = text.slice(from, end);
  const word = body.trim();
  if (word.length < 8 || word.length > 4096 || /\s/.test(word) || notALiteral(word) || word.includes(MARKER_PREFIX)) return undefined;
  // JSON without blanks (`{"hosted":[{"url":…,"token":…}]}`) is a document, not a word: the other rules read its fields
  if (/^[{[]/.test(word) && /[}\]]$/.test(word)) return undefined;
  const at = from + body.indexOf(word);
  // `backup:<password>` (a secrets file's line): the user stays
  const user = /^[A-Za-z_][\w.-]{0,31}:(?!\/\/)(?=[^:]{8,}$)/.exec(word);
  return user ? [at + user[0].length, at + word.length] : [at, at + word.length];
}

/**
 * The second of two lines from `from` to `end` when the first is a user's name and the second a password's shape: an
 * OpenVPN `auth-user-pass` file, a `.netrc`-less credentials file printed by `cat`.
 */
function userThenPassword(text: string, from: number, end: number): [number, number] | undefined {
  const m = /^(\s*[\w.@\\-]{1,64}\r?\n[ \t]*)(\S{6,200})\s*$/.exec(text.slice(from, end));
  if (m === null || !typedPassword(m[2])) return undefined;
  const at = from + m[1].length;
  return [at, at + m[2].length];
}

/**
 * The value of the last line from `from` to `end` when that line is a label and one word (`New value: <password>`,
 * the last line of `elasticsearch-reset-password`), for the output of a command that prints a credential.
 */
function labelledLastLine(text: string, from: number, end: number): [number, number] | undefined {
  const body = text.slice(from, end).replace(/\s+$/, '');
  const lineStart = body.lastIndexOf('\n') + 1;
  const m = /^[ \t]*[A-Za-z][\w-]*(?:[ \t][\w-]+){0,3}:[ \t]+(\S{8,4096})$/.exec(body.slice(lineStart));
  if (m === null || !generatedValue(m[1])) return undefined;
  const at = from + body.length - m[1].length;
  return [at, at + m[1].length];
}

/**
 * A terminal session pasted as text: after a `$ <command>` prompt line whose command prints a credential
 * (PRINTS_CREDENTIAL_COMMAND), its output up to the next prompt when that is one word (`$ op read op://…` and the
 * password on the line below), as `credentialOutput` judges a tool's output.
 */
const PROMPT = String.raw`(?:\$ |(?:PS )?[A-Z]:\\[^\n>]{0,200}>[ \t]?|\[[\w.-]{1,32}@[\w.-]{1,64}[^\]\n]{0,200}\]# |[\w.-]{1,32}@[\w.-]{1,64}:~# )`;
const PROMPT_LINE = new RegExp(String.raw`(?:^|\n)[ \t]*${PROMPT}([^\n]{1,2000})(?=\n)`, 'g');
/** The next prompt's line, where a command's output ends. */
const NEXT_PROMPT = new RegExp(String.raw`\n[ \t]*${PROMPT}`, 'g');
/** A command that reads one field of a secret, and that field is not secret: `-o jsonpath='{.data.username}'`, `-field=host`. */
const NAMES_PUBLIC_FIELD = /(?:\{\.data\.|-field[= ]|\.fields\.|--fields[= ])["']?(?:user(?:_?name)?|login|email|host(?:name)?|port|database|db_?name|url|endpoint|region)\b(?![.-])/i;

function redactPastedSessions(text: string, mark: Marker): string {
  PROMPT_LINE.lastIndex = 0;
  const spans: Array<[number, number]> = [];
  for (let m = PROMPT_LINE.exec(text); m !== null; m = PROMPT_LINE.exec(text)) {
    if (!PRINTS_CREDENTIAL_COMMAND.test(m[1]) || NAMES_PUBLIC_FIELD.test(m[1])) continue;
    const from = m.index + m[0].length + 1;
    NEXT_PROMPT.lastIndex = from - 1;
    const next = NEXT_PROMPT.exec(text)?.index ?? -1;
    const to = next < 0 ? text.length : next;
    const at = oneWordAt(text, from, to) ?? labelledLastLine(text, from, to) ?? userThenPassword(text, from, to);
    if (at !== undefined) spans.push(at);
  }
  return spans.length ? replaceAt(text, spans, 'secret', mark) : text;
}

/** A PKCS#12 or Java key store (a private key inside) as base64 in a setting: `CERT_P12_BASE64=MII…`. */
const KEY_STORE_B64 = /((?:p12|pfx|pkcs12|keystore|jks)[\w.-]{0,60}["']?[ \t]*[:=][ \t]*["']?)(MII[A-Za-z0-9+/]{60,}={0,2})/gi;

// ---------------------------------------------------------------------------------------------
// Context rules of rule set 7 (set Q): generic secrets by the command, column or label they stand under

/**
 * A password a person would type: 6 characters or more, a letter and a digit or a symbol other than `-_.`. Stricter than
 * `secretLike`, for which a `-` is enough: after `--user <user>:` a group (`www-data`) must stay.
 */
function typedPassword(v: string): boolean {
  return v.length >= 6 && !notALiteral(v) && !/^\$/.test(v) && /[A-Za-z]/.test(v) && /[0-9]|[^\w.\-]/.test(v) && !v.includes('://');
}

/**
 * A user and a password as one argument of any command: `etcdctl --user root:<pw>`, `lftp -u deploy,'<pw>'`,
 * ZooKeeper's `addauth digest admin:<pw>`. Not a user and a group (`-u 1000:1000`, `--user www-data:www-data`).
 */
const USER_PASSWORD_FLAG = /[ \t](?:--user|--username|--auth|--basic-auth|--credentials?|--creds|-u)(?:[ \t]+|=)/g;
const ADDAUTH = /\baddauth[ \t]+digest[ \t]+/g;

function redactUserPasswordArgs(text: string, mark: Marker, flag: RegExp = USER_PASSWORD_FLAG): string {
  return editLines(text, flag, (line) => {
    const spans: Array<[number, number]> = [];
    flag.lastIndex = 0;
    for (let m = flag.exec(line); m !== null; m = flag.exec(line)) {
      const [first, second] = shellWords(line, m.index + m[0].length);
      if (first === undefined || first.text.includes(MARKER_PREFIX)) continue;
      const split = /^([A-Za-z_][\w.@-]{0,63})([:,])/.exec(first.text);
      if (split === null) continue;
      let span: [number, number];
      if (split[0].length === first.text.length) {
        // `deploy,'<pw>'`: the password is the quoted word right after
        if (second === undefined || !second.quoted || second.start - 1 !== first.end) continue;
        span = [second.start, second.end];
      } else {
        span = [first.start + split[0].length, first.end];
      }
      const pw = line.slice(span[0], span[1]);
      if (pw === split[1] || pw.includes(':') || !typedPassword(pw)) continue;
      spans.push(span);
    }
    return spans.length ? replaceAt(line, spans, 'password', mark) : line;
  });
}

/** A subcommand that creates a user or sets a password, then the user and the password: `rabbitmqctl add_user deploy '<pw>'`. */
const USER_SUBCOMMAND = /(?:^|[\s;&|(])[a-z][\w.-]{0,30}[ \t]+(?:add_user|change_password|set_password|add-user|change-password|set-password|create-user)(?=[ \t])/g;

function redactUserSubcommands(text: string, mark: Marker): string {
  // ZooKeeper's `addauth digest <user>:<pw>` is read as the flags are, but here, behind this rule's literals: the command
  // rule's trigger is in the one scan, where a trigger starting with a letter would stop it at every `a`.
  const out = text.includes('addauth') ? redactUserPasswordArgs(text, mark, ADDAUTH) : text;
  return editLines(out, USER_SUBCOMMAND, (line, head) => {
    const positional = shellWords(line, head.index + head[0].length).filter((w) => w.quoted || !w.text.startsWith('-'));
    if (positional.length < 2) return line;
    const [user, pw] = positional;
    if (pw.text === user.text || !(typedPassword(pw.text) || looksRandom(pw.text, 12))) return line;
    return replaceAt(line, [[pw.start, pw.end]], 'password', mark);
  });
}

/** A gossip or encryption key as base64 under `encrypt` (Consul's, Nomad's and Serf's `encrypt = "<key>"`, `-encrypt=<key>`). */
const ENCRYPT_KEY = /(\bencrypt["']?[ \t]*(?:[:=][ \t]*|[ \t]+)["']?|(?<=[ \t])-encrypt[= ]["']?)([A-Za-z0-9+/]{20,86}={0,2})(?![A-Za-z0-9+/=])/g;

/**
 * A CLI's output line whose label names a secret but ends in a word the assignment scanner reads as a description:
 * `Secret ID = <uuid>` (Consul's and Nomad's ACL tokens), `Unseal Key 1: <key>`, `Recovery Key 2: <key>` (Vault).
 */
const SECRET_LABEL = /^([ \t]*(?:Secret[ \t]+ID|(?:[A-Z][a-z]+[ \t]+)?Key[ \t]+\d{1,2})[ \t]*[:=][ \t]*)(\S{16,4096})[ \t]*$/gm;

/** A SQL row's values under a secret's column: `INSERT INTO api_keys (user_id, token) VALUES (42, '<token>')`. */
const SQL_INSERT = /\binsert[ \t]+(?:ignore[ \t]+)?into[ \t]+[\w."`[\]]{1,128}[ \t]*\(([^()]{1,2000})\)\s*values\s*/gi;

function redactSqlRows(text: string, mark: Marker): string {
  const spans: Array<[number, number]> = [];
  SQL_INSERT.lastIndex = 0;
  for (let m = SQL_INSERT.exec(text); m !== null; m = SQL_INSERT.exec(text)) {
    const columns = m[1].split(',').map((c) => c.trim().replace(/^["`[]|["`\]]$/g, ''));
    const strengths = columns.map((c) => nameStrength(c));
    if (!strengths.some((x) => x !== 'none')) continue;
    let p = m.index + m[0].length;
    // rows: `(v, 'v', f(x)), (…)`; each value's place, quoted literals only
    for (let row = 0; row < 1000 && text[p] === '('; row++) {
      p++;
      let col = 0;
      let depth = 0;
      while (p < text.length && depth >= 0) {
        const c = text[p];
        if (c === "'") {
          let e = p + 1;
          while (e < text.length && !(text[e] === "'" && text[e + 1] !== "'")) e += text[e] === "'" ? 2 : 1;
          if (e >= text.length) return spans.length ? replaceAt(text, spans, 'secret', mark) : text;
          const v = text.slice(p + 1, e);
          const strength = depth === 0 ? strengths[col] : 'none';
          const secret =
            strength === 'strong' ? v.length >= 3 && !notALiteral(v) && !/\s/.test(v) && !/^\d+$/.test(v) : strength === 'weak' && !notALiteral(v) && (looksRandom(v, 16) || UUID.test(v));
          if (secret) spans.push([p + 1, e]);
          p = e + 1;
          continue;
        }
        if (c === '(') depth++;
        else if (c === ')') depth--;
        else if (c === ',' && depth === 0) col++;
        p++;
      }
      while (p < text.length && /\s/.test(text[p])) p++;
      if (text[p] !== ',') break;
      p++;
      while (p < text.length && /\s/.test(text[p])) p++;
    }
  }
  return spans.length ? replaceAt(text, spans, 'secret', mark) : text;
}

// ---------------------------------------------------------------------------------------------
// The rule set

/**
 * A table whose header names a secret's column: a CSV or TSV export (Chrome's `name,url,username,password,note`), a
 * `psql` or MySQL result, a Markdown table. That column's cell in each row below it, when the cell looks typed or
 * generated; the other cells stay.
 */
const TABLE_RULE_LINE = /^[\s|+:=-]*$/;
const TABLE_NAME = /^[A-Za-z_][\w.-]{0,40}(?: [\w.-]{1,40}){0,3}$/;

/** The cells of a table's line and where each starts and ends (a CSV's quotes around a cell excluded). */
function tableCells(line: string, sep: string): Array<{ start: number; end: number }> {
  const cells: Array<{ start: number; end: number }> = [];
  let i = 0;
  let last = line.length;
  if (sep === '|') {
    // (a Markdown or MySQL row's outer bars)
    while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
    if (line[i] === '|') i++;
    while (last > i && /[ \t\r]/.test(line[last - 1])) last--;
    if (line[last - 1] === '|') last--;
  }
  for (;;) {
    let start = i;
    let end: number;
    if (sep !== '|' && line[i] === '"') {
      let q = i + 1;
      while (q < last && !(line[q] === '"' && line[q + 1] !== '"')) q += line[q] === '"' ? 2 : 1;
      start = i + 1;
      end = q;
      i = q + 1;
      while (i < last && line[i] !== sep) i++;
    } else {
      const next = line.indexOf(sep, i);
      end = next < 0 || next > last ? last : next;
      i = end;
    }
    cells.push({ start, end });
    if (i >= last) break;
    i++;
  }
  return cells;
}

/** A line of names between separators, a table's header candidate (checked further in redactTableColumns). */
const TABLE_HEADER_LINE = /^[ \t]*(?:\|[ \t]*)?[A-Za-z_][\w.-]{0,40}(?: [\w.-]{1,40}){0,3}[ \t]*(?:[,;\t|][ \t]*[A-Za-z_][\w.-]{0,40}(?: [\w.-]{1,40}){0,3}[ \t]*)+\|?[ \t]*\r?$/;
const TABLE_HEADER_WORDS = /pass|secret|token|pwd|key/gi;

function redactTableColumns(text: string, mark: Marker): string {
  const spans: Array<[number, number]> = [];
  TABLE_HEADER_WORDS.lastIndex = 0;
  for (let w = TABLE_HEADER_WORDS.exec(text); w !== null; w = TABLE_HEADER_WORDS.exec(text)) {
    // the line of each secret word, looked at once
    const lineStart = text.lastIndexOf('\n', w.index) + 1;
    const lineEnd = text.indexOf('\n', w.index);
    TABLE_HEADER_WORDS.lastIndex = lineEnd < 0 ? text.length : lineEnd;
    const m = TABLE_HEADER_LINE.exec(text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd));
    if (m === null) continue;
    const header = m[0].replace(/\r$/, '');
    const sep = header.includes('\t') ? '\t' : header.includes('|') ? '|' : header.includes(',') ? ',' : ';';
    // (an export's rows start their lines; indented lines are code: `yield before, orig_token`)
    if (sep !== '|' && /^[ \t]/.test(header)) continue;
    const cells = tableCells(header, sep);
    const names = cells.map((c) => header.slice(c.start, c.end).trim());
    if (cells.length < 2 || !names.every((n) => TABLE_NAME.test(n))) continue;
    const columns = names.flatMap((n, index) => {
      const strength = nameStrength(n.replace(/ /g, '_'));
      return strength === 'none' ? [] : [{ index, strength }];
    });
    if (columns.length === 0) continue;
    let at = lineStart + m[0].length + 1;
    while (at < text.length) {
      const nl = text.indexOf('\n', at);
      const end = nl < 0 ? text.length : nl;
      const line = text.slice(at, end).replace(/\r$/, '');
      // a rule between the header and the rows (`|---|---|`, `----+----`, `+----+`) is passed over
      if (!(TABLE_RULE_LINE.test(line) && line.trim() !== '')) {
        const row = tableCells(line, sep);
        if (row.length !== cells.length || (sep !== '|' && /^[ \t]/.test(line))) break;
        for (const { index, strength } of columns) {
          const raw = line.slice(row[index].start, row[index].end);
          const v = raw.trim();
          if (v.length < 6 || /\s/.test(v) || notALiteral(v) || PATH.test(v) || UUID.test(v) || v.includes('://')) continue;
          const from = at + row[index].start + raw.indexOf(v);
          if (strength === 'strong' ? typedPassword(v) || looksRandom(v, 12) : looksRandom(v, 16)) spans.push([from, from + v.length]);
        }
      }
      if (nl < 0) break;
      at = nl + 1;
    }
    TABLE_HEADER_WORDS.lastIndex = Math.max(TABLE_HEADER_WORDS.lastIndex, at);
  }
  return spans.length ? replaceAt(text, spans, 'secret', mark) : text;
}

// ---- rule set 10 (set AA): Windows, database and enterprise tools

/** A password a person set for a service: 8 or more characters, a letter, a digit, and a symbol or both cases. */
function servicePassword(v: string): boolean {
  return v.length >= 8 && !/\s/.test(v) && /[A-Za-z]/.test(v) && /\d/.test(v) && (/[^\w.\-]/.test(v) || (/[a-z]/.test(v) && /[A-Z]/.test(v))) && !notALiteral(v) && !PATH.test(v) && !v.includes('://') && !/^[\w.+-]+@[\w-]+\.[\w.-]+$/.test(v);
}

/**
 * A login call's user, then its password, as string literals (perhaps after a host or path first): WLST's
 * `connect('weblogic', '<pw>', 't3://…')`, `new DirectoryEntry($path, "CORP\svc", "<pw>")`,
 * `NotesFactory.createSession(host, "user", "<pw>")`, EWS's `new WebCredentials("user", "<pw>", "CORP")`.
 */
// (also PHP's `new PDO($dsn, 'user', '<pw>')`, `new mysqli(host, user, pw)`, as a stack trace prints them: `PDO->__construct('mysql:…', 'forge', '<pw>', Array)`)
const POSITIONAL_LOGIN = /\b(?:connect|Connect|createSession|CreateSession|DirectoryEntry|WebCredentials|Credentials?|PSCredential|login|Login|logon|Logon|LogonUser|authenticate|Authenticate|open_session|PDO|mysqli|(?<=(?:PDO|mysqli)->)__construct)\([ \t]*(?:(?:"[^"\n]{0,200}"|'[^'\n]{0,200}'|[$\w.]{1,80})[ \t]*,[ \t]*)?(["'])[\w.@\\/ -]{1,120}\1[ \t]*,[ \t]*(["'])([^"'\n]{8,200})\2/g;

function redactPositionalLogins(text: string, mark: Marker): string {
  POSITIONAL_LOGIN.lastIndex = 0;
  return text.replace(POSITIONAL_LOGIN, (all, _q1: string, _q2: string, v: string) => {
    if (!(servicePassword(v) || looksRandom(v, 16))) return all;
    const at = all.lastIndexOf(v);
    return all.slice(0, at) + mark('secret', v) + all.slice(at + v.length);
  });
}

/**
 * Windows commands' password switches (`schtasks … /ru <user> /rp <pw>`, `/password:<pw>`, `/pass <pw>`), and `net use`'s
 * positional password before its `/user:`. `*` asks for it instead.
 */
const WINDOWS_PASSWORD_SWITCH = /((?<=[ \t])\/(?:rp|pass|password|passwd|pwd|pw)(?::|=|[ \t]+))("[^"\n]{3,200}"|[^\s"/*][^\s"]{2,200})/gi;
const NET_USE_PASSWORD = /(\bnet[ \t]+use[ \t]+(?:[A-Za-z]:[ \t]+|\*[ \t]+)?\\\\[^\s]+[ \t]+)("[^"\n]{3,200}"|[^\s/*"][^\s"]{2,200})(?=[^\n]*\/user:)/gi;

/** A bare word of a command line without the punctuation of the prose or markup around it (`<pw>\`),`). */
const bareWord = (v: string) => v.replace(/[\x60'),;.\]]+$/, '');

function redactWindowsSwitches(text: string, mark: Marker): string {
  const unquote = (v: string) => (v.startsWith('"') ? v.slice(1, -1) : bareWord(v));
  const each = (all: string, head: string, raw: string) => {
    const v = unquote(raw);
    if (notALiteral(v) || /^%[\w]+%$/.test(v) || /^\$/.test(v)) return all;
    return head + raw.replace(v, mark('password', v));
  };
  WINDOWS_PASSWORD_SWITCH.lastIndex = 0;
  NET_USE_PASSWORD.lastIndex = 0;
  return text.replace(NET_USE_PASSWORD, each).replace(WINDOWS_PASSWORD_SWITCH, each);
}

/**
 * Oracle's `user/password@service` logins: `sqlplus hr/<pw>@ORCLPDB1`, `expdp system/<pw>@db`, `rman target
 * sys/<pw>@prod`, SQL*Plus's `CONNECT u/<pw>@db`, a parameter file's `userid=system/<pw>@db`.
 */
const ORACLE_LOGIN = /(\b(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl|sqlcl|tkprof|userid[ \t]*=)(?:[ \t]+-\w+)*[ \t]*(?:(?:target|auxiliary|catalog)[ \t]*=?[ \t]*)?["']?[\w$#]{1,128}\/)([^\s@/'"]{3,128})(?=@|["']?(?:[ \t]|$))|((?:^|SQL>[ \t]*)(?:CONN(?:ECT)?|conn(?:ect)?)[ \t]+[\w$#]{1,128}\/)([^\s@/'"]{3,128})(?=@|[ \t]|$)/gim;

function redactOracleLogins(text: string, mark: Marker): string {
  ORACLE_LOGIN.lastIndex = 0;
  return text.replace(ORACLE_LOGIN, (all, head: string | undefined, v: string | undefined, head2: string | undefined, v2: string | undefined) => {
    const value = v ?? v2!;
    if (notALiteral(value) || !(typedPassword(value) || looksRandom(value, 12))) return all;
    return (head ?? head2!) + mark('password', value);
  });
}

/** Credential stores' positional passwords: `mkstore -createCredential <alias> <user> <pw>`, `hdbuserstore SET <key> <env> <user> <pw>`. */
const STORED_CREDENTIAL = /(\bmkstore\b[^\n]*?-(?:create|modify)Credential[ \t]+\S+[ \t]+\S+[ \t]+|\bhdbuserstore\b(?:[ \t]+-\S+)*[ \t]+SET[ \t]+\S+[ \t]+\S+[ \t]+\S+[ \t]+)(["']?)([^\s"']{3,200})\2/gi;
/** Registry output (`reg query`): a value named for a secret, `DefaultPassword    REG_SZ    <pw>`. */
const REGISTRY_VALUE = /^([ \t]+([\w.-]{1,100})[ \t]+REG_(?:SZ|EXPAND_SZ|MULTI_SZ)[ \t]+)(\S[^\n\r]*?)(?=[ \t]*\r?$)/gm;
/** An element named for a secret whose `<Value>` holds it: unattend.xml's `<Password><Value>…</Value>`. */
const ELEMENT_VALUE = /(<(?:[\w.-]{1,30}:)?([\w.-]{0,60}(?:[Pp]assword|PASSWORD|[Ss]ecret|[Tt]oken|[Kk]ey)[\w.-]{0,30})(?:[ \t][^<>]{0,300})?>\s*<(?:[\w.-]{1,30}:)?[Vv]alue>)([^<\n]{1,400})(?=<\/)/g;
/** A mainframe FTP job's input: after `//INPUT DD *`, the host, the user, then the password, a line each. */
const JCL_FTP_INPUT = /(\/\/[A-Z0-9#@$]{0,8}[ \t]+DD[ \t]+\*[^\n]*\n[^\n/]{1,200}\n[^\n/]{1,200}\n)([^\s]{3,100})(?=\n)/g;
/** IBM i CL's `PASSWORD(<pw>)` parameter of the commands that set one (`CRTUSRPRF`, `CHGUSRPRF`, `ADDSVRAUTE`). */
const CL_PASSWORD = /(\b(?:PASSWORD|PWD)\('?)([^)\s*'][^)\s']{2,127})(?='?\))/g;

/** An INI section named for secrets (MobaXterm's `[Passwords]`, `[Credentials]`) or WeeChat's `sec.conf` `[data]`: each value in it. */
const SECRET_SECTION = /^\[(?:[Pp]asswords?|PASSWORDS?|[Cc]redentials|CREDENTIALS|[Ss]ecrets|SECRETS|data(?=\][^\n]*\n[\s\S]*?__passphrase__))\][ \t]*\r?\n((?:[ \t]*(?![\[;#])[^\n=]{1,200}=[^\n]*\r?\n?)+)/gm;
const SECTION_VALUE = /^([ \t]*[^\n=]{1,200}=[ \t]*"?)([^\s"][^\n"]*?)("?[ \t]*\r?)$/gm;
/** RDP files' saved password (`password 51:b:<DPAPI hex>`) and other `<name>:s:` fields named for one. */
const RDP_PASSWORD = /^((?:password 51:b|[\w ]{0,40}password:s):)(\S{6,})$/gim;
/** HeidiSQL's settings export: `Servers\<name>\Password<|||>1<|||><encoded>`. */
const HEIDI_SETTING = /^([^\n]{0,200}(?:Password|Secret|Token)<\|\|\|>\d<\|\|\|>)([^\s<]{4,})$/gm;
/** A TLS key log (SSLKEYLOGFILE): `CLIENT_RANDOM <client random> <master secret>` and TLS 1.3's `…_SECRET` lines. */
const TLS_KEY_LOG = /^((?:CLIENT_RANDOM|(?:CLIENT|SERVER)_(?:HANDSHAKE_)?TRAFFIC_SECRET_?\d*|(?:EARLY_)?EXPORTER_SECRET|CLIENT_EARLY_TRAFFIC_SECRET)[ \t]+[0-9a-fA-F]{64}[ \t]+)([0-9a-fA-F]{64,128})(?=[ \t]*\r?$)/gm;
/** ZNC's `Server = <host> [+]<port> <password>` inside a `<Network>`. */
const ZNC_SERVER = /^([ \t]*Server[ \t]*=[ \t]*\S+[ \t]+\+?\d{2,5}[ \t]+)(\S{4,})(?=[ \t]*\r?$)/gm;

function redactClientFiles(text: string, mark: Marker): string {
  let out = text;
  if (/\[(?:[Pp]asswords?|PASSWORDS?|[Cc]redentials|CREDENTIALS|[Ss]ecrets|SECRETS|data)\]/.test(out)) {
    SECRET_SECTION.lastIndex = 0;
    out = out.replace(SECRET_SECTION, (all: string, body: string) => {
      SECTION_VALUE.lastIndex = 0;
      const redacted = body.replace(SECTION_VALUE, (line, head: string, v: string, tail: string) =>
        v.length < 4 || notALiteral(v) || /^(?:on|off|true|false|yes|no|\d{1,5})$/i.test(v) ? line : head + mark('password', v) + tail);
      return all.slice(0, all.length - body.length) + redacted;
    });
  }
  if (out.includes('<Network') || out.includes('znc.conf')) {
    ZNC_SERVER.lastIndex = 0;
    out = out.replace(ZNC_SERVER, (all, head: string, v: string) => (notALiteral(v) || !(typedPassword(v) || looksRandom(v, 12)) ? all : head + mark('password', v)));
  }
  return out;
}

function redactEnterpriseLines(text: string, mark: Marker): string {
  let out = text;
  if (out.includes('mkstore') || /hdbuserstore/i.test(out)) {
    STORED_CREDENTIAL.lastIndex = 0;
    out = out.replace(STORED_CREDENTIAL, (all, head: string, q: string, raw: string) => {
      const v = q ? raw : bareWord(raw);
      return notALiteral(v) ? all : head + q + mark('password', v) + raw.slice(v.length) + q;
    });
  }
  if (out.includes('REG_')) {
    REGISTRY_VALUE.lastIndex = 0;
    out = out.replace(REGISTRY_VALUE, (all, head: string, name: string, v: string) => {
      const strength = nameStrength(name);
      if (strength === 'none' || notALiteral(v) || PATH.test(v) || !(strength === 'strong' ? v.length >= 3 && !/^(?:0x[0-9a-f]+|\d+)$/i.test(v) : looksRandom(v, 16))) return all;
      return head + mark('password', v);
    });
  }
  if (/[Vv]alue>/.test(out)) {
    ELEMENT_VALUE.lastIndex = 0;
    out = out.replace(ELEMENT_VALUE, (all, head: string, name: string, v: string) => {
      const strength = nameStrength(name);
      if (strength === 'none' || notALiteral(v) || !(strength === 'strong' ? secretLike(v) || looksRandom(v, 12) : looksRandom(v, 16))) return all;
      return head + mark('password', v);
    });
  }
  if (out.includes('PGM=FTP')) {
    JCL_FTP_INPUT.lastIndex = 0;
    out = out.replace(JCL_FTP_INPUT, (all, head: string, v: string) => (notALiteral(v) ? all : head + mark('password', v)));
  }
  if (/CRTUSRPRF|CHGUSRPRF|SVRAUTE/.test(out)) {
    CL_PASSWORD.lastIndex = 0;
    out = out.replace(CL_PASSWORD, (all, head: string, v: string) => (notALiteral(v) || /^\*/.test(v) ? all : head + mark('password', v)));
  }
  return out;
}

/** The triggers of the rules keyed on a word; shared so that the one scan tests them once. */

// ---- rule set 11 (set AL): infrastructure state

/**
 * Pulumi's decrypted secret in a stack export: the object marked with its secret signature
 * (`"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"`) holds the value as `plaintext`.
 */
const PULUMI_PLAINTEXT = /("4dabf18193072939515e22adb298388d"[ \t]*:[ \t]*"1b47061264138c4ac30d75fd1eb44270"[ \t]*,\s*"plaintext"[ \t]*:[ \t]*"(?:\\")?)((?:[^"\\\n]|\\[^"])+?)(?=(?:\\")?")/g;
/** Terraform's `random_password` (and its older `random_string`) keeps the generated value as `result` in the state. */
const TF_RANDOM_RESULT = /("type"[ \t]*:[ \t]*"random_password"[\s\S]{0,4000}?"result"[ \t]*:[ \t]*")((?:[^"\\\n]|\\.)+)(?=")/g;
/**
 * A CloudFormation parameter declared `NoEcho: true` is a secret: its `Default` is one (YAML: a sibling line of the
 * `NoEcho`, at most ten lines from it, under the parameter's name). Read from each `NoEcho` line outward, so a text
 * costs its `NoEcho` lines and their neighbours, not every line.
 */
const NO_ECHO = /^([ \t]+)NoEcho:[ \t]*["']?true["']?[ \t]*\r?$/gm;
const NO_ECHO_SIBLING_DEFAULT = /^([ \t]+Default:[ \t]*(["']?))([^\n"']{3,200})\2[ \t]*\r?$/;

/** postfix's `sasl_passwd`: `[relay]:port user:password`, in a text that names the file. */
const SASL_PASSWD_LINE = /^([+-]?[ \t]*\[?[\w.-]+\]?(?::\d{1,5})?[ \t]+[^\s:]{1,100}:)(\S{3,200})$/gm;

/** The file's name is part of the rule (a line of this shape elsewhere is no password), not only its pre-test. */
function redactSaslPasswd(text: string, mark: Marker): string {
  SASL_PASSWD_LINE.lastIndex = 0;
  return text.includes('sasl_passwd') ? text.replace(SASL_PASSWD_LINE, (all, head: string, v: string) => (notALiteral(v) ? all : head + mark('password', v))) : text;
}

function redactNoEchoDefaults(text: string, mark: Marker): string {
  const lines = text.split('\n');
  const starts: number[] = [];
  for (let i = 0, at = 0; i < lines.length; at += lines[i].length + 1, i++) starts.push(at);
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const indentOf = (line: string) => /^[ \t]*/.exec(line)![0].length;
  const spans: Array<[number, number]> = [];
  NO_ECHO.lastIndex = 0;
  for (let m = NO_ECHO.exec(text); m !== null; m = NO_ECHO.exec(text)) {
    const at = lineOf(m.index);
    const indent = m[1].length;
    // the parameter's other lines: up to ten either side at this indent or deeper, under a `Name:` line less indented
    let first = at;
    while (first > 0 && at - first < 10 && lines[first - 1].trim() !== '' && indentOf(lines[first - 1]) >= indent) first--;
    const name = lines[first - 1];
    if (name === undefined || !/^[ \t]+[A-Za-z]\w*:[ \t]*\r?$/.test(name) || indentOf(name) >= indent) continue;
    for (let i = first; i < lines.length && i <= at + 10; i++) {
      if (i > at && (lines[i].trim() === '' || indentOf(lines[i]) < indent)) break;
      const d = indentOf(lines[i]) === indent ? NO_ECHO_SIBLING_DEFAULT.exec(lines[i]) : null;
      if (d && !notALiteral(d[3]) && !d[3].includes(MARKER_PREFIX)) spans.push([starts[i] + d[1].length, starts[i] + d[1].length + d[3].length]);
    }
  }
  return spans.length ? replaceAt(text, spans, 'secret', mark) : text;
}

/**
 * A table of names and values, as CLIs print settings (`pulumi config --show-secrets`: `KEY   VALUE`; CloudFormation's
 * boxed `| ParameterKey | ParameterValue |`): each row whose name is a secret's has its value judged as an assignment's.
 */
const KV_TABLE_HEADER = /^[ \t|]*(?:KEY|Key|NAME|Name|ParameterKey|OutputKey)[ \t]*(\||[ \t]{2,})[ \t]*(?:VALUE|Value|ParameterValue|OutputValue)\b[^\n]*$/gm;

function redactKeyValueTables(text: string, mark: Marker): string {
  const spans: Array<[number, number]> = [];
  KV_TABLE_HEADER.lastIndex = 0;
  for (let m = KV_TABLE_HEADER.exec(text); m !== null; m = KV_TABLE_HEADER.exec(text)) {
    const boxed = m[1] === '|';
    let at = m.index + m[0].length + 1;
    for (let row = 0; row < 500 && at < text.length; row++) {
      const end = text.indexOf('\n', at) < 0 ? text.length : text.indexOf('\n', at);
      const line = text.slice(at, end).replace(/\r$/, '');
      if (line.trim() === '') break;
      if (!/^[ \t]*[-+|=]+[ \t]*$/.test(line)) {
        const cells = boxed ? line.split('|').slice(1, -1).map((c) => c.trim()) : line.trim().split(/[ \t]{2,}/);
        const [name, value] = cells;
        const strength = name && value ? nameStrength(name) : 'none';
        const how: ValueContext = { spaced: false, quoted: false, quotedName: false, sep: ':', lineMode: true, passwordish: nameWords(name ?? '').some((w) => /pass|pwd/.test(w)), flag: false, netrc: false, name: name ?? '', next: '' };
        if (strength !== 'none' && secretValue(value, strength, how)) {
          const v = line.indexOf(value, line.indexOf(name) + name.length);
          spans.push([at + v, at + v + value.length]);
        }
      }
      at = end + 1;
    }
  }
  return spans.length ? replaceAt(text, spans, 'secret', mark) : text;
}

// ---- rule set 11 (set AJ): logs and debug output

/** ioredis's debug log of the AUTH it sends: `write command[…]: 0 -> auth([ '<pw>' ])`, or `auth([ 'user', '<pw>' ])`. */
const IOREDIS_AUTH = /(\bauth\(\[[ \t]*(?:'[^'\n]{1,100}',[ \t]*)?')([^'\n]{3,200})('[ \t]*\]\))/g;

/**
 * SMTP's and IMAP's SASL exchanges in a debug trace: `AUTH PLAIN <base64 of \0user\0password>` (also `AUTHENTICATE
 * PLAIN`, and the base64 on the next line after a bare `AUTH PLAIN`), and AUTH LOGIN's answer to the server's
 * `334 UGFzc3dvcmQ6` (base64 of "Password:").
 */
const SASL_PLAIN = /(\bAUTH(?:ENTICATE)?[ \t]+PLAIN(?:[ \t]+|[ \t]*(?:\\r)?(?:\\n|\r?\n)(?:[^\n]{0,40}(?:\\r)?(?:\\n|\r?\n))?[^\n]{0,40}?[ '"]))([A-Za-z0-9+/]{8,}={0,2})/g;
const SASL_LOGIN_PASSWORD = /(\b334[ \t]+UGFzc3dvcmQ6[^\n]*\n[^\n]{0,40}?[ '"]?)([A-Za-z0-9+/]{4,}={0,2})(?=[\\'"\s]|$)/g;

/**
 * A bind's password right after its distinguished name, as an LDAP client's call or trace gives them:
 * python-ldap's `simple_bind(('cn=svc,ou=…,dc=…', '<pw>', None, None), {})`, `ldap_bind($c, "uid=…,dc=…", "<pw>")`.
 */
const DN_THEN_PASSWORD = /((["'])(?:cn|uid|CN|UID)=[^"'\n]{1,200}?,(?:[^"'\n]{0,200},)?(?:dc|DC|o|O)=[^"'\n]{1,100}\2[ \t]*,[ \t]*)(["'])([^"'\n]{3,200})\3/g;

function redactDnPasswords(text: string, mark: Marker): string {
  DN_THEN_PASSWORD.lastIndex = 0;
  return text.replace(DN_THEN_PASSWORD, (all, head: string, _q: string, q: string, v: string) => (notALiteral(v) ? all : head + q + mark('password', v) + q));
}

/**
 * A Cookie header's values that look generated (a session's, a proxy's, a framework's signed cookie), in any form a log
 * or a dump writes it: `Cookie: a=…; b=…`, `'cookie', 'a=…'` (Envoy), `"cookie": "a=…"`, `Set-Cookie: a=…`. Named session
 * cookies are the assignment scanner's; this takes the others (`_oauth2_proxy=<generated>|<ts>|<sig>`).
 */
const COOKIE_HEADER = /((?:^|[^\w-])(?:[Ss]et-)?(?:[Cc]ookie|COOKIE)["']?(?:[ \t]*[:=][ \t]*|[ \t]*,[ \t]*)["']?)([^\n"']{8,4000})/g;

function redactCookieValues(text: string, mark: Marker): string {
  COOKIE_HEADER.lastIndex = 0;
  return text.replace(COOKIE_HEADER, (all, head: string, cookies: string) => {
    const out = cookies.replace(/(^|;[ \t]*)([^=;\s]{1,100}=)([^;\s]{24,4000})/g, (pair, sep: string, name: string, v: string) =>
      looksRandom(v.replace(/[|.]/g, ''), 24) && !v.includes(MARKER_PREFIX) ? sep + name + mark('secret', v) : pair,
    );
    return out === cookies ? all : head + out;
  });
}

/**
 * A query's bound parameters, logged after it (Prisma's `Params: [...]`, TypeORM's `-- PARAMETERS: [...]`, Knex's
 * `bindings: [...]`): a parameter bound to a column named for a secret (`"passwordResetToken" = $1`, `INSERT … (email,
 * api_key) VALUES (?, ?)`) is that secret.
 */
const BOUND_PARAMS = /(?:\bParams|\bPARAMETERS|\bbindings|\bparams):?[ \t]*\[/g;

function redactBoundParameters(text: string, mark: Marker): string {
  const spans: Array<[number, number]> = [];
  let previous = 0;
  BOUND_PARAMS.lastIndex = 0;
  for (let m = BOUND_PARAMS.exec(text); m !== null; m = BOUND_PARAMS.exec(text)) {
    // the statement: this line before the array and up to three lines above it, not past the previous array
    let from = text.lastIndexOf('\n', m.index - 1) + 1;
    for (let n = 0; n < 3 && from > previous; n++) from = text.lastIndexOf('\n', from - 2) + 1;
    const sql = text.slice(Math.max(from, previous), m.index);
    previous = m.index + m[0].length;
    const columns = boundColumns(sql);
    if (columns.size === 0) continue;
    // the array's elements: strings, numbers and words, in order
    const element = /[ \t]*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|[^,\]\n]*)[ \t]*(,|\])/y;
    element.lastIndex = m.index + m[0].length;
    for (let i = 1; i <= 200; i++) {
      const at = element.lastIndex;
      const e = element.exec(text);
      if (e === null) break;
      const v = e[1] ?? e[2];
      const col = columns.get(i);
      if (v !== undefined && col !== undefined && !notALiteral(v) && !/\s/.test(v)) {
        const strength = nameStrength(col);
        if (strength === 'strong' ? v.length >= 6 && (secretLike(v) || looksRandom(v) || /^[0-9a-f]{16,}$/.test(v)) : strength === 'weak' && looksRandom(v)) {
          const start = text.indexOf(v, at);
          spans.push([start, start + v.length]);
        }
      }
      if (e[3] === ']') break;
    }
  }
  return spans.length ? replaceAt(text, spans, 'secret', mark) : text;
}

/** Which placeholder each column of a statement is bound to: `"col" = $2`, `col = ?`, `(a, b) VALUES ($1, $2)`. */
function boundColumns(sql: string): Map<number, string> {
  const out = new Map<number, string>();
  let question = 0;
  const placeholder = /"?([A-Za-z_][\w]*)"?[ \t]*=[ \t]*(\$(\d+)|\?)|\?/g;
  for (let m = placeholder.exec(sql); m !== null; m = placeholder.exec(sql)) {
    if (m[1] === undefined) {
      question++;
      continue;
    }
    if (m[3] !== undefined) out.set(Number(m[3]), m[1]);
    else out.set(++question, m[1]);
  }
  const insert = /\(([^()]{1,2000})\)[ \t]*VALUES[ \t]*\(([^()]{1,2000})\)/i.exec(sql);
  if (insert) {
    const cols = insert[1].split(',').map((c) => c.trim().replace(/^["'`[]|["'`\]]$/g, ''));
    insert[2].split(',').forEach((p, i) => {
      const d = /^\$(\d+)$/.exec(p.trim());
      if (cols[i] && (d || p.trim() === '?')) out.set(d ? Number(d[1]) : i + 1, cols[i]);
    });
  }
  return out;
}

// ---- rule set 12 (set AN): network devices, home automation, embedded and IoT configuration

/**
 * A device's secret after its storage type, as IOS, NX-OS, ASA, Arista EOS and AOS-CX write them: `password 7 <type 7>`,
 * `key 7 "<nx-os type 7>"`, `password 0 <plain>`, `key 6 <AES>`, `password ciphertext <base64>`, `pre-shared-key
 * ascii-text "<psk>"`. (Types 5, 8 and 9 are crypt hashes: CRYPT_HASH.)
 */
const DEVICE_TYPED_SECRET = /\b((?:password|secret|key|key-string|authentication-key|pre-shared-key|md5) ([067]|plaintext|ciphertext|encrypted|ascii-text|hexadecimal) (["']?))([^\s"';]{4,})(?=["']?(?:[\s;]|$))/g;
/** A placeholder where a device's value goes (`<psk>`, `{{ community }}`, `[key]`): documentation, not a value. */
const devicePlaceholder = (v: string) => notALiteral(v) || /^[<{[(`]/.test(v);

/** Every text DEVICE_TYPED_SECRET matches holds one of these: the keyword's last letter, a space, the type, a space. */
const DEVICE_TYPED_NEEDS = ['d', 't', 'y', 'g', '5'].flatMap((end) => ['0', '6', '7', 'plaintext', 'ciphertext', 'encrypted', 'ascii-text', 'hexadecimal'].map((type) => `${end} ${type} `));

function redactDeviceTypedSecrets(text: string, mark: Marker): string {
  DEVICE_TYPED_SECRET.lastIndex = 0;
  return text.replace(DEVICE_TYPED_SECRET, (all, head: string, type: string, q: string, v: string) => {
    if (devicePlaceholder(v)) return all;
    const ok =
      type === '7'
        ? /^\d{2}(?:[0-9A-Fa-f]{2}){2,}$/.test(v) || q !== '' || looksRandom(v, 8) // IOS's hex, NX-OS's quoted letters, EOS's base64
        : type === '0' || type === 'plaintext' || type === 'ascii-text'
          ? typedPassword(v) && !/[<>*|]/.test(v)
          : looksRandom(v, 8) || /^[0-9A-Fa-f]{16,}$/.test(v);
    return ok ? head + mark('secret', v) : all;
  });
}
/** A key chain's `key-string <key>` (IOS), on its own line. */
const KEY_STRING = /^([ \t]*key-string[ \t]+)(\S{4,})(?=[ \t]*\r?$)/gm;
/** IOS's SNMP community: `snmp-server community <c> RO`, `snmp-server host <ip> [version 2c] <c>`; Junos's `community <c> {` with its `authorization`/`clients`, and `set snmp community <c>`. */
const SNMP_COMMUNITY = /^([ \t]*snmp-server[ \t]+community[ \t]+)(\S+)|^([ \t]*snmp-server[ \t]+host[ \t]+\S+(?:[ \t]+vrf[ \t]+\S+)?(?:[ \t]+(?:informs|traps))?(?:[ \t]+version[ \t]+(?:1|2c|3[ \t]+(?:auth|noauth|priv)))?[ \t]+)([^\s]+)|^([ \t]*community[ \t]+)("?)([^\s";{]+)\6(?=[ \t]*\{[ \t]*\r?\n[ \t]*(?:authorization|clients|view)\b)|(\bset[ \t]+snmp[ \t]+community[ \t]+)("?)([^\s"]+)\9/gm;
/** An IKE pre-shared key in an IOS keyring: `pre-shared-key address <peer> key <psk>` (`crypto isakmp key …`: DAEMON_SECRETS). */
const KEYRING_PSK = /(\bpre-shared-key[ \t]+(?:address|hostname)[ \t]+\S+(?:[ \t]+\S+)?[ \t]+key[ \t]+(?:[06][ \t]+)?)(\S+)/g;
/** Junos's reversible `$9$` encoding (no `$` after it: that is a crypt hash): anyone can decode it. */
const JUNOS_9 = /(?<![\w$])\$9\$[A-Za-z0-9./-]{6,}(?![\w$])/g;
/**
 * A `set <name> <value>` command line (FortiOS, VyOS and EdgeOS, Zephyr's `settings set <path> <value>`), after a
 * prompt or none, the value last on the line, its name (the path's last part) a secret's; FortiOS's `ENC ` prefix is
 * skipped.
 */
const SET_COMMAND = /^((?:[^\n]{0,60}?[#>$][ \t]+)?[ \t]*(?:settings[ \t]+)?set[ \t]+(?:[\w.-]+[ \t]+){0,6}?)([\w./-]+)([ \t]+(?:ENC[ \t]+)?)(["']?)([^\s"']{4,})\4(?=[ \t]*;?[ \t]*\r?$)/gm;

function redactKeyringPsks(text: string, mark: Marker): string {
  KEYRING_PSK.lastIndex = 0;
  return text.replace(KEYRING_PSK, (all, head: string, v: string) => (devicePlaceholder(v) || v.length < 4 ? all : head + mark('secret', v)));
}

function redactSnmpCommunity(text: string, mark: Marker): string {
  SNMP_COMMUNITY.lastIndex = 0;
  return text.replace(SNMP_COMMUNITY, (all, a1?: string, v1?: string, a2?: string, v2?: string, a3?: string, q3?: string, v3?: string, a4?: string, q4?: string, v4?: string) => {
    const [head, q, v] = a1 !== undefined ? [a1, '', v1!] : a2 !== undefined ? [a2, '', v2!] : a3 !== undefined ? [a3, q3!, v3!] : [a4!, q4!, v4!];
    // the defaults everyone knows, and the next keyword where no community was written
    if (/^(?:public|private|version|informs|traps|vrf)$/i.test(v) || devicePlaceholder(v) || v.length < 4) return all;
    return head + q + mark('secret', v) + q + all.slice(head.length + 2 * q.length + v.length);
  });
}

function redactSetCommands(text: string, mark: Marker): string {
  SET_COMMAND.lastIndex = 0;
  return text.replace(SET_COMMAND, (all, head: string, path: string, gap: string, q: string, v: string) => {
    const name = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('.')) + 1);
    const strength = nameStrength(name);
    if (strength === 'none' || devicePlaceholder(v)) return all;
    const encrypted = /ENC/.test(gap);
    if (!(encrypted ? v.length >= 8 : strength === 'strong' ? typedPassword(v) || looksRandom(v, 8) : looksRandom(v, 12))) return all;
    return head + path + gap + q + mark('secret', v) + q;
  });
}

/** A secret's field whose value is an inline table or object holding it: TOML's `symmetric_key = { value = "…" }`, JSON's `"key": {"value": "…"}`. */
const WRAPPED_VALUE = /(?<![\w.-])([\w.-]{1,100})(["']?[ \t]*[=:][ \t]*\{ ?["']?value["']?[ \t]*[=:][ \t]*)(["'])([^"'\n]{8,})\3/g;
function redactWrappedValues(text: string, mark: Marker): string {
  WRAPPED_VALUE.lastIndex = 0;
  return text.replace(WRAPPED_VALUE, (all, name: string, mid: string, q: string, v: string) => {
    const strength = nameStrength(name);
    if (strength === 'none' || notALiteral(v) || !(looksRandom(v, 12) || (strength === 'strong' && typedPassword(v) && !/\s/.test(v)))) return all;
    return name + mid + q + mark('secret', v) + q;
  });
}

/** A setter handed a literal: `client.set_password("…")`, `setApiKey('…')`, `with_token("…")`. */
const SECRET_SETTER = /\b((?:set|with)_?(?:[Pp]assword|[Pp]asswd|[Pp]assphrase|[Ss]ecret|[Pp]sk|[Aa]pi_?[Kk]ey|[Aa]uth_?[Tt]oken|[Tt]oken)\([ \t]*["'])([^"'\n]{4,})(?=["'][ \t]*\))/g;
/**
 * A host, a user and a password as a call's first three literals (NAPALM's `driver("10.0.0.1", "admin", "…")`,
 * ftplib's `FTP("ftp.example.com", "user", "…")`, `pymysql.connect("localhost", "app", "…")`).
 */
const HOST_USER_PASSWORD = /(\([ \t]*(["'])(?:(?:\d{1,3}\.){3}\d{1,3}|localhost|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})\2[ \t]*,[ \t]*(["'])([\w.@\\-]{1,64})\3[ \t]*,[ \t]*)(["'])([^"'\s\\]{4,128})\5/g;
function redactHostUserPassword(text: string, mark: Marker): string {
  HOST_USER_PASSWORD.lastIndex = 0;
  return text.replace(HOST_USER_PASSWORD, (all, head: string, _q1: string, _q2: string, user: string, q: string, v: string) =>
    v === user || notALiteral(v) || UUID.test(v) || !(typedPassword(v) || looksRandom(v, 12)) ? all : head + q + mark('secret', v) + q);
}

/** A base64 text that holds a PEM private key or an OpenVPN static key after a header of its own (pfSense's `<tls>`): the `-----BEGIN` inside at any alignment. */
const B64_WITH_PEM = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{8,}(?:LS0tLS1CRUdJTi|0tLS0tQkVHSU4g|tLS0tLUJFR0lO)[A-Za-z0-9+/]{40,}={0,2}/g;
function redactBase64Pem(text: string, mark: Marker): string {
  B64_WITH_PEM.lastIndex = 0;
  return text.replace(B64_WITH_PEM, (all) => (decodes(all.slice(0, all.length - (all.length % 4)), /-----BEGIN [A-Z ]{0,40}(?:PRIVATE KEY|OpenVPN Static key)/) ? mark('private_key', all) : all));
}

// ---- rule set 12 (set AP): vendors' SDK clients

/**
 * A client built with a generated literal as its first argument (`messagebird.New("…")`, `analytics.NewWithConfig("…",
 * …)`, `Logtail::LogDevices::HTTP.new(\n "…")`, `new RequestValidator("…")`): an SDK's key. Hex alone (ids and digests
 * look the same) only when the callee says it takes a key (a validator, an auth, a client of an API).
 */
const SDK_CONSTRUCTOR = /((?:\bnew[ \t]+([A-Z][\w.]*)|\b([A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_]\w*)*(?:\.|::)(?:New\w*|new|create\w*Client|connect|Connect)))\(\s*(["']))([A-Za-z0-9_-]{20,128})(?=["'])/g;
function redactSdkConstructors(text: string, mark: Marker): string {
  SDK_CONSTRUCTOR.lastIndex = 0;
  return text.replace(SDK_CONSTRUCTOR, (all, head: string, cls: string | undefined, callee: string | undefined, _q: string, v: string) => {
    if (UUID.test(v) || notALiteral(v) || !looksRandom(v, 20)) return all;
    if (/^[0-9a-fA-F]+$/.test(v) && !/(?:Validator|Auth|Token|Secret|Key|Client|Api|API|Sdk|SDK)/.test(cls ?? callee ?? '')) return all;
    return head + mark('secret', v);
  });
}

export const BUILTIN_RULES: readonly RedactionRule[] = [
  { type: 'private_key', pattern: PEM, trigger: /-(?=-{3,4} ?BEGIN [A-Z0-9 _-]{0,40}(?:PRIVATE KEY|NKEY SEED))/, needs: ['PRIVATE KEY', 'NKEY SEED'] },
  // Behind the words that name them (one rule, so one set of string searches): a trigger on a WIF key's shape alone,
  // starting at every K and L, cost a third of the one scan.
  { type: 'private_key', apply: redactWalletSecrets, trigger: /(?:[Mm]nemonic|MNEMONIC|[Pp]hrase|PHRASE)[\w-]*["']?[ \t]*[:=][ \t]*["'][a-z]+ [a-z]+|(?:privkey|WIF)[^\n]{0,200}[KL][1-9A-HJ-NP-Za-km-z]{51}/, needs: ['nemonic', 'NEMONIC', 'hrase', 'HRASE', 'privkey', 'WIF'] },
  { type: 'private_key', apply: redactPutty, trigger: /-(?<=Private-)(?:Lines|MAC|Hash)/, needs: ['Private-'] },
  { type: 'private_key', pattern: OPENVPN_STATIC_KEY, trigger: /-(?=----BEGIN OpenVPN Static key)/, needs: ['OpenVPN Static key'] },
  { type: 'private_key', apply: redactBase64Pem, trigger: /0tLS0tQkVHSU4g|tLS0tLUJFR0lO|[A-Za-z0-9+/]LS0tLS1CRUdJTi/, needs: ['0tLS0tQkVHSU4g', 'tLS0tLUJFR0lO', 'LS0tLS1CRUdJTi'] },
  { type: 'secret', apply: redactSdkConstructors, trigger: /(?:new[ \t]+[A-Z][\w.]*|(?:\.|::)(?:New\w*|new|create\w*Client|connect|Connect))\(\s*["'][A-Za-z0-9_-]{20}/, needs: ['new ', 'new\t', '.New', '.new', '::New', '::new', 'Client(', 'onnect('] },
  // rule set 12 (set AN): network devices and embedded configuration
  { type: 'secret', apply: redactDeviceTypedSecrets, trigger: /(?:password|secret|key|key-string|authentication-key|pre-shared-key|md5) (?:[067]|plaintext|ciphertext|encrypted|ascii-text|hexadecimal) /, needs: DEVICE_TYPED_NEEDS },
  { type: 'secret', pattern: KEY_STRING, secretGroup: 2, keep: devicePlaceholder, trigger: /key-string[ \t]+\S/, needs: ['key-string'] },
  { type: 'secret', apply: redactSnmpCommunity, trigger: /snmp-server[ \t]+(?:community|host)[ \t]|community[ \t]+\S+[ \t]*\{|set[ \t]+snmp[ \t]+community/, needs: ['snmp-server', 'community'] },
  { type: 'secret', apply: redactKeyringPsks, trigger: /pre-shared-key[ \t]+(?:address|hostname)/, needs: ['pre-shared-key'] },
  { type: 'secret', pattern: JUNOS_9, keep: (v) => v.length < 10, trigger: /\$9\$[A-Za-z0-9./-]{6}/, needs: ['$9$'] },
  { type: 'secret', apply: redactSetCommands, trigger: /(?:^|[#>$] )[ \t]*(?:settings[ \t]+)?set[ \t]+[\w./-]/m, needs: ['set '] },
  { type: 'secret', apply: redactWrappedValues, trigger: /\{ ?["']?value["']?[ \t]*[=:]/, needs: ['{value', '{ value', '{"value', "{'value", '{ "value', "{ 'value"] },
  { type: 'secret', pattern: SECRET_SETTER, secretGroup: 2, keep: (v) => notALiteral(v) || /\s/.test(v) || !(typedPassword(v) || looksRandom(v, 12)), trigger: /(?:set|with)_?(?:[Pp]ass(?:word|wd|phrase)|[Ss]ecret|[Pp]sk|[Aa]pi_?[Kk]ey|[Aa]uth_?[Tt]oken|[Tt]oken)\(/, needs: ['assword(', 'asswd(', 'assphrase(', 'ecret(', 'sk(', 'Key(', 'key(', 'oken('] },
  { type: 'secret', apply: redactHostUserPassword, trigger: /\([ \t]*["'][\w.-]+["'][ \t]*,[ \t]*["'][\w.@\\-]{1,64}["'][ \t]*,/, needs: ['("', "('"] },
  {
    type: 'private_key',
    apply: (text, mark) => {
      JWK_PRIVATE.lastIndex = 0;
      return text.replace(JWK_PRIVATE, (_all, a: string, v: string, b: string) => a + mark('private_key', v) + b);
    },
    trigger: /kty/i,
    atWord: /kty/iy,
  },
  { type: 'k8s_secret', apply: redactKubernetesSecrets, trigger: /kind"?[ \t]*:[ \t]*"?secret/i, atWord: /secret(?<=kind"?[ \t]*:[ \t]*"?secret)/iy },
  { type: 'token', apply: (text, mark) => redactTokens(text, mark), trigger: new RegExp(TOKEN_ANCHORS.join('|')) },
  { type: 'token', apply: (text, mark) => redactTokens(text, mark, RARE_TOKEN_ANCHOR), trigger: new RegExp(RARE_TOKEN_ANCHOR_SOURCE), needs: RARE_TOKEN_NEEDS },
  {
    type: 'aws_secret_key',
    pattern: /(aws_?secret(?:_?access)?_?key["']?[ \t]*[:=][ \t]*["']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    secretGroup: 2,
    trigger: /aws_?secret/i,
    atWord: /secret(?<=aws_?secret)/iy,
  },
  // (also a scheme without its colon in a parser's error: `'postgresql+psycopg2//user:password@host'`)
  { type: 'url_password', apply: redactUrls, trigger: /\/\/(?=[^\s/]*@)/, needs: ['//'] },
  { type: 'secret', apply: redactNamedObjects, trigger: /\{[^{}]{0,400}?"value"[ \t]*:/, needs: ['"value"'] },
  {
    type: 'password',
    apply: redactProse,
    // (the languages developers most often write to an agent in; each literal costs the pre-test's scan a little)
    trigger: new RegExp(String.raw`ssword\x60?[ \t]+(?:is|was|for|of|on|to|at|in)\b|SSWORD\x60?[ \t]+(?:is|was|for)\b|ss(?:phrase|code|wd)[ \t]+(?:is|was|for)\b|e[ \t]passe|\bpw[ \t]|(?:key|token|secret)[ \t]+(?:is|was)\b|` + PROSE_WORD_LITERALS.map(escapeRegExp).join('|')),
    needs: ['ssword ', 'SSWORD ', 'ssword\x60', 'SSWORD\x60', 'ssphrase ', 'sscode ', 'sswd ', 'e passe', 'pw', 'key is', 'key was', 'token is', 'token was', 'secret is', 'secret was', ...PROSE_WORD_LITERALS],
  },
  { type: 'password', apply: redactAccountSlash, trigger: /(?:admin|root|user|test|demo|guest|deploy|postgres|ubuntu)[ \t]+\/[ \t]+\S/, needs: ['admin /', 'root /', 'user /', 'test /', 'demo /', 'guest /', 'deploy /', 'postgres /', 'ubuntu /', 'Admin /', 'Root /'] },
  { type: 'password', pattern: REDIS_MONITOR_AUTH, secretGroup: 2, trigger: /"(?:AUTH|auth)"[ \t]+"/, needs: ['"AUTH"', '"auth"'] },
  { type: 'secret', apply: redactKeyValueTables, trigger: /(?:KEY|Key|NAME|Name)[ \t]*(?:\||[ \t]{2,})[ \t]*(?:VALUE|Value|ParameterValue|OutputValue)\b/, needs: ['VALUE', 'Value'] },
  { type: 'secret', pattern: PULUMI_PLAINTEXT, secretGroup: 2, trigger: /4dabf18193072939515e22adb298388d/, needs: ['4dabf18193072939515e22adb298388d'] },
  { type: 'secret', pattern: TF_RANDOM_RESULT, secretGroup: 2, trigger: /random_password/, needs: ['random_password'] },
  { type: 'secret', apply: redactNoEchoDefaults, trigger: /NoEcho/, needs: ['NoEcho'] },
  { type: 'password', apply: redactSaslPasswd, trigger: /sasl_passwd/, needs: ['sasl_passwd'] },
  { type: 'password', pattern: IOREDIS_AUTH, secretGroup: 2, keep: (v) => notALiteral(v), trigger: /auth\(\[/, needs: ['auth(['] },
  // (PLAIN's base64 holds NULs between its fields: `\0user\0password`)
  { type: 'password', pattern: SASL_PLAIN, secretGroup: 2, keep: (v) => !Buffer.from(v, 'base64').toString('latin1').includes('\u0000'), trigger: /AUTH(?:ENTICATE)?[ \t]+PLAIN/, needs: ['PLAIN'] },
  { type: 'password', pattern: SASL_LOGIN_PASSWORD, secretGroup: 2, trigger: /334[ \t]+UGFzc3dvcmQ6/, needs: ['UGFzc3dvcmQ6'] },
  { type: 'password', apply: redactDnPasswords, trigger: /(?:cn|uid|CN|UID)=[^"'\n]{1,200}?,[^\n]{0,300}?(?:dc|DC|o|O)=[^"'\n]{1,100}["'][ \t]*,[ \t]*["']/, needs: ['cn=', 'uid=', 'CN=', 'UID='] },
  { type: 'secret', apply: redactCookieValues, trigger: /(?:[Cc]ookie|COOKIE)["']?[ \t]*[:=,]/, needs: ['ookie', 'COOKIE'] },
  { type: 'secret', apply: redactBoundParameters, trigger: /(?:Params|PARAMETERS|bindings|params):?[ \t]*\[/, needs: ['Params', 'PARAMETERS', 'bindings', 'params'] },
  { type: 'password', apply: redactDaemonSecrets, trigger: /stats auth|isakmp key|pre-shared-key|\{(?:PLAIN|CLEARTEXT|CLEAR)\}|SETUSER|\+@/, needs: ['stats auth', 'isakmp key', 'pre-shared-key', '{PLAIN}', '{CLEARTEXT}', '{CLEAR}', 'SETUSER', '+@'] },
  { type: 'password', apply: redactSnmpUsers, trigger: /createUser[ \t]/, needs: ['createUser'] },
  { type: 'token', pattern: CONDA_CHANNEL_TOKEN, secretGroup: 2, keep: (v) => !looksRandom(v, 16), trigger: /anaconda\.(?:org|com|cloud)\/t\//, needs: ['anaconda.'] },
  { type: 'token', apply: redactDenoAuthTokens, trigger: /DENO_AUTH_TOKENS/, needs: ['DENO_AUTH_TOKENS'] },
  { type: 'aws_secret_key', apply: redactBareAwsSecretKeys, trigger: new RegExp(AWS_SECRET_KEY_NAMED.source), needs: ['SecretAccessKey', 'secret_access_key', 'SECRET_ACCESS_KEY'] },
  { type: 'bearer_token', apply: redactAuthorization, trigger: /authorization|bearer/i, atWord: /authorization|bearer/iy },
  { type: 'password', apply: redactCommands, trigger: COMMAND_TRIGGER },
  { type: 'password', apply: (text, mark) => redactCommandFlags(text, mark, LITERAL_COMMANDS), trigger: /signtool|SIGNTOOL|SignTool|pvk2pfx|\+login[ \t]/, needs: ['signtool', 'SIGNTOOL', 'SignTool', 'pvk2pfx', '+login'] },
  { type: 'password', apply: redactPgpass, trigger: /:(?<=(?:^|\n|\\n|")[\w.*-]+:)(?=(?:\d{2,5}|\*):[\w.*-]+:[\w.*-]+:[^\s:]{3})/ },
  {
    // An expect script answering a password prompt: `expect "password:"` then `send "…\r"`.
    type: 'password',
    pattern: EXPECT_SEND_PASSWORD,
    secretGroup: 2,
    keep: (v) => notALiteral(v) || /^\$/.test(v), // `$env(PASS)`, `$password`: a variable
    trigger: /\bexpect[ \t][^\n]{0,80}(?:assword|[Pp]ass)/,
    needs: ['expect'],
  },
  {
    type: 'secret',
    apply: redactAuthSubcommands,
    trigger: / (?:auth|login|authtoken|auth-token|authorize|authorize-account)[ \t]/,
    // a literal, not the one scan: a trigger starting with a blank would stop that scan at every blank
    needs: [' auth', ' login'],
  },
  {
    type: 'secret',
    apply: redactSetters,
    trigger: /(?:secrets?|user-secrets|env|envs|variables?|vars?)(?: +|:)(?:set|add|put|create|update|store) /,
    needs: ['secret', 'env', 'var'],
  },
  {
    type: 'secret',
    apply: redactCallLiterals,
    // a literal of 16 or more with letters and digits after `(` or `, ` (what CALL_LITERAL takes); the callee is judged after
    trigger: /(?:\(|, )b?["'](?=[^"'`\s\\]{0,200}\d)(?=[^"'`\s\\]{0,200}[A-Za-z])[^"'`\s\\]{16}/,
    needs: ['("', "('", ', "', ", '", '(b', ', b'],
  },
  {
    type: 'secret',
    apply: redactUrlPaths,
    trigger: /https?:\/\/[^\s"'<>`?#]{1,600}\/(?:key|keys|token|tokens|secret|apikey|api_key|api-key|access_token|accesstoken|hooks?|webhooks?|build_hooks|deploy_hooks|build-hooks|deploy-hooks|deploy)\//,
    needs: ['://'],
  },
  {
    type: 'secret',
    apply: redactPrintedCredentials,
    trigger: new RegExp(String.raw`(?:${PRINTED_BY})[^\n]{0,400}\r?\n[ \t]*[A-Za-z0-9._~+/=-]{16}`),
    needs: ['-password', 'token'],
  },
  { type: 'private_key', pattern: KEY_STORE_B64, secretGroup: 2, trigger: /MII[A-Za-z0-9+/]{60}/, needs: ['MII'] },
  { type: 'password', pattern: IPSEC_SECRET, secretGroup: 2, keep: (v) => notALiteral(v), trigger: /: (?:PSK|XAUTH|EAP)[ \t]+"/, needs: [': PSK', ': XAUTH', ': EAP'] },
  { type: 'private_key', pattern: KEY_STORE_MAGIC, trigger: /(?:\/u3\+7Q|zs7OzgAAAA)[A-Za-z0-9+/]{90}/, needs: ['/u3+7Q', 'zs7OzgAAAA'] },
  { type: 'secret', apply: redactHostMaps, trigger: /"(?:bearer|github-oauth|gitlab-oauth|bitbucket-oauth)"[ \t]*:[ \t]*\{/, needs: ['"bearer"', '-oauth"'] },
  // a literal, not the one scan (a trigger starting with `$`); the commands are judged after
  { type: 'secret', apply: redactPastedSessions, trigger: /\$ [^\n]{1,2000}\n[ \t]*(?:[^\s$][^\n]{7}|[\w.@\\-]{1,64}\r?\n[ \t]*\S{6})|(?::\\[^\n>]{0,200}>|\]# |~# )[^\n]{1,2000}\n/, needs: ['$ ', ':\\', ']# ', '~# '] },
  { type: 'secret', apply: redactEnvDefaults, trigger: /(?:env|ENV|environ)\b[^\n]{0,140}(?:,|\|\||\?\?|\bor\b|unwrap_or(?:_else)?|\)[ \t]*\{)[ \t(|_]*\\?["'`]|\$\{\w+:?-/, needs: ['env', 'ENV', ':-'] },
  { type: 'password', pattern: SQL_PASSWORD, secretGroup: 2, keep: (v) => notALiteral(v), trigger: /(?:IDENTIFIED|[Ii]dentified)[ \t]+(?:BY|WITH|[Bb]y|[Ww]ith)|(?:SET|[Ss]et)[ \t]+(?:PASSWORD|[Pp]assword)/, needs: ['DENTIFIED', 'dentified', 'ET PASSWORD', 'ET password', 'ET Password', 'et password', 'et Password', 'et PASSWORD'] },
  {
    type: 'password_hash',
    pattern: CRYPT_HASH,
    trigger: /\$(?:1|5|6|8|9|sha1|apr1|2[abxy]|y|gy|7|argon2(?:id|i|d))\$[^\s$]{1,100}\$[A-Za-z0-9./+=,$-]{8}/,
    // a literal, not the one scan: a trigger starting with `$` would stop that scan at every `$` of shell and templates
    needs: ['$'],
  },
  {
    type: 'secret',
    apply: redactNameValuePairs,
    // a value field with a name field just before it (most `value:` in JSON and code has none)
    trigger: /alue["']?[ \t]*[:=](?<=(?:[Nn]ame|NAME|[Kk]ey|KEY)["']?[ \t]*[:=][ \t]*["']?[A-Za-z_][\w.-]{0,80}["']?[ \t]*,?[ \t]*(?:\r?\n[ \t]*)?["']?(?:[Vv]|[Pp]arameter_?[Vv]|[Oo]utput_?[Vv])alue["']?[ \t]*[:=])/,
    needs: ['alue'],
  },
  // rule set 10 (set Z's known misses)
  { type: 'private_key', apply: redactWireGuardKeys, trigger: new RegExp(String.raw`${WG_KEY}\t${WG_KEY}`), needs: ['=\t'] },
  { type: 'password', apply: redactPgbouncerUsers, trigger: PGBOUNCER_CONTEXT, needs: ['userlist', 'pgbouncer', 'auth_file'] },
  { type: 'password', pattern: NAGIOS_USER_MACRO, secretGroup: 2, keep: (v) => PATH.test(v) || !typedPassword(v), trigger: /\$USER\d{1,3}\$[ \t]*=/, needs: ['$USER'] },
  { type: 'password', pattern: SENTINEL_AUTH, secretGroup: 2, keep: (v) => notALiteral(v), trigger: /sentinel[ \t]+auth-pass[ \t]/, needs: ['auth-pass'] },
  // rule set 7 (set Q)
  { type: 'password', apply: redactUserSubcommands, trigger: /(?:add_user|change_password|set_password|add-user|change-password|set-password|create-user)[ \t]|addauth[ \t]+digest[ \t]/, needs: ['_user', '_password', '-user', '-password', 'addauth'] },
  { type: 'secret', pattern: ENCRYPT_KEY, secretGroup: 2, keep: (v) => !looksRandom(v.replace(/=+$/, ''), 16), trigger: /ncrypt["']?[ \t]*[:= ][ \t]*["']?[A-Za-z0-9+/]{20}/, needs: ['ncrypt'] },
  { type: 'secret', pattern: SECRET_LABEL, secretGroup: 2, keep: (v) => notALiteral(v) || !(UUID.test(v) || looksRandom(v.replace(/=+$/, ''), 16)), trigger: /(?:Secret[ \t]+ID|Key[ \t]+\d{1,2})[ \t]*[:=]/, needs: ['Secret', 'Key'] },
  // rule set 10 (set AA)
  { type: 'password', pattern: /\{(?:xor|aes|hash)\}[A-Za-z0-9+/=]{8,}/g, trigger: /\{(?:xor|aes|hash)\}/, needs: ['{xor}', '{aes}', '{hash}'] },
  { type: 'secret', apply: redactPositionalLogins, trigger: /(?:onnect|reateSession|DirectoryEntry|Credentials?|ogin|ogon|ogonUser|uthenticate|open_session|PDO|mysqli|__construct)\([^\n]{0,300}["'][^"'\n]{8}/, needs: ['onnect(', 'reateSession(', 'DirectoryEntry(', 'Credential(', 'Credentials(', 'ogin(', 'ogon(', 'ogonUser(', 'uthenticate(', 'open_session(', 'PDO(', 'mysqli(', '__construct('] },
  { type: 'password', apply: redactWindowsSwitches, trigger: /[ \t]\/(?:rp|RP|Rp|pass|PASS|Pass|pwd|PWD|pw|PW)|\/(?:user|USER):/, needs: [' /rp', ' /RP', ' /Rp', ' /pass', ' /PASS', ' /Pass', ' /pw', ' /PW', '/user:', '/USER:'] },
  { type: 'password', apply: redactOracleLogins, trigger: /(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl|sqlcl|tkprof|userid)[^\n]{0,200}\/|(?:CONN(?:ECT)?|conn(?:ect)?)[ \t]+[\w$#]{1,128}\//, needs: ['sqlplus', 'sqlldr', 'expdp', 'impdp', 'rman', 'dgmgrl', 'sqlcl', 'tkprof', 'userid', 'CONN', 'conn ', 'connect '] },
  { type: 'password', apply: redactEnterpriseLines, trigger: /mkstore|hdbuserstore|HDBUSERSTORE|REG_|[Vv]alue>|PGM=FTP|CRTUSRPRF|CHGUSRPRF|SVRAUTE/, needs: ['mkstore', 'hdbuserstore', 'HDBUSERSTORE', 'REG_', 'Value>', 'value>', 'PGM=FTP', 'CRTUSRPRF', 'CHGUSRPRF', 'SVRAUTE'] },
  // rule set 10 (set AF)
  { type: 'password', apply: redactClientFiles, trigger: /\[(?:[Pp]asswords?|PASSWORDS?|[Cc]redentials|CREDENTIALS|[Ss]ecrets|SECRETS|data)\]|<Network|znc\.conf/, needs: ['asswords]', 'ASSWORDS]', 'assword]', 'ASSWORD]', 'redentials]', 'REDENTIALS]', 'ecrets]', 'ECRETS]', '[data]', '<Network', 'znc.conf'] },
  { type: 'password', pattern: RDP_PASSWORD, secretGroup: 2, keep: notALiteral, trigger: /51:b:|[Pp]assword:s:/, needs: ['51:b:', 'assword:s:'] },
  { type: 'password', pattern: HEIDI_SETTING, secretGroup: 2, keep: notALiteral, trigger: /<\|\|\|>/, needs: ['<|||>'] },
  { type: 'secret', pattern: TLS_KEY_LOG, secretGroup: 2, trigger: /CLIENT_RANDOM|_SECRET/, needs: ['CLIENT_RANDOM', '_SECRET'] },
  // rule set 10 (set AB)
  {
    type: 'secret',
    apply: redactTableColumns,
    // a header's cell naming a secret, next to a separator
    // (names run up to a separator; a blank inside a name only in a `|` table's cell)
    trigger: /(?:pass|secret|token|pwd|key)(?:[\w.-]{0,40}(?:["']?[,;\t]|[ \t]*\|)|(?<=[,;\t|][ \t]*["']?[\w.-]{0,40}(?:pass|secret|token|pwd|key)))/i,
    atWord: /(?:pass|secret|token|pwd|key)(?:[\w.-]{0,40}(?:["']?[,;\t]|[ \t]*\|)|(?<=[,;\t|][ \t]*["']?[\w.-]{0,40}(?:pass|secret|token|pwd|key)))/iy,
  },
  { type: 'secret', apply: redactSqlRows, trigger: /(?:INSERT|[Ii]nsert)[ \t]+(?:(?:IGNORE|ignore)[ \t]+)?(?:INTO|into)[ \t]/, needs: ['INSERT', 'nsert'] },
  { type: 'password', apply: redactCredentialCalls, trigger: /login[ \t]*\(|auth[ \t]*=?[ \t]*\(|credential|authentication[ \t]*\(/i, atWord: /login[ \t]*\(|auth[ \t]*=?[ \t]*\(|credential|authentication[ \t]*\(/iy },
  { type: 'secret', apply: scanAssignments, trigger: NAME_WORD_TRIGGER, atWord: NAME_WORD_AT_WORD },
];


/**
 * The words every case-insensitive trigger contains (the scanner's, `kty`, `authorization`/
 * `bearer`, `kind: Secret`, `aws_secret`, `.login(`, `auth=(`, `credential`): the pre-test scans
 * for them once and tries those triggers (`atWord`) only where one starts. A plain union of words
 * scans about twice as fast as the structured triggers; most text has none of them.
 */
const CASELESS_WORDS = new RegExp(`pass|${PW}|psk|secret|token|cred|private|dockerc|authoriz|key|sig|auth|sess|login|pat(?![a-z])|bearer|kty`, 'gi');
/** NAME_WORD_SCAN at one place: every place it matches is one where a word of CASELESS_WORDS starts. */
const NAME_WORD_AT = new RegExp(NAME_WORD_SCAN.source, 'iy');

const typeMarker: Marker = (type) => `${MARKER_PREFIX}${type}]`;

/** Identifiers up to this length are remembered with their redacted form, up to ID_MEMO_SIZE of them. */
const ID_MEMO_CHARS = 256;
const ID_MEMO_SIZE = 4096;

function applyWith(text: string, rule: RedactionRule, mark: Marker, nameHits?: readonly number[]): string {
  if (rule.apply) return rule.apply(text, mark, nameHits);
  const pattern = rule.pattern!;
  pattern.lastIndex = 0;
  if (rule.secretGroup === undefined) {
    return text.replace(pattern, (whole: string) => (whole.includes(MARKER_PREFIX) && whole.startsWith(MARKER_PREFIX) ? whole : mark(rule.type, whole)));
  }
  const at = rule.secretGroup - 1;
  return text.replace(pattern, (...m: unknown[]) => {
    const groups = m.slice(1, -2).filter((g) => typeof g === 'string' || g === undefined) as (string | undefined)[];
    const secret = groups[at] ?? '';
    if (secret.includes(MARKER_PREFIX) || rule.keep?.(secret)) return m[0] as string;
    return groups.map((g, i) => (i === at ? mark(rule.type, secret) : g ?? '')).join('');
  });
}

/** A secret this long or longer (and generated-looking) is looked for again in the rest of its text. */
const COPY_MIN = 8;

/**
 * `text` with each whole copy of a generated-looking secret found in it (`found`: secret → its
 * rule's type) replaced by its marker: a key named once (`API_KEY=…`) and then passed bare (`OpenCageGeocode("…")`, a
 * command, its output) is hidden at every place. A copy is whole when no letter, digit or `_` touches
 * it on either side; markers already in the text are left as they are.
 */
function hideCopies(text: string, found: ReadonlyMap<string, string>, mark: Marker): string {
  let out = text;
  for (const [secret, type] of found) {
    // Only a generated-looking value: a word or an identifier a rule took for a secret is not
    // hunted through the rest of the text (code repeats its names everywhere).
    if (secret.length < COPY_MIN || secret.includes(MARKER_PREFIX) || !out.includes(secret) || !looksRandom(secret, COPY_MIN)) continue;
    const marker = mark(type, secret);
    let res = '';
    let from = 0;
    for (let i = out.indexOf(secret); i >= 0; i = out.indexOf(secret, i + 1)) {
      if (i < from || isWordCode(out.charCodeAt(i - 1)) || isWordCode(out.charCodeAt(i + secret.length))) continue;
      res += out.slice(from, i) + marker;
      from = i + secret.length;
      i = from - 1;
    }
    out = res + out.slice(from);
  }
  return out;
}

/** A letter, digit or `_` (NaN, past either end of a text, is none). */
function isWordCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/** One rule's replacements in `text` with `[REDACTED:<type>]` markers, no pre-test: every match is looked at. */
export function applyRule(text: string, rule: RedactionRule): string {
  return applyWith(text, rule, typeMarker);
}

/**
 * Every rule on the whole text in order, no pre-test, then the other copies of what they found
 * hidden: what a Redactor gives, the slow way (tests hold the pre-test to it).
 */
export function applyRules(text: string, rules: readonly RedactionRule[]): string {
  const found = new Map<string, string>();
  const marking: Marker = (type, secret) => {
    if (!found.has(secret)) found.set(secret, type);
    return typeMarker(type, secret);
  };
  const out = rules.reduce((t, rule) => applyWith(t, rule, marking), text);
  return found.size ? hideCopies(out, found, typeMarker) : out;
}

// ---------------------------------------------------------------------------------------------
// The identifier markers' key

const KEY_BYTES = 32;

function readKeyFile(path: string): Buffer {
  const text = readFileSync(path, 'utf8').trim();
  if (!/^[0-9a-f]{32,}$/i.test(text)) {
    throw new InvalidInputError(`the redaction key file ${path} is damaged (expected hex digits); remove it to start a new key (markers written so far will then not match new ones)`);
  }
  return Buffer.from(text, 'hex');
}

/** Reads the key file, or creates it (0600) atomically: a concurrent creator's key wins and is read. */
function loadOrCreateKey(path: string): Buffer {
  try {
    return readKeyFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const key = randomBytes(KEY_BYTES);
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, key.toString('hex') + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path); // fails when another writer created it first
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
      unlinkSync(tmp);
      throw new InvalidInputError(`cannot create the redaction key file ${path}: ${errorMessage(e)}`);
    }
  }
  unlinkSync(tmp);
  return readKeyFile(path);
}

// ---------------------------------------------------------------------------------------------

/** Literals this short are looked for one by one in the pre-test (frequent; in the alternation they slow its scan). */
const SHORT_LITERAL = 2;
/** Literals searched one by one: short ASCII ones (two CJK characters, `密码`, are rare and go in the alternation). */
const NON_ASCII = /[^\t\n\r\x20-\x7e]/; // (printable ASCII and blanks: `=\t` is a short ASCII literal)
const searchedAlone = (w: string) => w.length <= SHORT_LITERAL && !NON_ASCII.test(w);

export class Redactor {
  readonly enabled: boolean;
  /** As given, plus the generated key when none was: another thread builds the same redactor from it. */
  readonly options: RedactionOptions;
  private readonly rules: RedactionRule[];
  /**
   * The pre-test, which also says which rules to run (null when a rule has no trigger, i.e. an
   * extra pattern: then every rule runs its own). Three kinds of test, each exact (the same rules
   * run as if every trigger were tested on its own), and one pass over the text each:
   *  - rules with literals (`needs`): a string search for them and, only where one is there, the
   *    trigger on its own (most text holds none of `PRIVATE KEY`, `Private-`, `://`);
   *  - the case-insensitive rules (`atWord`): one scan for CASELESS_WORDS, each trigger tried
   *    only where one of them starts, and the places where the scanner's name words start kept
   *    for it (it then need not scan again);
   *  - the other case-sensitive rules (tokens, command flags, `.pgpass`), anchored on
   *    `_ - . ~ : /` and capitals: one scan with each trigger a capture group. Joining triggers
   *    of other kinds into it is slower (its alternatives could then start with almost any
   *    character, and the engine could no longer skip ahead).
   */
  private readonly dispatch: {
    /** Rules with literals (`literals.rulesOf` says which need each literal). */
    literal: Array<{ rule: number; trigger: RegExp }>;
    /**
     * The literals of all `literal` rules (`words`, numbered by `at`), found in one pass: `scan` alternates those of 3
     * characters or more, longest first; `implied[i]`, for the literal `scan` matched, every literal that is a prefix
     * of it (they start at the same place, where the alternation reports only one). The shorter ones (`$`, `|`, `('`)
     * are `short`, each a string search (it stops at the first, and they are frequent).
     */
    literals: { scan: RegExp; words: string[]; at: Map<string, number>; implied: number[][]; short: number[]; rulesOf: number[][] };
    words: { rules: number[]; at: RegExp[] } | undefined;
    /** Case-insensitive triggers without `atWord`, each tested on its own. */
    alone: Array<{ rule: number; trigger: RegExp }>;
    scan: { scan: RegExp; rules: number[]; at: RegExp[] } | undefined;
  } | null;
  /** Set by needed(): where a name word starts in the text, when the word scan ran over all of it. */
  private nameHits: number[] | undefined;
  private key?: Buffer;
  private readonly keyed: Marker;
  /** redactId's results for short texts (the markers' key never changes once read). */
  private readonly idMemo = new Map<string, string>();
  /** During run(): its marker, and the secrets the rules found in its text (secret → type). */
  private mark: Marker = typeMarker;
  private found: Map<string, string> | undefined;
  /** The marker handed to the rules: `mark`, noting each secret in `found`. */
  private readonly marking: Marker = (type, secret) => {
    const found = (this.found ??= new Map());
    if (!found.has(secret)) found.set(secret, type);
    return this.mark(type, secret);
  };

  constructor(options: RedactionOptions = {}) {
    this.enabled = options.enabled ?? true;
    this.rules = [...BUILTIN_RULES];
    for (const extra of options.extraPatterns ?? []) {
      if (!/^[A-Za-z0-9_.-]+$/.test(extra.type)) throw new InvalidInputError(`redaction pattern type must be a plain word (got "${extra.type}")`);
      let pattern: RegExp;
      try {
        if (typeof extra.pattern === 'string') pattern = new RegExp(extra.pattern, 'g');
        else pattern = extra.pattern.global ? extra.pattern : new RegExp(extra.pattern.source, extra.pattern.flags + 'g');
      } catch (e) {
        throw new InvalidInputError(`redaction pattern for "${extra.type}" is not a valid regular expression: ${errorMessage(e)}`);
      }
      if (pattern.test('')) throw new InvalidInputError(`redaction pattern for "${extra.type}" matches empty text`);
      pattern.lastIndex = 0;
      this.rules.push({ type: extra.type, pattern });
    }
    for (const r of this.rules) if (r.trigger && (r.trigger.global || r.trigger.sticky)) throw new Error(`redaction trigger ${r.trigger} must not have the g or y flag`);
    if (this.rules.every((r) => r.trigger)) {
      const caseless = (r: RedactionRule) => r.trigger!.flags.includes('i');
      const all = this.rules.map((_r, i) => i);
      const copy = (re: RegExp) => new RegExp(re.source, re.flags);
      for (const r of this.rules) {
        if (r.needs?.length && caseless(r)) throw new Error(`redaction trigger ${r.trigger}: literals are for case-sensitive triggers`);
        if (r.atWord && (!caseless(r) || !r.atWord.sticky)) throw new Error(`redaction trigger ${r.trigger}: atWord is for case-insensitive triggers, sticky`);
      }
      const literal = all.filter((i) => this.rules[i].needs?.length);
      const words = all.filter((i) => this.rules[i].atWord);
      const alone = all.filter((i) => caseless(this.rules[i]) && !this.rules[i].atWord);
      const scanned = all.filter((i) => !caseless(this.rules[i]) && !this.rules[i].needs?.length);
      const distinct = [...new Set(literal.flatMap((i) => this.rules[i].needs!))].sort((a, b) => b.length - a.length);
      const literalIndex = new Map(distinct.map((w, i) => [w, i]));
      this.dispatch = {
        literal: literal.map((i) => ({ rule: i, trigger: copy(this.rules[i].trigger!) })),
        literals: {
          scan: new RegExp(distinct.filter((w) => !searchedAlone(w)).map(escapeRegExp).join('|'), 'g'),
          words: distinct,
          at: literalIndex,
          implied: distinct.map((w) => distinct.flatMap((v, k) => (w.startsWith(v) && !searchedAlone(v) ? [k] : []))),
          short: distinct.flatMap((w, k) => (searchedAlone(w) ? [k] : [])),
          // for each literal, the `literal` rules (their places in that list) that need it
          rulesOf: distinct.map((w) => literal.flatMap((i, j) => (this.rules[i].needs!.includes(w) ? [j] : []))),
        },
        words: words.length === 0 ? undefined : { rules: words, at: words.map((i) => copy(this.rules[i].atWord!)) },
        alone: alone.map((i) => ({ rule: i, trigger: copy(this.rules[i].trigger!) })),
        scan:
          scanned.length === 0
            ? undefined
            : {
                scan: new RegExp(scanned.map((i) => `(${this.rules[i].trigger!.source})`).join('|'), 'g'),
                rules: scanned,
                // each trigger on its own, sticky: the rules whose triggers also match where an earlier one did
                at: scanned.map((i) => new RegExp(this.rules[i].trigger!.source, 'y')),
              },
      };
    } else {
      this.dispatch = null;
    }
    if (options.key !== undefined) {
      if (options.key.length < 16) throw new InvalidInputError('the redaction key must be at least 16 bytes');
      this.key = Buffer.from(options.key);
    }
    // Without a key or a key file, a random key now, passed on with the options.
    if (this.key === undefined && options.keyFile === undefined) this.key = randomBytes(KEY_BYTES);
    this.options = this.key !== undefined && options.key === undefined ? { ...options, key: this.key } : options;
    this.keyed = (type, secret) => `${MARKER_PREFIX}${type}:${this.tag(secret)}]`;
  }

  /** The first 12 hex digits of HMAC-SHA256(key, secret): the same secret always gets the same tag. */
  private tag(secret: string): string {
    this.key ??= loadOrCreateKey(this.options.keyFile!);
    return createHmac('sha256', this.key).update(secret, 'utf8').digest('hex').slice(0, 12);
  }

  /** Returns `text` with every secret replaced by `[REDACTED:<type>]`. */
  redact(text: string): string {
    return this.run(text, typeMarker);
  }

  /**
   * For identifier fields (session, name, tool call id, kind, role, meta keys): each secret becomes
   * `[REDACTED:<type>:<tag>]`, the tag a keyed hash of the secret, so distinct values stay distinct.
   */
  redactId(text: string): string {
    // Sessions, kinds, roles and names recur in event after event: each is redacted once.
    if (text.length > ID_MEMO_CHARS) return this.run(text, this.keyed);
    let out = this.idMemo.get(text);
    if (out === undefined) {
      if (this.idMemo.size >= ID_MEMO_SIZE) this.idMemo.clear();
      this.idMemo.set(text, (out = this.run(text, this.keyed)));
    }
    return out;
  }

  /**
   * A tool's output (already redacted) when the command that made it prints a credential: the output, if it is one
   * word, is the secret (`credentialOutput`). The caller knows the command: the tool call's text, or the output's own
   * first line (`$ <command>`, as Scroll's run_command writes it).
   */
  redactCommandOutput(output: string): string {
    return this.enabled ? credentialOutput(output, typeMarker) : output;
  }

  /** The pre-test alone: whether some rule's trigger matches `text` (the bench reports how often). */
  mayHoldSecrets(text: string): boolean {
    return this.dispatch === null || this.needed(text) !== null;
  }

  /** Which rules' triggers match `text` (by index), or null for none. */
  private needed(text: string): Uint8Array | null {
    const d = this.dispatch!;
    let needed: Uint8Array | null = null;
    this.nameHits = undefined;
    // The literals in one pass (and a string search for each short one) rather than a string search for each.
    const { scan, words, at, implied, short, rulesOf } = d.literals;
    const present = new Uint8Array(words.length);
    const found: number[] = [];
    let left = words.length - short.length;
    for (const k of short) if (text.includes(words[k])) (present[k] = 1), found.push(k);
    scan.lastIndex = 0;
    for (let m = left > 0 ? scan.exec(text) : null; m !== null; m = left > 0 ? scan.exec(text) : null) {
      for (const k of implied[at.get(m[0])!]) if (present[k] === 0) (present[k] = 1), left--, found.push(k);
      scan.lastIndex = m.index + 1; // literals may overlap
    }
    // Only the rules of the literals found, each trigger tested once (most text holds few literals, and rules are many).
    if (found.length > 0) {
      const tested = new Uint8Array(d.literal.length);
      for (const k of found) {
        for (const j of rulesOf[k]) {
          if (tested[j] !== 0) continue;
          tested[j] = 1;
          const { rule, trigger } = d.literal[j];
          if (trigger.test(text)) (needed ??= new Uint8Array(this.rules.length))[rule] = 1;
        }
      }
    }
    if (d.words) {
      // Every place a word starts, one after another (the next scan starts a character on: words
      // may overlap); there, the triggers not found yet, and whether a name word starts there.
      const { rules, at } = d.words;
      const hits: number[] = [];
      let left = rules.length;
      CASELESS_WORDS.lastIndex = 0;
      for (let m = CASELESS_WORDS.exec(text); m !== null; m = CASELESS_WORDS.exec(text)) {
        const p = m.index;
        for (let k = 0; k < rules.length && left > 0; k++) {
          if (needed !== null && needed[rules[k]] !== 0) continue;
          at[k].lastIndex = p;
          if (at[k].test(text)) ((needed ??= new Uint8Array(this.rules.length))[rules[k]] = 1), left--;
        }
        NAME_WORD_AT.lastIndex = p;
        if (NAME_WORD_AT.test(text)) hits.push(p);
        CASELESS_WORDS.lastIndex = p + 1;
      }
      this.nameHits = hits;
    }
    for (const { rule, trigger } of d.alone) if (trigger.test(text)) (needed ??= new Uint8Array(this.rules.length))[rule] = 1;
    if (d.scan) {
      // The scan reports the first of its triggers that matches at a position, so the later ones
      // are tried there on their own; it goes on from the next character (triggers may overlap).
      const { scan, rules, at } = d.scan;
      scan.lastIndex = 0;
      let left = rules.length;
      for (let m = scan.exec(text); m !== null; m = scan.exec(text)) {
        let g = 1;
        while (m[g] === undefined) g++;
        needed ??= new Uint8Array(this.rules.length);
        if (needed[rules[g - 1]] === 0) (needed[rules[g - 1]] = 1), left--;
        for (let k = g; k < rules.length && left > 0; k++) {
          if (needed[rules[k]] !== 0) continue;
          at[k].lastIndex = m.index;
          if (at[k].test(text)) (needed[rules[k]] = 1), left--;
        }
        if (left === 0) break;
        scan.lastIndex = m.index + 1;
      }
    }
    return needed;
  }

  private run(text: string, mark: Marker): string {
    if (!this.enabled || text.length === 0) return text;
    let out = text;
    // Every secret a rule finds (`this.marking` notes it), so that the text's other copies of it are hidden too.
    this.found = undefined;
    this.mark = mark;
    const marking = this.marking;
    if (this.dispatch) {
      // Decided on the text as given: what a rule inserts (markers) never makes another rule fire.
      const needed = this.needed(text);
      if (needed === null) return text;
      const nameHits = this.nameHits;
      // The name words' places hold for the text as given, not once a rule has changed it.
      for (let i = 0; i < this.rules.length; i++) if (needed[i]) out = applyWith(out, this.rules[i], marking, out === text ? nameHits : undefined);
    } else {
      for (const rule of this.rules) {
        if (rule.trigger && !rule.trigger.test(out)) continue;
        out = applyWith(out, rule, marking);
      }
    }
    const found = this.found;
    this.found = undefined;
    return found ? hideCopies(out, found, mark) : out;
  }

  /** Redacts every string inside a JSON-like value (objects, arrays); object keys as identifiers. */
  redactValue<T>(value: T): T {
    if (!this.enabled) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (value && typeof value === 'object') {
      // JSON.stringify's view: toJSON() (Dates), then own enumerable keys.
      const v = typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON: () => unknown }).toJSON() : value;
      if (v !== value) return this.walk(v);
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(value as Record<string, unknown>)) out[this.redactId(k)] = this.walk(x);
      return out;
    }
    return value;
  }
}
