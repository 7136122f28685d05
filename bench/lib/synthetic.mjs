// Synthetic agent histories for the search benchmark: sessions of user messages, model turns with
// fenced code, tool calls and their results (source files, test runs with errors and stack traces,
// grep output). Words, identifiers and paths are drawn from Zipf distributions over large
// vocabularies, so common terms are common and most terms are rare, as in real logs.
// Deterministic for a given seed. Also draws queries the way an agent searches.
//
// Two corpora (`corpus` option):
//  - 2 (default): identifiers recur inside an event, as they do in a real file or test run (a
//    file names a few dozen identifiers many times, not a fresh one at every use), and their parts
//    are Zipf-distributed words (get, user, id...). Calibrated against real code and docs by
//    bench/corpus.bench.mjs: compound identifiers per token and parts per identifier.
//  - 1: the first version, every identifier drawn afresh from the whole vocabulary and its parts
//    uniform over 3,000 words. It has about 3x the identifier density of real source code (the
//    densest real text measured), so the identifier-parts index costs about 4x what it would on a
//    real history. Kept to reproduce earlier figures.

/** `--corpus N` from a benchmark's arguments (default 2; see the header). */
export function corpusOption(args) {
  const at = args.indexOf('--corpus');
  return at < 0 ? 2 : Number(args[at + 1]);
}

/** Small fast deterministic PRNG (mulberry32). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Zipf(s) sampler over n ranks via a precomputed CDF and binary search. */
function zipf(n, s, rand) {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / Math.pow(i + 1, s);
  for (let i = 0; i < n; i++) cdf[i] /= sum;
  return () => {
    const u = rand();
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const COMMON = `the of and to a in is that it for you was on are with as this be at have not but by from or an they
we can will if what there all so one would which their about when up out do more some your also has its just
into time only than then now like first new see use make need how get run fix test check file code error build
change update add remove call return value data type function line log user config server request response
should could because after before still again here where why while each other any most over under`.split(/\s+/);
/** Corpus 2: the commonest words inside identifiers (getUserId, isValid, toString...), before the rarer ones. */
const IDENT_COMMON = `get set is has to id name value type data file path error user config list item key count index
result state event handler options node text message map cache info load parse create read write find init
new add remove update call build check test run make use time line log code server request response start
end size max min default on by from first change fix function return`.split(/\s+/);
const SYLLABLES = `ka lo mi ne ra to su vi de pa ri co mo ta le si na be go fu ti ze ma po ru ki la re do se ni pe
ba tu vo ga me ho ja qu xe yo zi wa ce da fe gi he ju ko lu mu no pi ro sa te vu bi cu di fo gu hi`.split(/\s+/);
const EXT = ['ts', 'js', 'py', 'json', 'md', 'tsx', 'go', 'rs'];
const DIRS = ['src', 'lib', 'test', 'core', 'api', 'ui', 'utils', 'services', 'models', 'db', 'cli', 'server', 'client', 'config', 'scripts'];
const TOOLS = ['read_file', 'run_tests', 'shell', 'grep', 'write_file', 'list_dir'];
const ERRORS = [
  (w) => `TypeError: Cannot read properties of undefined (reading '${w.ident()}')`,
  (w) => `ReferenceError: ${w.ident()} is not defined`,
  (w) => `Error: ENOENT: no such file or directory, open '${w.path()}'`,
  (w) => `Error: connect ECONNREFUSED 127.0.0.1:${1000 + w.int(9000)}`,
  (w) => `AssertionError [ERR_ASSERTION]: expected ${w.int(100)} to equal ${w.int(100)}`,
  (w) => `SyntaxError: Unexpected token '${w.pick(['}', ')', '<', 'export'])}' in ${w.path()}`,
  (w) => `Error: Timeout of ${w.int(10) * 1000}ms exceeded in ${w.ident()}`,
  (w) => `${w.Ident()}Error: ${w.word()} ${w.word()} failed for ${w.ident()}`,
  (w) => `npm ERR! code E${w.pick(['RESOLVE', 'NOTFOUND', 'INTEGRITY', 'LIFECYCLE'])}`,
  (w) => `Traceback (most recent call last): KeyError: '${w.ident()}'`,
];

/**
 * Corpus 2: the chance that an identifier in an event is one the event already used (drawn in
 * proportion to its uses so far, so an event's identifiers are themselves skewed). Calibrated with
 * bench/corpus.bench.mjs to real source code's distinct compound identifiers per token.
 */
const IDENT_REUSE = 0.75;

export class HistoryGenerator {
  constructor(seed = 42, { corpus = 2 } = {}) {
    if (corpus !== 1 && corpus !== 2) throw new Error(`unknown synthetic corpus ${corpus} (1 or 2)`);
    this.corpus = corpus;
    this.rand = rng(seed);
    const pseudo = new Set();
    while (pseudo.size < 60_000) {
      const n = 2 + Math.floor(this.rand() * 3);
      let w = '';
      for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(this.rand() * SYLLABLES.length)];
      if (!COMMON.includes(w)) pseudo.add(w);
    }
    this.words = [...COMMON, ...pseudo];
    this.wordRank = zipf(this.words.length, 1.05, this.rand);
    // Corpus 2: identifier parts follow their own Zipf law over the commoner words.
    this.partWords = [...new Set([...IDENT_COMMON, ...pseudo])].slice(0, 4000);
    this.partRank = corpus === 2 ? zipf(this.partWords.length, 1.0, this.rand) : null;
    /** Corpus 2: every identifier use of the event being generated (null outside event()). */
    this.local = null;
    this.idents = Array.from({ length: 25_000 }, () => this.makeIdent());
    this.identRank = zipf(this.idents.length, 1.0, this.rand);
    this.paths = Array.from({ length: 4_000 }, () => this.makePath());
    this.pathRank = zipf(this.paths.length, 1.0, this.rand);
    this.seqInSession = 0;
  }
  int(n) {
    return Math.floor(this.rand() * n);
  }
  pick(xs) {
    return xs[this.int(xs.length)];
  }
  word() {
    return this.words[this.wordRank()];
  }
  /** A word from the rarer part of the vocabulary (names, domain terms). */
  contentWord() {
    return this.words[COMMON.length + this.int(this.words.length - COMMON.length) % 8000];
  }
  makeIdent() {
    let parts;
    if (this.corpus === 1) {
      const n = 2 + this.int(3);
      parts = Array.from({ length: n }, () => this.words[this.int(3000) + (this.rand() < 0.5 ? 0 : COMMON.length)]);
    } else {
      // 2, 3 or 4 parts (mean 2.6; real code measured 2.2-2.8 per compound identifier).
      const r = this.rand();
      const n = r < 0.55 ? 2 : r < 0.85 ? 3 : 4;
      parts = Array.from({ length: n }, () => this.partWords[this.partRank()]);
    }
    const style = this.rand();
    if (style < 0.55) return parts[0] + parts.slice(1).map((p) => p[0].toUpperCase() + p.slice(1)).join('');
    if (style < 0.85) return parts.join('_');
    if (style < 0.95) return parts.map((p) => p[0].toUpperCase() + p.slice(1)).join('');
    return parts.join('_').toUpperCase();
  }
  ident() {
    const local = this.local;
    if (local !== null && local.length > 0 && this.rand() < IDENT_REUSE) return local[this.int(local.length)];
    const id = this.idents[this.identRank()];
    local?.push(id);
    return id;
  }
  Ident() {
    const i = this.ident().replace(/_([a-z])/g, (_m, c) => c.toUpperCase());
    return i[0].toUpperCase() + i.slice(1);
  }
  makePath() {
    const depth = 1 + this.int(3);
    const dirs = Array.from({ length: depth }, () => (this.rand() < 0.6 ? this.pick(DIRS) : this.words[COMMON.length + this.int(2000)]));
    const base = this.makeIdent().replace(/_/g, '-').toLowerCase().slice(0, 24);
    return `${dirs.join('/')}/${base}.${this.pick(EXT)}`;
  }
  path() {
    return this.paths[this.pathRank()];
  }
  sentence() {
    const n = 6 + this.int(14);
    const out = [];
    for (let i = 0; i < n; i++) {
      const r = this.rand();
      if (r < 0.06) out.push('`' + this.ident() + '`');
      else if (r < 0.08) out.push(this.path());
      else if (r < 0.1) out.push(String(this.int(5000)));
      else if (r < 0.2) out.push(this.contentWord());
      else out.push(this.word());
    }
    const s = out.join(' ');
    return s[0].toUpperCase() + s.slice(1) + '.';
  }
  prose(sentences) {
    return Array.from({ length: sentences }, () => this.sentence()).join(' ');
  }
  codeLine(indent) {
    const r = this.rand();
    const pad = '  '.repeat(indent);
    if (r < 0.25) return `${pad}const ${this.ident()} = ${this.ident()}(${this.ident()}, ${this.int(100)});`;
    if (r < 0.4) return `${pad}if (${this.ident()}.${this.ident()} === ${this.int(10)}) return ${this.ident()};`;
    if (r < 0.55) return `${pad}await this.${this.ident()}.${this.ident()}({ ${this.ident()}: ${this.ident()} });`;
    if (r < 0.65) return `${pad}// ${this.prose(1).slice(0, 80)}`;
    if (r < 0.75) return `${pad}import { ${this.Ident()} } from './${this.path().replace(/\.\w+$/, '')}';`;
    if (r < 0.85) return `${pad}export function ${this.ident()}(${this.ident()}: ${this.Ident()}): ${this.Ident()} {`;
    return `${pad}throw new ${this.Ident()}Error('${this.word()} ${this.word()} ${this.ident()}');`;
  }
  code(lines) {
    return Array.from({ length: lines }, () => this.codeLine(this.int(3))).join('\n');
  }
  error() {
    return this.pick(ERRORS)(this);
  }
  stack(frames) {
    return Array.from({ length: frames }, () => `    at ${this.ident()} (${this.path()}:${1 + this.int(400)}:${1 + this.int(80)})`).join('\n');
  }

  /** One event of a session; the mix follows a coding agent's loop. */
  event(session, ts) {
    if (this.corpus === 1) return this.eventContent(session, ts);
    this.local = [];
    try {
      return this.eventContent(session, ts);
    } finally {
      this.local = null;
    }
  }

  eventContent(session, ts) {
    const r = this.rand();
    const base = { session, ts };
    if (r < 0.1) return { ...base, kind: 'user_message', role: 'user', content: this.prose(1 + this.int(3)) };
    if (r < 0.35) {
      const code = this.rand() < 0.35 ? `\n\n\`\`\`ts\n${this.code(5 + this.int(25))}\n\`\`\`\n\n${this.prose(1)}` : '';
      return { ...base, kind: 'model_turn', role: 'assistant', content: this.prose(1 + this.int(5)) + code };
    }
    if (r < 0.6) {
      const name = this.pick(TOOLS);
      const arg = name === 'grep' ? `-rn "${this.ident()}" ${this.pick(DIRS)}/` : name === 'run_tests' ? `npm test -- --grep ${this.ident()}` : this.path();
      return { ...base, kind: 'tool_call', role: 'assistant', name, content: `${name} ${arg}` };
    }
    const name = this.pick(TOOLS);
    let content;
    const t = this.rand();
    if (t < 0.35) content = this.code(20 + this.int(160));
    else if (t < 0.65) {
      const fails = 1 + this.int(3);
      const parts = [`> ${this.pick(['npm test', 'pytest -q', 'go test ./...'])}`, `  ${this.int(300)} passing (${this.int(9000)}ms)`, `  ${fails} failing`];
      for (let i = 0; i < fails; i++) parts.push(`  ${i + 1}) ${this.ident()} ${this.prose(1)}`, `     ${this.error()}`, this.stack(3 + this.int(8)));
      content = parts.join('\n');
    } else if (t < 0.85) {
      content = Array.from({ length: 3 + this.int(30) }, () => `${this.path()}:${1 + this.int(500)}:${this.codeLine(0)}`).join('\n');
    } else content = `${this.error()}\n${this.stack(4 + this.int(12))}`;
    return { ...base, kind: 'tool_result', role: 'tool', name, content };
  }

  /** Events until `targetTokens` (chars/4, the log's estimate) are reached. */
  *history(targetTokens, eventsPerSession = 200) {
    let chars = 0;
    let n = 0;
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    while (chars / 4 < targetTokens) {
      const session = `s${Math.floor(n / eventsPerSession)}`;
      const e = this.event(session, new Date(t0 + n * 7000).toISOString());
      chars += e.content.length;
      n++;
      yield e;
    }
  }

  /**
   * Queries like an agent's: identifiers (whole, or a part), error fragments, paths, and 1-4
   * words; some rare, some common; some with a session or kind filter.
   */
  queries(events, count) {
    const out = [];
    const sessions = [...new Set(events.map((e) => e.session))];
    while (out.length < count) {
      const e = events[this.int(events.length)];
      const tokens = e.content.match(/[A-Za-z_][A-Za-z0-9_]{2,}/g) ?? [];
      if (tokens.length === 0) continue;
      const r = this.rand();
      let query;
      if (r < 0.2) query = this.pick(tokens.filter((t) => /[a-z][A-Z]|_/.test(t)) .concat(this.ident()));
      else if (r < 0.3) query = this.pick(this.ident().split(/_|(?=[A-Z])/)).toLowerCase();
      else if (r < 0.45) {
        const err = this.error().split(/\s+/);
        const at = this.int(Math.max(1, err.length - 3));
        query = err.slice(at, at + 2 + this.int(3)).join(' ');
      } else if (r < 0.55) query = this.path();
      else if (r < 0.75) {
        const at = this.int(tokens.length);
        query = tokens.slice(at, at + 1 + this.int(4)).join(' ');
      } else query = Array.from({ length: 1 + this.int(4) }, () => (this.rand() < 0.5 ? this.word() : this.contentWord())).join(' ');
      const f = this.rand();
      const opts = f < 0.15 ? { session: this.pick(sessions) } : f < 0.25 ? { kind: 'tool_result' } : {};
      out.push({ query, opts });
    }
    return out;
  }
}
