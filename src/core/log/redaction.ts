/**
 * Secret redaction. Runs on everything an event carries (content, headline, name, meta values)
 * before any byte reaches the database, its WAL or the payload store: a lossless log must not
 * become a plaintext credential dump. Matches are replaced by `[REDACTED:<type>]`.
 */
import { InvalidInputError, errorMessage } from '../errors';

export interface RedactionRule {
  /** Goes into the marker: `[REDACTED:<type>]`. */
  type: string;
  pattern: RegExp;
  /**
   * Index of the capture group that holds the secret; the text around it is kept (e.g. the
   * variable name in `API_KEY=…`). Omitted: the whole match is the secret.
   */
  secretGroup?: number;
  /**
   * Cheap pre-tests: the rule's regex only runs when one of these exact substrings, or a match
   * of `triggerPattern`, is present (most text holds no secret, and redaction runs on all of it).
   */
  triggers?: string[];
  triggerPattern?: RegExp;
  /** Matched values this returns true for are not secrets after all (numbers, references). */
  keep?: (secret: string) => boolean;
}

export interface RedactionOptions {
  /** Default true. False stores text exactly as given. */
  enabled?: boolean;
  /** Extra rules, applied after the built-in ones. A string is compiled with flags `g`. */
  extraPatterns?: Array<{ type: string; pattern: RegExp | string }>;
}

/** Words that make a `NAME=value` line's value a secret (regex source, matched case-insensitively). */
const SECRET_NAME_WORDS = ['SECRET', 'TOKEN', 'PASSWORD', 'PASSWD', 'PASSPHRASE', 'API_?KEY', 'ACCESS_?KEY', 'PRIVATE', 'CREDENTIALS?', 'AUTH_?KEY', 'CLIENT_?SECRET'];

/** Names in `NAME=value` lines that mark the value as a secret. */
const SECRET_NAME = String.raw`(?:[A-Za-z_][A-Za-z0-9_.-]*?)?(?:${SECRET_NAME_WORDS.join('|')})[A-Za-z0-9_.-]*`;

/**
 * One case-insensitive scan shared by every rule keyed on a word (most text has none of them):
 * the secret-name words themselves, so it cannot miss a name the rules know, plus `Bearer`. (A
 * hand-written list once missed PASSPHRASE; a bare `key` made every text naming `getKeyName` run
 * the line rules.)
 */
const SECRET_WORD_HINT = new RegExp([...SECRET_NAME_WORDS, 'BEARER'].join('|'), 'i');

export const BUILTIN_RULES: readonly RedactionRule[] = [
  {
    type: 'private_key',
    pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    triggers: ['PRIVATE KEY'],
  },
  { type: 'aws_access_key', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA)[0-9A-Z]{16}\b/g, triggers: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'AIDA', 'AROA'] },
  {
    type: 'aws_secret_key',
    pattern: /(aws_?secret(?:_?access)?_?key["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    secretGroup: 2,
    triggerPattern: SECRET_WORD_HINT,
  },
  { type: 'github_token', pattern: /\bgh[pousr]_[A-Za-z0-9]{30,255}\b/g, triggers: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'] },
  { type: 'github_token', pattern: /\bgithub_pat_[A-Za-z0-9_]{22,255}/g, triggers: ['github_pat_'] },
  { type: 'anthropic_key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g, triggers: ['sk-ant-'] },
  // A digit somewhere: real keys always have one, long hyphenated words (`sk-learn-…`) do not.
  { type: 'openai_key', pattern: /\bsk-(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{20,}/g, triggers: ['sk-'] },
  { type: 'slack_token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, triggers: ['xox'] },
  { type: 'slack_webhook', pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]+/g, triggers: ['hooks.slack.com'] },
  { type: 'google_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g, triggers: ['AIza'] },
  { type: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, triggers: ['eyJ'] },
  {
    type: 'bearer_token',
    pattern: /(\bAuthorization["']?\s*[:=]\s*["']?Bearer\s+)([A-Za-z0-9._~+/=-]{16,})/gi,
    secretGroup: 2,
    triggerPattern: SECRET_WORD_HINT,
  },
  {
    type: 'url_password',
    pattern: /(\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s:/@"'<>]+:)([^\s@/"'<>]+)(@)/g,
    secretGroup: 2,
    triggers: ['://'],
  },
  {
    // env files, shell exports, YAML/INI, code: a secret-looking name at the start of a line,
    // then a quoted value (a trailing `,`/`;` and comment are kept)…
    type: 'secret',
    pattern: new RegExp(String.raw`^([ \t]*(?:export[ \t]+)?["']?${SECRET_NAME}["']?[ \t]*[=:][ \t]*)("[^"\n]+"|'[^'\n]+')([ \t]*[,;]?[ \t]*(?:(?:#|//).*)?)$`, 'gim'),
    secretGroup: 2,
    triggerPattern: SECRET_WORD_HINT,
    keep: notASecretValue,
  },
  {
    // …or an unquoted value up to the end of the line or a comment.
    type: 'secret',
    pattern: new RegExp(String.raw`^([ \t]*(?:export[ \t]+)?["']?${SECRET_NAME}["']?[ \t]*[=:][ \t]*)([^\s"'#][^\n#]*?)([ \t]*(?:#.*)?)$`, 'gim'),
    secretGroup: 2,
    triggerPattern: SECRET_WORD_HINT,
    keep: notASecretValue,
  },
  {
    // JSON: "api_key": "value"
    type: 'secret',
    pattern: new RegExp(String.raw`("${SECRET_NAME}"[ \t]*:[ \t]*)("[^"\n]{4,}")`, 'gi'),
    secretGroup: 2,
    triggerPattern: SECRET_WORD_HINT,
    keep: notASecretValue,
  },
];

/**
 * `max_tokens: 100`, `API_KEY=$API_KEY`, `password: null`, and code such as `token: opts.token,`
 * or `apiKey: getKey(),` name a secret but do not hold one. A bare word (`PASSWORD=hunter2`)
 * or a quoted string is treated as a secret.
 */
function notASecretValue(value: string): boolean {
  const v = value.trim();
  if (v.length < 3) return true;
  if (/^(?:[-+]?\d+(?:\.\d+)?|true|false|null|none|undefined|\*+|<[^>]*>|\[REDACTED:[^\]]*\])$/i.test(v.replace(/^["']|["']$/g, ''))) return true;
  // Variable references: $X, ${X}, ${{ secrets.X }}, %X%, process.env.X, os.environ["X"].
  if (/^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\{\{[^}]*\}\}|%[A-Za-z_][A-Za-z0-9_]*%)$/.test(v)) return true;
  if (/^(?:process\.env|os\.environ|import\.meta\.env)\b/.test(v)) return true;
  // Unquoted code: a member access or call, or a name followed by `,`/`;` (object literals, arguments).
  const code = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*|\[[^\]\n]*\])*(\([^)\n]*\))?\s*([,;])?$/.exec(v);
  return code !== null && (v.includes('.') || v.includes('[') || code[1] !== undefined || code[2] !== undefined);
}

const MARKER_PREFIX = '[REDACTED:';

/** One rule's replacements in `text`, with no pre-test: every match of its pattern is looked at. */
export function applyRule(text: string, rule: RedactionRule): string {
  const marker = `${MARKER_PREFIX}${rule.type}]`;
  rule.pattern.lastIndex = 0;
  if (rule.secretGroup === undefined) return text.replace(rule.pattern, marker);
  const at = rule.secretGroup - 1;
  return text.replace(rule.pattern, (...m: unknown[]) => {
    const groups = m.slice(1, -2) as (string | undefined)[];
    const secret = groups[at] ?? '';
    if (secret.includes(MARKER_PREFIX) || rule.keep?.(secret)) return m[0] as string;
    return groups.map((g, i) => (i === at ? marker : g ?? '')).join('');
  });
}

function prefilter(rules: RedactionRule[]): { triggers: RegExp; patterns: RegExp[] } {
  const words = [...new Set(rules.flatMap((r) => r.triggers ?? []))];
  const escape = (w: string) => w.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  // A regex that matches nothing when no rule has trigger words.
  const triggers = words.length ? new RegExp(words.map(escape).join('|')) : /(?!)/;
  const patterns = [...new Set(rules.flatMap((r) => (r.triggerPattern ? [r.triggerPattern] : [])))];
  // A pattern with the g or y flag keeps state between test() calls; the rules' pre-tests do not.
  for (const p of patterns) if (p.global || p.sticky) throw new Error(`redaction trigger pattern ${p} must not have the g or y flag`);
  return { triggers, patterns };
}

export class Redactor {
  readonly enabled: boolean;
  private readonly rules: RedactionRule[];
  /**
   * Whether any rule could fire on a text, in one scan each: every rule's trigger substrings as one
   * regex, then each distinct trigger pattern. Most text has none, and testing the triggers rule by
   * rule (some 25 substring scans of the whole text) was most of the cost of redacting it. Null
   * when a rule has no triggers (an extra pattern), so every text goes through the rules.
   */
  private readonly mayHold: { triggers: RegExp; patterns: RegExp[] } | null;

  /** `options`: as given, so another thread can build the same redactor (bulk ingest's worker). */
  constructor(readonly options: RedactionOptions = {}) {
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
    this.mayHold = this.rules.every((r) => r.triggers || r.triggerPattern) ? prefilter(this.rules) : null;
  }

  /** Returns `text` with every secret replaced. */
  redact(text: string): string {
    if (!this.enabled || text.length === 0) return text;
    const may = this.mayHold;
    // Exactly the rules' own pre-tests, run once over the text: when none passes, no rule runs.
    if (may && !may.triggers.test(text) && !may.patterns.some((p) => p.test(text))) return text;
    let out = text;
    // Trigger-pattern results for the current `out` (several rules share one pattern).
    const hints = new Map<RegExp, boolean>();
    const hinted = (re: RegExp) => {
      let v = hints.get(re);
      if (v === undefined) hints.set(re, (v = re.test(out)));
      return v;
    };
    for (const rule of this.rules) {
      if (rule.triggers || rule.triggerPattern) {
        const hit = (rule.triggers?.some((t) => out.includes(t)) ?? false) || (rule.triggerPattern ? hinted(rule.triggerPattern) : false);
        if (!hit) continue;
      }
      const next = applyRule(out, rule);
      if (next !== out) {
        out = next;
        hints.clear();
      }
    }
    return out;
  }

  /** Redacts every string inside a JSON-like value (objects, arrays), keys left as they are. */
  redactValue<T>(value: T): T {
    if (!this.enabled) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = this.walk(v);
      return out;
    }
    return value;
  }
}
