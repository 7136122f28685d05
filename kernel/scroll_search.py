"""Search over the Scroll event log, for the standalone reader ``scroll_ms.py`` (people's own Python).

The agent's kernel does not use it: its ``ms.search`` asks the host (docs/MEMORY-PROTOCOL.md).
A port of the query side of ``src/core/search`` (TypeScript): the same tokenization, pruning,
AND-then-OR broadening, context re-ranking, filters and snippets, and the same SQL, so both
return the same seqs in the same order for the same database. The numbers and stop words are not
written here: both load ``search_constants.json`` (beside this file). Shared test vectors:
``test/vectors/search-vectors.json``. Standard library only; works on a read-only connection.
Keep every rule here identical to the TypeScript file named beside it.
"""

import bisect
import json
import math
import os
import re
import sqlite3
import unicodedata
from datetime import date as _date

__all__ = ["search", "parse_query", "make_snippet", "porter_stem", "fold", "STOP_WORDS"]

# --- ranking constants: search_constants.json, beside this file ---------------------------------
# The numbers and stop words TypeScript's search uses too (src/core/search/constants.ts loads the
# same file); what each means is in its "$comment". Copy the file with this one.
_CONSTANTS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "search_constants.json")
try:
    with open(_CONSTANTS_FILE, encoding="utf-8") as _f:
        _C = json.load(_f)
except OSError as _exc:
    raise ImportError("scroll_search: %s is missing (it ships beside scroll_search.py)" % _CONSTANTS_FILE) from _exc

BM25_WEIGHTS = tuple(float(w) for w in _C["BM25_WEIGHTS"])  # body (prose), code, parts, headline
BROADEN_BELOW = _C["BROADEN_BELOW"]
COMMON_SHARE = _C["COMMON_SHARE"]
CONTEXT_NEAR = _C["CONTEXT_NEAR"]
CONTEXT_FAR = _C["CONTEXT_FAR"]
SEGMENT_SHARE = _C["SEGMENT_SHARE"]
SITTING_WINDOW = _C["SITTING_WINDOW"]
DATE_SHARE = _C["DATE_SHARE"]
MIN_CANDIDATES = _C["MIN_CANDIDATES"]
CONTEXT_OF = _C["CONTEXT_OF"]
DEFAULT_K = _C["DEFAULT_K"]
MAX_K = _C["MAX_K"]
MAX_OFFSET = _C["MAX_OFFSET"]
MAX_TERMS = _C["MAX_TERMS"]  # query.ts
MAX_QUERY_CHARS = _C["MAX_QUERY_CHARS"]
SNIPPET_CHARS = _C["SNIPPET_CHARS"]  # snippet.ts
LEAD_CHARS = _C["LEAD_CHARS"]
MAX_WINDOW_STARTS = _C["MAX_WINDOW_STARTS"]
MAX_WORD_EXTENSION = _C["MAX_WORD_EXTENSION"]
STOP_WORDS = frozenset(_C["STOP_WORDS"])
IRREGULAR_FORMS = tuple(_C["IRREGULAR_FORMS"])  # query.ts
CJK_RANGES = tuple(tuple(int(x, 16) for x in r.split("-")) for r in _C["CJK_RANGES"])
CJK_PHRASE_MAX = _C["CJK_PHRASE_MAX"]
ANSWER_TYPE_SHARE = _C["ANSWER_TYPE_SHARE"]  # answerType.ts
ANSWER_QUESTIONS = tuple(_C["ANSWER_QUESTIONS"])
ANSWER_CUES = _C["ANSWER_CUES"]
FIRST_PERSON = frozenset(_C["FIRST_PERSON"])  # selfReference.ts
SECOND_PERSON = frozenset(_C["SECOND_PERSON"])
REQUEST_WORDS = frozenset(_C["REQUEST_WORDS"])
SELF_SHARE = _C["SELF_SHARE"]
PROXIMITY_SHARE = _C["PROXIMITY_SHARE"]  # proximity.ts
PROXIMITY_WINDOW = _C["PROXIMITY_WINDOW"]
INDEX_VERSION = _C["INDEX_VERSION"]  # of the index text TypeScript writes; scroll_meta 'index_version'

del _C

_RANK = "bm25(events_fts, %s)" % ", ".join("%.1f" % w for w in BM25_WEIGHTS)

# --- porter.ts ----------------------------------------------------------------------------------


def _is_vowel(c, y_is_vowel):
    return c in "aeiou" or (y_is_vowel and c == "y")


def _gobble_vc(w, start, n, prev_cons):
    cons = prev_cons
    i = start
    while i < n:
        cons = not _is_vowel(w[i], cons)
        if not cons:
            break
        i += 1
    i += 1
    while i < n:
        cons = not _is_vowel(w[i], cons)
        if cons:
            return i + 1
        i += 1
    return 0


def _m_gt0(w, n):
    return _gobble_vc(w, 0, n, False) != 0


def _m_gt1(w, n):
    i = _gobble_vc(w, 0, n, False)
    return i != 0 and _gobble_vc(w, i, n, True) != 0


def _m_eq1(w, n):
    i = _gobble_vc(w, 0, n, False)
    return i != 0 and _gobble_vc(w, i, n, True) == 0


def _o_star(w, n):
    last = w[n - 1]
    if last in "wxy":
        return False
    mask = 0
    cons = False
    for i in range(n):
        cons = not _is_vowel(w[i], cons)
        mask = ((mask << 1) + (1 if cons else 0)) & 0xFFFF
    return (mask & 7) == 5


def _has_vowel(w, n):
    for i in range(n):
        if _is_vowel(w[i], i > 0):
            return True
    return False


def _m_gt1_and_s_or_t(w, n):
    return w[n - 1] in "st" and _m_gt1(w, n)


_STEP2 = [
    ("ational", "ate", _m_gt0), ("tional", "tion", _m_gt0), ("enci", "ence", _m_gt0), ("anci", "ance", _m_gt0),
    ("izer", "ize", _m_gt0), ("logi", "log", _m_gt0), ("bli", "ble", _m_gt0), ("alli", "al", _m_gt0),
    ("entli", "ent", _m_gt0), ("eli", "e", _m_gt0), ("ousli", "ous", _m_gt0), ("ization", "ize", _m_gt0),
    ("ation", "ate", _m_gt0), ("ator", "ate", _m_gt0), ("alism", "al", _m_gt0), ("iveness", "ive", _m_gt0),
    ("fulness", "ful", _m_gt0), ("ousness", "ous", _m_gt0), ("aliti", "al", _m_gt0), ("iviti", "ive", _m_gt0),
    ("biliti", "ble", _m_gt0),
]
_STEP3 = [
    ("ical", "ic", _m_gt0), ("ness", "", _m_gt0), ("icate", "ic", _m_gt0), ("iciti", "ic", _m_gt0),
    ("ful", "", _m_gt0), ("ative", "", _m_gt0), ("alize", "al", _m_gt0),
]
_STEP4 = [
    ("al", "", _m_gt1), ("ance", "", _m_gt1), ("ence", "", _m_gt1), ("er", "", _m_gt1), ("ic", "", _m_gt1),
    ("able", "", _m_gt1), ("ible", "", _m_gt1), ("ant", "", _m_gt1), ("ement", "", _m_gt1), ("ment", "", _m_gt1),
    ("ent", "", _m_gt1), ("ion", "", _m_gt1_and_s_or_t), ("ou", "", _m_gt1), ("ism", "", _m_gt1), ("ate", "", _m_gt1),
    ("iti", "", _m_gt1), ("ous", "", _m_gt1), ("ive", "", _m_gt1), ("ize", "", _m_gt1),
]


def _apply_rules(w, rules):
    for suffix, repl, cond in rules:
        if len(w) > len(suffix) and w.endswith(suffix):
            n = len(w) - len(suffix)
            return w[:n] + repl if cond(w, n) else w
    return w


def porter_stem(token):
    """Stem one folded token the way SQLite's FTS5 porter tokenizer does."""
    nbytes = len(token.encode("utf-8", "surrogatepass"))
    if nbytes < 3 or nbytes > 64:
        return token
    w = token
    # Step 1a
    if w.endswith("s"):
        if w[-2] == "e":
            if (len(w) > 4 and w.endswith("sses")) or (len(w) > 3 and w[-3] == "i"):
                w = w[:-2]
            else:
                w = w[:-1]
        elif w[-2] != "s":
            w = w[:-1]
    # Step 1b
    removed = False
    if len(w) > 3 and w.endswith("eed"):
        if _m_gt0(w, len(w) - 3):
            w = w[:-1]
    elif len(w) > 2 and w.endswith("ed"):
        if _has_vowel(w, len(w) - 2):
            w = w[:-2]
            removed = True
    elif len(w) > 3 and w.endswith("ing"):
        if _has_vowel(w, len(w) - 3):
            w = w[:-3]
            removed = True
    if removed:
        if len(w) > 2 and (w.endswith("at") or w.endswith("bl") or w.endswith("iz")):
            w += "e"
        else:
            c = w[-1]
            if len(w) >= 2 and not _is_vowel(c, False) and c not in "lsz" and c == w[-2]:
                w = w[:-1]
            elif _m_eq1(w, len(w)) and _o_star(w, len(w)):
                w += "e"
    # Step 1c
    if w.endswith("y") and _has_vowel(w, len(w) - 1):
        w = w[:-1] + "i"
    # Steps 2-4
    w = _apply_rules(w, _STEP2)
    w = _apply_rules(w, _STEP3)
    w = _apply_rules(w, _STEP4)
    # Step 5a
    if w.endswith("e"):
        n = len(w) - 1
        if _m_gt1(w, n) or (_m_eq1(w, n) and not _o_star(w, n)):
            w = w[:-1]
    # Step 5b
    if len(w) > 1 and w.endswith("ll") and _m_gt1(w, len(w) - 1):
        w = w[:-1]
    return w


# --- tokens.ts ----------------------------------------------------------------------------------
TOKEN_RE = re.compile(r"\w+")


def _is_latin(ch):
    try:
        return unicodedata.name(ch).startswith("LATIN ")
    except ValueError:
        return False


def fold(token):
    """Lower case, diacritics removed from Latin letters only (unicode61 remove_diacritics; tokens.ts)."""
    lower = token.lower()
    if lower.isascii():
        return lower
    out = []
    for ch in lower:
        if ord(ch) < 128:
            out.append(ch)
            continue
        base = "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.category(c).startswith("M"))
        if base == "":
            continue  # a lone mark
        out.append(base if len(base) == 1 and (ord(base) < 128 or _is_latin(base)) else ch)
    return "".join(out)


_CJK_CLASS = "".join("\\U%08x-\\U%08x" % r for r in CJK_RANGES)
HAS_CJK = re.compile("[%s]" % _CJK_CLASS)
_CJK_OR_NOT = re.compile("[%s]+|[^%s]+" % (_CJK_CLASS, _CJK_CLASS))


def cjk_segments(token):
    """CJK runs (as lists of characters) and the other pieces of a token, in order (tokens.ts)."""
    return [list(seg) if HAS_CJK.search(seg) else seg for seg in _CJK_OR_NOT.findall(token)]


def bigrams(run):
    if len(run) < 2:
        return list(run)
    return [run[i] + run[i + 1] for i in range(len(run) - 1)]


_stem_cache = {}


def stem_key(token):
    folded = fold(token)
    s = _stem_cache.get(folded)
    if s is None:
        s = porter_stem(folded)
        if len(_stem_cache) > 50000:
            _stem_cache.clear()
        _stem_cache[folded] = s
    return s


_CAMEL1 = re.compile(r"([a-z0-9])([A-Z])")
_CAMEL2 = re.compile(r"([A-Z])([A-Z][a-z])")
_COMPOUND = re.compile(r"_[A-Za-z0-9]|[a-z0-9][A-Z]|[A-Z][A-Z][a-z]")


def identifier_parts(token):
    """`getUserById` -> [get, user, by, id]; `user_id` -> [user, id]; [] when not compound."""
    out = []
    for piece in token.split("_"):
        if not piece:
            continue
        split = _CAMEL2.sub(r"\1 \2", _CAMEL1.sub(r"\1 \2", piece))
        out.extend(fold(p) for p in split.split(" ") if p)
    if len(out) >= 2 or (len(out) == 1 and "_" in token):
        return out
    return []


def is_compound(token):
    return _COMPOUND.search(token) is not None


# --- query.ts -----------------------------------------------------------------------------------
_POSSESSIVE = re.compile(r"([A-Za-z0-9_])['\u2019]s(?!\w)")
_SEPARATORS = re.compile(r"[^\w./\\\-:@#]+")
_JOINERS = re.compile(r"[./\\\-:@#]")


def _quote(s):
    return '"' + s.replace('"', '""') + '"'


def _unique(xs):
    seen = set()
    out = []
    for x in xs:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def _cjk_term(tok):
    """A token holding CJK characters: whole, or its runs as phrases of bigrams (query.ts cjkTerm)."""
    segments = cjk_segments(tok)

    def run(seg):
        return _quote(" ".join(bigrams(seg)))
    if len(segments) == 1 and not isinstance(segments[0], str):
        seg = segments[0]
        if len(seg) == 1:
            fts = _quote(tok) + "*"
        elif len(seg) == 2:
            fts = _quote(tok)
        else:
            fts = "(%s OR %s)" % (_quote(tok), run(seg))
    else:
        fts = "(%s OR (%s))" % (_quote(tok), " AND ".join(_quote(seg) if isinstance(seg, str) else run(seg) for seg in segments))
    return {"type": "word", "text": tok, "tokens": [tok], "parts": [], "fts": fts, "keys": [stem_key(tok)]}


def _split_long_run(token):
    """A pure CJK token longer than CJK_PHRASE_MAX -> two-character words (query.ts splitLongRun)."""
    if len(token) <= CJK_PHRASE_MAX or not HAS_CJK.search(token) or len(cjk_segments(token)) != 1:
        return [token]
    return [token[i:i + 2] if i + 1 < len(token) else token[i - 1:i + 1] for i in range(0, len(token), 2)]


_irregular = None


def _irregular_forms():
    """Stem -> one form per stem of every irregular group holding that stem (query.ts irregularForms)."""
    global _irregular
    if _irregular is None:
        by_stem = {}
        for group in IRREGULAR_FORMS:
            forms = [f for f in group.split(" ") if f and f not in STOP_WORDS]
            for f in forms:
                stems = by_stem.setdefault(stem_key(f), {})
                for g in forms:
                    stems.setdefault(stem_key(g), g)
        _irregular = {stem: list(forms.values()) for stem, forms in by_stem.items()}
    return _irregular


def _word_term(tok):
    stem = stem_key(tok)
    others = [f for f in _irregular_forms().get(stem, []) if stem_key(f) != stem]
    if not others:
        return {"type": "word", "text": tok, "tokens": [tok], "parts": [], "fts": _quote(tok), "keys": [stem]}
    fts = "(%s)" % " OR ".join(_quote(f) for f in [tok] + others)
    return {"type": "word", "text": tok, "tokens": [tok], "parts": [], "fts": fts,
            "keys": [stem] + [stem_key(f) for f in others]}


def _make_term(raw_tokens, force_phrase):
    if not raw_tokens:
        return None
    if len(raw_tokens) == 1 and not force_phrase:
        raw = raw_tokens[0]
        tok = fold(raw)
        if HAS_CJK.search(tok):
            return _cjk_term(tok)
        parts = identifier_parts(raw) if is_compound(raw) else []
        if parts:
            keys = [stem_key(tok)] + [stem_key(p) for p in parts]
            alt = " OR " + _quote(" ".join(parts))
            return {"type": "compound", "text": tok, "tokens": [tok], "parts": parts,
                    "fts": "(%s%s)" % (_quote(tok), alt), "keys": _unique(keys)}
        return _word_term(tok)
    tokens = [fold(t) for t in raw_tokens]
    if len(tokens) == 1:
        return {"type": "word", "text": tokens[0], "tokens": tokens, "parts": [], "fts": _quote(tokens[0]),
                "keys": [stem_key(tokens[0])]}
    keys = [stem_key(t) for t in tokens if t not in STOP_WORDS]
    return {"type": "phrase", "text": " ".join(tokens), "tokens": tokens, "parts": [],
            "fts": _quote(" ".join(tokens)), "keys": _unique(keys)}


_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_MONTH = "|".join(_MONTHS)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b", re.ASCII)
_MONTH_DAY_YEAR = re.compile(r"\b(%s)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b" % _MONTH, re.I | re.ASCII)
_DAY_MONTH_YEAR = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(%s),?\s+(\d{4})\b" % _MONTH, re.I | re.ASCII)
_MONTH_YEAR = re.compile(r"\b(%s),?\s+(\d{4})\b" % _MONTH, re.I | re.ASCII)


def _day_of(year, month, day):
    try:
        return (_date(year, month, day) - _EPOCH).days
    except ValueError:
        return None


def date_window(text):
    """The first date a query names, as (from_day, to_day) (query.ts dateWindow), or None."""
    def one(d):
        return None if d is None else (d, d + 1)
    m = _ISO_DATE.search(text)
    if m:
        return one(_day_of(int(m.group(1)), int(m.group(2)), int(m.group(3))))
    m = _MONTH_DAY_YEAR.search(text)
    if m:
        return one(_day_of(int(m.group(3)), _MONTHS.index(m.group(1).lower()) + 1, int(m.group(2))))
    m = _DAY_MONTH_YEAR.search(text)
    if m:
        return one(_day_of(int(m.group(3)), _MONTHS.index(m.group(2).lower()) + 1, int(m.group(1))))
    m = _MONTH_YEAR.search(text)
    if m:
        year, month = int(m.group(2)), _MONTHS.index(m.group(1).lower()) + 1
        start = _day_of(year, month, 1)
        end = _day_of(year + 1, 1, 1) if month == 12 else _day_of(year, month + 1, 1)
        return None if start is None or end is None else (start, end)
    return None


_TOKEN_CHAR = re.compile(r"\w")


def cut_at_word_boundary(text, limit):
    """The first `limit` characters of `text`, or fewer: never a cut inside a word (query.ts)."""
    if len(text) <= limit:
        return text
    if not _TOKEN_CHAR.match(text[limit]):
        return text[:limit]
    i = limit
    while i > 0 and _TOKEN_CHAR.match(text[i - 1]):
        i -= 1
    return text[:i] if i > 0 else text[:limit]


# --- answerType.ts -------------------------------------------------------------------------------
# Answer-type matching: a question's form names the kinds of answer it asks for ("when" -> a time,
# "how many" -> a number, "who" -> a person, "where" -> a place); a ranked event whose text holds a
# cue of one of them is lifted. English only; the forms and cues are data (search_constants.json).
# A question word where a question starts: the first word (after at most one preposition) or the
# first after a comma, colon or semicolon (answerType.ts WH).
_WH = re.compile(r"(?:^[^a-z0-9]*(?:(?:in|for|after|since|by|from|to|at|on|of|with)[ \t\n\r\f\v]+)?|[,;:][ \t\n\r\f\v]*)"
                 r"(?:what|which|when|where|who|whom|whose|why|how)\b", re.I | re.ASCII)
_QUESTION_WORDS = frozenset(("what", "which", "when", "where", "who", "whom", "whose", "why", "how"))
# "form: kinds", longest form first ("how long ago" before "how long"; a stable sort, as in JS).
_ANSWER_FORMS = sorted(((f.split(":")[0].strip().split(" "), f.split(":")[1].strip().split(" ")) for f in ANSWER_QUESTIONS),
                       key=lambda f: -len(f[0]))
_NON_LETTERS = re.compile(r"[^a-z]+")
# What a space in a cue matches: the whitespace JavaScript's \s and this pattern agree on in ASCII.
_CUE_SPACE = r"[ \t\n\r\f\v]+"
_CUE_PATTERNS = {}


def answer_type_of(question):
    """The kinds of answer `question` asks for (a list), from the question word that starts it, or None."""
    m = _WH.search(question)
    if m is None:
        return None
    words = [w for w in _NON_LETTERS.split(question[m.start():].lower()) if w]
    while words and words[0] not in _QUESTION_WORDS:  # the preposition before it
        words.pop(0)
    for form, kinds in _ANSWER_FORMS:
        if all(i < len(words) and words[i] == w for i, w in enumerate(form)):
            return kinds
    return None


def _cue_patterns(kind):
    res = _CUE_PATTERNS.get(kind)
    if res is None:
        cues = ANSWER_CUES.get(kind) or {}
        res = []
        if cues.get("words"):
            res.append(re.compile(r"\b(?:%s)\b" % "|".join(c.replace(" ", _CUE_SPACE) for c in cues["words"]), re.I | re.ASCII))
        if cues.get("cased"):
            res.append(re.compile("|".join(cues["cased"]), re.ASCII))
        _CUE_PATTERNS[kind] = res
    return res


def holds_answer_type(text, kinds):
    """True when `text` holds a cue of one of `kinds` (answerType.ts holdsAnswerType)."""
    return any(p.search(text) for kind in kinds for p in _cue_patterns(kind))


# --- selfReference.ts ----------------------------------------------------------------------------
# A query in the first person singular and not in the second (a request's "can you" aside) asks
# about what the user said: the user's own messages among the ranked events are lifted.
_NOT_WORD = re.compile(r"[^a-z']+")


def asks_about_user(query):
    """True when `query` speaks of the asker as I / me / my and not of the one it asks as you (selfReference.ts asksAboutUser)."""
    words = _NOT_WORD.split(query.lower().replace("\u2019", "'"))
    first = False
    for i, raw in enumerate(words):
        w = raw.strip("'")
        if w in FIRST_PERSON:
            first = True
        elif w in SECOND_PERSON and not (w == "you" and i > 0 and words[i - 1].strip("'") in REQUEST_WORDS):
            return False
    return first


def parse_query(text):
    """User text -> {terms, stopped, message}; see query.ts for the rules."""
    if text is None:
        text = ""
    elif not isinstance(text, str):
        text = str(text)
    message = None
    if len(text) > MAX_QUERY_CHARS:
        text = cut_at_word_boundary(text, MAX_QUERY_CHARS)
        message = "query longer than %d characters: only its start was searched" % MAX_QUERY_CHARS
    candidates = []
    segments = text.split('"')
    closed = len(segments) % 2 == 1
    for i, seg in enumerate(segments):
        quoted = i % 2 == 1 and (closed or i < len(segments) - 1)
        if quoted:
            toks = TOKEN_RE.findall(seg)
            if toks:
                candidates.append((toks, len(toks) > 1))
            continue
        cleaned = _SEPARATORS.sub(" ", _POSSESSIVE.sub(r"\1", seg))
        for chunk in cleaned.split(" "):
            if not chunk:
                continue
            toks = TOKEN_RE.findall(chunk)
            if not toks:
                continue
            if len(toks) > 1 and _JOINERS.search(chunk):
                candidates.append((toks, True))
            else:
                for t in toks:
                    for w in _split_long_run(t):
                        candidates.append(([w], False))
    terms, stopped, stop_terms, seen = [], [], [], set()
    dropped = 0
    for toks, phrase in candidates:
        term = _make_term(toks, phrase)
        if term is None or term["fts"] in seen:
            continue
        seen.add(term["fts"])
        if term["type"] == "word" and term["text"] in STOP_WORDS:
            stopped.append(term["text"])
            stop_terms.append(term)
            continue
        if len(terms) >= MAX_TERMS:
            dropped += 1
            continue
        terms.append(term)
    if dropped:
        message = "query has %d terms: only the first %d were searched" % (len(terms) + dropped, MAX_TERMS)
    if not terms and stop_terms:
        terms = stop_terms[:MAX_TERMS]
        stopped = []
    window = date_window(text)
    out = {"terms": terms, "stopped": stopped, "message": message}
    if window is not None:
        out["window"] = window
    answer = answer_type_of(text)
    if answer is not None:
        out["answer"] = answer
    if asks_about_user(text):
        out["about_user"] = True
    return out


# --- snippet.ts ---------------------------------------------------------------------------------
# The whitespace both Python's str.isspace and JavaScript's \s agree on (snippet.ts SNIPPET_WS).
_WS = re.compile("[\t\n\x0b\x0c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
_ASCII = re.compile(r"^[\x00-\x7f]*$")


def _is_word_code(c):
    return 48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122 or c == 95


def _is_word_at(s, i):
    c = ord(s[i])
    return _is_word_code(c) if c < 128 else s[i].isalnum()


def _starts_part(s, i):
    if i == 0 or not _is_word_at(s, i - 1):
        return True
    p = ord(s[i - 1])
    if p == 95:
        return True
    c = ord(s[i])
    if (97 <= p <= 122 or 48 <= p <= 57) and 65 <= c <= 90:
        return True
    return 65 <= p <= 90 and 65 <= c <= 90 and i + 1 < len(s) and 97 <= ord(s[i + 1]) <= 122


def _ends_part(s, i):
    if i >= len(s):
        return True
    c = ord(s[i])
    if c == 95 or not _is_word_at(s, i):
        return True
    return 65 <= c <= 90 and not (65 <= ord(s[i - 1]) <= 90)


def snippet_prefixes(keys):
    """Search prefixes for the keys: the stem minus a trailing i/e Porter may have written (a three-letter
    stem ending in i also with y instead: dai -> dai, day); a key
    holding CJK as it is (none beyond the BMP, as snippet.ts); other non-ASCII keys are left out."""
    out = []
    for k in keys:
        p = k
        ascii_key = _ASCII.match(p) is not None
        if ascii_key and len(p) > 3 and p[-1] in "ie":
            p = p[:-1]
        if p and (ascii_key or (HAS_CJK.search(p) and all(ord(c) <= 0xFFFF for c in p))) and p not in out:
            out.append(p)
        # Porter writes a short word's final y as i (day -> dai, buy -> bui), a prefix of neither word.
        y = p[:2] + "y" if ascii_key and len(p) == 3 and p[-1] == "i" else ""
        if y and y not in out:
            out.append(y)
    return out


def prefix_pattern(prefixes):
    """The same alternation as snippet.ts `prefixPattern` (longest first), matched case-insensitively
    in ASCII only (re.ASCII | re.IGNORECASE, like a JavaScript `i` regex without `u`)."""
    return "|".join(re.escape(p) for p in sorted(prefixes, key=lambda p: (-len(p), p)))


_regex_cache = {}


def _prefix_regex(pattern):
    rx = _regex_cache.get(pattern)
    if rx is None:
        if len(_regex_cache) > 100:
            _regex_cache.clear()
        rx = _regex_cache[pattern] = re.compile(pattern, re.ASCII | re.IGNORECASE)
    return rx


def _folded_copy(s):
    out = []
    for ch in s:
        if ord(ch) < 128:
            out.append(ch)
            continue
        f = "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.category(c).startswith("M"))
        if not f:
            return None
        out.append(f if len(f) == 1 and (ord(f) < 128 or _is_latin(f)) else ch)
    return "".join(out)


def _add_match(matches, start, end, key):
    """A match that overlaps the ones before it (a word around CJK keys) absorbs them (snippet.ts `add`)."""
    keys = {key}
    while matches and start < matches[-1][1]:
        prev = matches.pop()
        start, end = min(start, prev[0]), max(end, prev[1])
        keys |= prev[2]
    matches.append([start, end, keys])


def key_matches(content, prefixes):
    """The matches of `prefixes` that a snippet of `content` marks: [start, end, set(prefix indexes)],
    offsets in code points (snippet.ts keyMatches)."""
    matches = []  # [start, end, set(key ids)]
    text = content if _ASCII.match(content) else _folded_copy(content)
    if prefixes and text is not None:
        ids = {p: i for i, p in enumerate(prefixes)}
        cjk = {p for p in prefixes if HAS_CJK.search(p)}
        rx = _prefix_regex(prefix_pattern(prefixes))
        pos = 0
        while True:
            m = rx.search(text, pos)
            if m is None:
                break
            at = m.start()
            p = m.group(0).lower()
            if p in cjk:
                # CJK has no spaces between words: a key matches anywhere, only the key is marked.
                pos = at + len(p)
                _add_match(matches, at, at + len(p), ids[p])
                continue
            if not _starts_part(text, at) or (len(p) <= 2 and not _ends_part(text, at + len(p))):
                pos = at + 1  # every position is tried
                continue
            pos = at + len(p)
            start = at
            while start > 0 and _is_word_at(text, start - 1):
                start -= 1
            end = at + len(p)
            while end < len(text) and _is_word_at(text, end):
                end += 1
            _add_match(matches, start, end, ids[p])
    return matches


def make_snippet(content, keys):
    """About 64 tokens (SNIPPET_CHARS characters) covering the most distinct keys, matches in « »."""
    matches = key_matches(content, snippet_prefixes(keys))
    ws = 0
    if matches:
        best, best_count = -1, -1
        for i in range(min(len(matches), MAX_WINDOW_STARTS)):
            s = max(0, matches[i][0] - LEAD_CHARS)
            e = s + SNIPPET_CHARS
            seen = set()
            count = 0
            j = i
            while j < len(matches) and matches[j][0] < e:
                count += 1
                seen |= matches[j][2]
                j += 1
            j = i - 1
            while j >= 0 and matches[j][0] >= s:
                count += 1
                seen |= matches[j][2]
                j -= 1
            if len(seen) > best or (len(seen) == best and count > best_count):
                best, best_count, ws = len(seen), count, s
    start = ws
    while 0 < start < len(content) and _is_word_at(content, start - 1) and _is_word_at(content, start):
        start += 1
    end = min(len(content), ws + SNIPPET_CHARS)
    limit = min(len(content), end + MAX_WORD_EXTENSION)
    while end < limit and end > 0 and _is_word_at(content, end - 1) and _is_word_at(content, end):
        end += 1
    out = []
    pos = start
    for m_start, m_end, _ in matches:
        if m_end <= start or m_start < start:
            continue
        if m_start >= end:
            break
        stop = min(m_end, end)
        out.append(content[pos:m_start] + "«" + content[m_start:stop] + "»")
        pos = stop
    out.append(content[pos:end])
    body = _WS.sub(" ", "".join(out)).strip(" ")
    return ("…" if start > 0 else "") + body + ("…" if end < len(content) else "")


# --- search.ts ----------------------------------------------------------------------------------
_stats = {}  # id(conn) -> (conn, stats); bounded, connections cannot be weakly referenced
_MAX_CACHED_CONNECTIONS = 8
_MAX_CACHED_SPANS = 32


def _one(conn, sql, params=()):
    return conn.execute(sql, params).fetchone()


def _corpus_stats(conn):
    max_seq = _one(conn, "SELECT coalesce(max(seq), 0) AS m FROM events")[0]
    entry = _stats.get(id(conn))
    st = entry[1] if entry is not None and entry[0] is conn else None
    if st is not None and st["max_seq"] == max_seq:
        return st
    if st is not None and st["max_seq"] < max_seq:
        total = st["total"] + _one(conn, "SELECT count(*) AS n FROM events WHERE seq > ?", (st["max_seq"],))[0]
    else:
        total = _one(conn, "SELECT count(*) AS n FROM events")[0]
    # Whole-log frequencies survive growth: see _scope_df (decisions stay exact).
    df = st["df"] if st is not None and len(st["df"]) < 50000 else {}
    st = {"max_seq": max_seq, "total": total, "df": df, "spans": {}}
    if len(_stats) >= _MAX_CACHED_CONNECTIONS and id(conn) not in _stats:
        _stats.clear()
    _stats[id(conn)] = (conn, st)
    return st


def _scope_df(conn, plan):
    """(total, is_common(stem, fts)) for the searched scope: the whole log, or the bounded seq span."""
    st = _corpus_stats(conn)
    if plan["lo"] is None and plan["hi"] is None:
        def is_common(stem, fts):
            seen = st["df"].get(stem)
            if seen is not None:
                # Since it was read, the frequency grew by at most the events added (append-only).
                added = st["total"] - seen[1]
                if seen[0] > st["total"] * COMMON_SHARE:
                    return True
                if seen[0] + added <= st["total"] * COMMON_SHARE:
                    return False
            row = _one(conn, "SELECT doc FROM events_vocab WHERE term = ?", (stem,))
            n = int(row[0]) if row else 0
            st["df"][stem] = (n, st["total"])
            return n > st["total"] * COMMON_SHARE

        def events_with(stem, fts):
            row = _one(conn, "SELECT doc FROM events_vocab WHERE term = ?", (stem,))
            n = int(row[0]) if row else 0
            st["df"][stem] = (n, st["total"])
            return n
        return st["total"], is_common, events_with
    lo = plan["lo"] if plan["lo"] is not None else 0
    hi = plan["hi"] if plan["hi"] is not None else st["max_seq"]
    key = "%d:%d" % (lo, hi)
    span = st["spans"].get(key)
    if span is None:
        if len(st["spans"]) >= _MAX_CACHED_SPANS:
            st["spans"].clear()
        span = {"total": _one(conn, "SELECT count(*) AS n FROM events WHERE seq BETWEEN ? AND ?", (lo, hi))[0], "df": {}}
        st["spans"][key] = span

    def span_is_common(stem, fts):
        n = span["df"].get(stem)
        if n is None:
            n = int(_one(conn, "SELECT count(*) AS n FROM events_fts WHERE events_fts MATCH ? AND rowid BETWEEN ? AND ?",
                         (fts, lo, hi))[0])
            span["df"][stem] = n
        return n > span["total"] * COMMON_SHARE

    def span_events_with(stem, fts):
        n = span["df"].get(stem)
        if n is None:
            n = int(_one(conn, "SELECT count(*) AS n FROM events_fts WHERE events_fts MATCH ? AND rowid BETWEEN ? AND ?",
                         (fts, lo, hi))[0])
        return n
    return span["total"], span_is_common, span_events_with


def _as_list(v):
    if v is None:
        return None
    xs = [x for x in (v if isinstance(v, (list, tuple, set, frozenset)) else [v]) if isinstance(x, str)]
    return xs or None


def _clamp_int(v, default, lo, hi):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not math.isfinite(v)):
        n = default
    else:
        n = int(v)
    return min(hi, max(lo, n))


def _finite(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _plan_filters(conn, kind, role, session, name, seq_range, ts_range, source=None):
    plan = {"lo": None, "hi": None, "where": [], "params": [], "empty": False, "kinds": None, "session": None}
    seq_from, seq_to = (seq_range if seq_range is not None else (None, None))
    if _finite(seq_from):
        plan["lo"] = math.ceil(seq_from)
    if _finite(seq_to):
        plan["hi"] = math.floor(seq_to)
    kinds = _as_list(kind)
    if kinds:
        plan["kinds"] = kinds
        plan["where"].append("e.kind IN (%s)" % ", ".join("?" * len(kinds)))
        plan["params"].extend(kinds)
    roles = _as_list(role)
    if roles:
        plan["where"].append("e.role IN (%s)" % ", ".join("?" * len(roles)))
        plan["params"].extend(roles)
    if isinstance(session, str):
        plan["session"] = session
        plan["where"].append("e.session = ?")
        plan["params"].append(session)
        b = _one(conn, "SELECT (SELECT seq FROM events WHERE session = ? ORDER BY seq LIMIT 1) AS lo, "
                       "(SELECT seq FROM events WHERE session = ? ORDER BY seq DESC LIMIT 1) AS hi", (session, session))
        if b[0] is None:
            plan["empty"] = True
        else:
            plan["lo"] = b[0] if plan["lo"] is None else max(plan["lo"], b[0])
            plan["hi"] = b[1] if plan["hi"] is None else min(plan["hi"], b[1])
    if isinstance(name, str):
        plan["where"].append("e.name = ?")
        plan["params"].append(name)
    ts_from, ts_to = (ts_range if ts_range is not None else (None, None))
    if isinstance(ts_from, str):
        plan["where"].append("e.ts >= ?")
        plan["params"].append(ts_from)
    if isinstance(ts_to, str):
        plan["where"].append("e.ts <= ?")
        plan["params"].append(ts_to)
    if isinstance(source, str):
        # Captured events name the agent whose transcript they came from (search.ts planFilters).
        plan["where"].append("json_extract(e.meta, '$.source') = ?")
        plan["params"].append(source)
    if plan["lo"] is not None and plan["hi"] is not None and plan["lo"] > plan["hi"]:
        plan["empty"] = True
    return plan


def _ranked_seqs(conn, match, plan, limit):
    conds = ["events_fts MATCH ?"]
    params = [match]
    if plan["lo"] is not None:
        conds.append("f.rowid >= ?")
        params.append(plan["lo"])
    if plan["hi"] is not None:
        conds.append("f.rowid <= ?")
        params.append(plan["hi"])
    index_only = len(plan["where"]) == (plan["kinds"] is not None) + (plan["session"] is not None)
    if not plan["where"]:
        sql = ("SELECT f.rowid AS seq, %s AS r FROM events_fts f WHERE %s ORDER BY r, f.rowid DESC LIMIT ?"
               % (_RANK, " AND ".join(conds)))
    elif index_only:
        # As search.ts: kind and session are read from their (x, seq) indexes, not from each row.
        if plan["kinds"] is not None:
            conds.append("EXISTS (SELECT 1 FROM events k INDEXED BY events_kind_seq WHERE k.kind IN (%s) AND k.seq = f.rowid)"
                         % ", ".join("?" * len(plan["kinds"])))
            params.extend(plan["kinds"])
        if plan["session"] is not None:
            conds.append("EXISTS (SELECT 1 FROM events s INDEXED BY events_session_seq WHERE s.session = ? AND s.seq = f.rowid)")
            params.append(plan["session"])
        sql = ("SELECT f.rowid AS seq, %s AS r FROM events_fts f WHERE %s ORDER BY r, f.rowid DESC LIMIT ?"
               % (_RANK, " AND ".join(conds)))
    else:
        sql = ("SELECT f.rowid AS seq, %s AS r FROM events_fts f CROSS JOIN events e ON e.seq = f.rowid "
               "WHERE %s AND %s ORDER BY r, f.rowid DESC LIMIT ?" % (_RANK, " AND ".join(conds), " AND ".join(plan["where"])))
        params.extend(plan["params"])
    params.append(limit)
    return conn.execute(sql, params).fetchall()


_EPOCH = _date(1970, 1, 1)
_ISO_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")


def day_number(ts):
    """Days since 1970-01-01 of an ISO timestamp or date; -1 when it does not parse (search.ts dayNumber)."""
    m = _ISO_DAY.match(str(ts or ""))
    if not m:
        return -1
    try:
        return (_date(int(m.group(1)), int(m.group(2)), int(m.group(3))) - _EPOCH).days
    except ValueError:
        return -1


def _read_texts(conn, seqs, texts):
    """Adds the stored text of each of `seqs` not yet in `texts` (search.ts eachStoredText); returns `texts`."""
    seqs = [x for x in seqs if x not in texts]
    for i in range(0, len(seqs), 500):
        chunk = seqs[i:i + 500]
        for row in conn.execute("SELECT seq, content FROM events WHERE seq IN (%s)" % ", ".join("?" * len(chunk)), chunk):
            texts[int(row[0])] = row[1] if isinstance(row[1], str) else "" if row[1] is None else str(row[1])
    return texts


def _events_holding(texts, kinds):
    """Of the events whose text is given, those holding a cue of one of `kinds` (search.ts eventsHolding)."""
    return {seq for seq, text in texts.items() if holds_answer_type(text, kinds)}


def term_prefixes(terms):
    """The snippet prefixes of every term and, for each, the term it belongs to (proximity.ts termPrefixes)."""
    prefixes, term_of = [], []
    for i, t in enumerate(terms):
        for p in snippet_prefixes(t["keys"]):
            if p not in prefixes:
                prefixes.append(p)
                term_of.append(i)
    return prefixes, term_of, len(terms)


def near_pair_share(text, tp):
    """The share of the query's adjacent term pairs whose words start within PROXIMITY_WINDOW
    characters of each other in `text` (proximity.ts nearPairShare)."""
    prefixes, term_of, n = tp
    pairs = n - 1
    if pairs < 1 or not prefixes:
        return 0
    last = [-math.inf] * n
    near = [False] * pairs
    for start, _, keys in key_matches(text, prefixes):
        for key in keys:
            i = term_of[key]
            if i > 0 and start - last[i - 1] <= PROXIMITY_WINDOW:
                near[i - 1] = True
            if i < pairs and start - last[i + 1] <= PROXIMITY_WINDOW:
                near[i] = True
            last[i] = start
    return sum(near) / pairs


def _events_of_kind(conn, seqs, kind):
    """Of `seqs`, the events of kind `kind` (search.ts: seqsPassingFilters with that kind)."""
    out = set()
    for i in range(0, len(seqs), 500):
        chunk = seqs[i:i + 500]
        for row in conn.execute("SELECT seq FROM events WHERE seq IN (%s) AND kind = ?" % ", ".join("?" * len(chunk)), list(chunk) + [kind]):
            out.add(int(row[0]))
    return out


def _with_context(conn, matched, plan, window, answer=None, about_user=False, terms=()):
    """Proximity, context, sitting (same session and day, within SITTING_WINDOW seqs), date-window, answer-type and user-message re-ranking (search.ts withContext)."""
    if not matched:
        return []
    texts = {}  # each event's stored text, read once for whichever lift needs it
    if len(terms) > 1 and PROXIMITY_SHARE > 0:
        tp = term_prefixes(terms)
        _read_texts(conn, list(matched), texts)
        for seq in list(matched):
            text = texts.get(seq)
            share = 0 if text is None else near_pair_share(text, tp)
            if share > 0:
                score, precise = matched[seq]
                matched[seq] = (score * (1 + PROXIMITY_SHARE * share), precise)
    best = sorted(matched.items(), key=lambda e: (0 if e[1][1] else 1, -e[1][0], -e[0]))[:CONTEXT_OF]
    around = set(matched)  # every candidate is placed: a sitting lifts all its candidates alike
    for seq, _ in best:
        for d in range(-2, 3):
            x = seq + d
            if x < 1 or (plan["lo"] is not None and x < plan["lo"]) or (plan["hi"] is not None and x > plan["hi"]):
                continue
            around.add(x)
    seqs = sorted(around)
    place = {}
    flt = (" AND " + " AND ".join(plan["where"])) if plan["where"] else ""
    for i in range(0, len(seqs), 500):
        chunk = seqs[i:i + 500]
        sql = "SELECT e.seq AS seq, e.session AS session, e.ts AS ts FROM events e WHERE e.seq IN (%s)%s" % (
            ", ".join("?" * len(chunk)), flt)
        for row in conn.execute(sql, list(chunk) + list(plan["params"])):
            place[int(row[0])] = (row[1], day_number(row[2]))
    # The placed candidates of a known day, by seq: each event's sitting is read from them.
    dated = []
    top = 0
    for seq, (score, _) in matched.items():
        p = place.get(seq)
        if p is None:
            continue
        if p[1] >= 0:
            dated.append((seq, score, p))
        if score > top:
            top = score
    dated.sort(key=lambda c: c[0])
    dated_seqs = [c[0] for c in dated]

    def best_of_sitting(seq, p):
        """The best candidate of the same session and day at most SITTING_WINDOW seqs away (search.ts bestOfSitting)."""
        lo = bisect.bisect_left(dated_seqs, seq - SITTING_WINDOW)
        best = 0
        for c_seq, c_score, c_place in dated[lo:]:
            if c_seq > seq + SITTING_WINDOW:
                break
            if c_place == p and c_score > best:
                best = c_score
        return best

    def score_at(x, p):
        m = matched.get(x)
        return m[0] if m is not None and place.get(x) == p else 0

    def near(seq, d, p):
        return max(score_at(seq - d, p), score_at(seq + d, p))

    out = []
    for seq in seqs:
        p = place.get(seq)
        if p is None:
            continue
        own = matched.get(seq)
        score = (own[0] if own is not None else 0) + CONTEXT_NEAR * near(seq, 1, p) + CONTEXT_FAR * near(seq, 2, p)
        score += SEGMENT_SHARE * (best_of_sitting(seq, p) if p[1] >= 0 else 0)
        if window is not None and window[0] <= p[1] < window[1]:
            score += DATE_SHARE * top
        if score <= 0:
            continue
        precise = own is not None and own[1]
        out.append((seq, score, "every" if precise else "some" if own is not None else "context"))
    if answer is not None and ANSWER_TYPE_SHARE > 0:
        typed = _events_holding(_read_texts(conn, [r[0] for r in out], texts), answer)
        out = [(seq, score * (1 + ANSWER_TYPE_SHARE) if seq in typed else score, m) for seq, score, m in out]
    if about_user and SELF_SHARE > 0:
        own = _events_of_kind(conn, [r[0] for r in out], "user_message")
        out = [(seq, score * (1 + SELF_SHARE) if seq in own else score, m) for seq, score, m in out]
    out.sort(key=_by_score)
    return out


def _by_score(r):
    """Best first; ties newest seq first (search.ts byScore)."""
    return (-r[1], -r[0])


# search.ts DAMAGED_INDEX_HINT: the index is derived from the log, which can rebuild it.
DAMAGED_INDEX_HINT = "the search index may be damaged: `scroll reindex` rebuilds it from the log"


def _failed(result, exc):
    """A search the database could not answer: a message (with a way out when damaged), no raise."""
    result["message"] = "search failed: %s" % exc
    if re.search(r"malformed|corrupt", str(exc), re.I):
        result["message"] += " (%s)" % DAMAGED_INDEX_HINT
    return result


def nothing_to_search(query):
    """Why a query has no terms (search.ts nothingToSearch)."""
    if re.search(r"\S", query if isinstance(query, str) else str(query or "")):
        return "nothing to search: the query has no letters or digits (emoji, symbols and punctuation are not indexed)"
    return "nothing to search: the query is empty"


def _rank_page(conn, terms, plan, k, offset, window=None, answer=None, about_user=False):
    """One page of the fixed ranked list and how many events the first candidate queries matched
    (search.ts rankPage). Entries are (seq, score, match)."""
    and_query = " AND ".join(t["fts"] for t in terms)
    or_query = " OR ".join(t["fts"] for t in terms)

    def ranks(match, first, limit):
        # A query that returned fewer rows than it asked for returned every match (see search.ts).
        if len(first) < MIN_CANDIDATES or limit <= len(first):
            return first[:limit]
        return _ranked_seqs(conn, match, plan, limit)
    matched = {}
    and_first = _ranked_seqs(conn, and_query, plan, MIN_CANDIDATES)
    for seq, r in and_first:
        matched[int(seq)] = (-r, True)
    broaden = len(terms) > 1 and len(matched) < min(k, BROADEN_BELOW)
    or_first = []
    if broaden:
        or_first = _ranked_seqs(conn, or_query, plan, MIN_CANDIDATES)
        for seq, r in or_first:
            if int(seq) not in matched:
                matched[int(seq)] = (-r, False)
    head = _with_context(conn, matched, plan, window, answer, about_user, terms)
    # One fixed list by score, whatever the page (see search.ts).
    pool = {h[0]: h for h in head}
    for seq, (score, precise) in matched.items():
        if seq not in pool:
            pool[seq] = (seq, score, "every" if precise else "some")
    want = offset + k
    first = or_first if broaden else and_first
    if len(first) >= MIN_CANDIDATES and want > len(pool) - len(head):
        precise_seqs = set(int(seq) for seq, _ in and_first)
        for seq, r in ranks(or_query if broaden else and_query, first, want + len(head)):
            seq = int(seq)
            listed = pool.get(seq)
            if listed is not None:
                if listed[2] == "context":  # a neighbour the deeper fetch shows to be a match (search.ts)
                    every = not broaden or seq in precise_seqs
                    pool[seq] = (seq, listed[1], "every" if every else "some")
                continue
            every = not broaden or seq in precise_seqs
            pool[seq] = (seq, -r, "every" if every else "some")
    ranked = sorted(pool.values(), key=_by_score)
    return ranked[offset:offset + k], len(matched)


def search(conn, query, k=10, kind=None, role=None, session=None, name=None, seq_range=None, ts_range=None,
           offset=0, snippet=True, source=None):
    """Search the event log. Returns dict(hits, broadened, terms, pruned, message, and ignored when
    common words were pruned); each hit is a dict
    {seq, score, kind, role, session, ts, name, headline, snippet, broadened, match}, best first.
    Never raises on query text: problems come back in `message`."""
    k = _clamp_int(k, DEFAULT_K, 1, MAX_K)
    offset = _clamp_int(offset, 0, 0, MAX_OFFSET)
    parsed = parse_query(query)
    pruned = list(parsed["stopped"])
    if not parsed["terms"]:
        return {"hits": [], "broadened": False, "terms": [], "pruned": pruned, "message": nothing_to_search(query)}
    plan = _plan_filters(conn, kind, role, session, name, seq_range, ts_range, source)
    terms = parsed["terms"]
    ignored = []
    failure = None
    if len(terms) > 1 and not plan["empty"]:
        try:
            total, is_common, events_with = _scope_df(conn, plan)
            if total > 0:
                common = [t["type"] == "word" and is_common(stem_key(t["text"]), t["fts"]) for t in terms]
                kept = [t for t, c in zip(terms, common) if not c]
                if 0 < len(kept) < len(terms):
                    ignored = [{"word": t["text"], "events": events_with(stem_key(t["text"]), t["fts"]), "of": total}
                               for t, c in zip(terms, common) if c]
                    terms = kept
        except sqlite3.Error as exc:
            failure = exc  # the index could not be read: reported like a failed query
    result = {"hits": [], "broadened": False, "terms": [t["text"] for t in terms], "pruned": pruned,
              "message": parsed["message"]}

    def finish():
        if ignored:
            result["pruned"] = pruned + [w["word"] for w in ignored]
            result["ignored"] = ignored
        return result
    if failure is not None:
        return _failed(result, failure)
    if plan["empty"]:
        return finish()
    try:
        page, matches = _rank_page(conn, terms, plan, k, offset, parsed.get("window"), parsed.get("answer"), parsed.get("about_user", False))
        if matches == 0 and ignored:
            # The words kept match nothing: search every word instead (see search.ts).
            terms = parsed["terms"]
            ignored = []
            result["terms"] = [t["text"] for t in terms]
            page, matches = _rank_page(conn, terms, plan, k, offset, parsed.get("window"), parsed.get("answer"), parsed.get("about_user", False))
    except sqlite3.Error as exc:
        return _failed(finish(), exc)
    finish()
    result["broadened"] = any(m != "every" for _, _, m in page)
    if not page:
        return result
    cols = "seq, session, kind, role, name, ts, headline" + ("" if snippet is False else ", content")
    rows = {}
    for row in conn.execute("SELECT %s FROM events WHERE seq IN (%s)" % (cols, ", ".join("?" * len(page))),
                            [s for s, _, _ in page]):
        rows[int(row[0])] = row
    keys = _unique([key for t in terms for key in t["keys"]])  # snippet.ts gets the same list
    for seq, score, match in page:
        row = rows.get(seq)
        if row is None:
            continue
        result["hits"].append({
            "seq": seq, "score": score, "kind": row[2], "role": row[3], "session": row[1], "ts": row[5],
            "name": row[4], "headline": row[6],
            "snippet": "" if snippet is False else make_snippet(row[7] or "", keys),
            "broadened": match != "every", "match": match,
        })
    return result
