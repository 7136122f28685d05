"""The values `ms` returns (hits, events, SQL rows) and their argument helpers, shared by the
standalone reader (scroll_ms.py) and the kernel's client of the host (scroll_ms_client.py)."""

import json

MAX_SQL_ROWS = 1000
MAX_RANGE_EVENTS = 10000


class ScrollReadOnlyError(PermissionError):
    """Raised when code tries to write the event log through `ms`."""


class _AttrDict(dict):
    """A dict whose keys also read as attributes: `hit.seq` == `hit['seq']`."""

    __slots__ = ()

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class Hit(_AttrDict):
    """One search hit: seq, score, kind, role, session, ts, name, headline, snippet, broadened."""

    __slots__ = ()

    def __repr__(self):
        flag = " (broadened)" if self.get("broadened") else ""
        return "Hit(seq=%s, %s/%s, score=%.3f%s: %s)" % (
            self.get("seq"), self.get("kind"), self.get("role"), self.get("score") or 0.0,
            flag, _one_line(self.get("snippet") or "", 120))


class Hits(list):
    """List of `Hit`, best first. `.broadened` is True when the exact (AND) query found too little
    and the search retried with OR; `.terms`/`.pruned` show the terms used/dropped; `.message`
    explains an empty result."""

    def __init__(self, hits=(), broadened=False, terms=(), pruned=(), message=None):
        super().__init__(hits)
        self.broadened = bool(broadened)
        self.terms = list(terms)
        self.pruned = list(pruned)
        self.message = message

    def __repr__(self):
        head = "Hits(%d%s)" % (len(self), ", broadened" if self.broadened else "")
        if self.message and not self:
            return "%s: %s" % (head, self.message)
        return head + "[" + ", ".join(repr(h) for h in self) + "]"


class Event(_AttrDict):
    """One logged event with its FULL content: seq, session, kind, role, name, content, ts, meta,
    step, tool_call_id, parent_seq, headline, payload (sha256 handle or None), bytes, tokens;
    'payload_error' is set when the full content could not be read (content is then a preview)."""

    __slots__ = ()

    def __repr__(self):
        return "Event(seq=%s, %s/%s, %s chars: %s)" % (
            self.get("seq"), self.get("kind"), self.get("role"), len(self.get("content") or ""),
            _one_line(self.get("content") or "", 100))


class Rows(list):
    """Result of `ms.sql`: a list of dict rows; `.columns` names them; `.truncated` is True when
    more than 1,000 rows matched (only the first 1,000 are here)."""

    def __init__(self, rows=(), columns=(), truncated=False):
        super().__init__(rows)
        self.columns = list(columns)
        self.truncated = bool(truncated)

    def __repr__(self):
        more = " (truncated at %d rows)" % MAX_SQL_ROWS if self.truncated else ""
        return "Rows(%d%s)%s" % (len(self), more, list.__repr__(self[:20]) + (" ..." if len(self) > 20 else ""))


def _one_line(text, limit):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _json_obj(text):
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {"raw": text}
    return value if isinstance(value, dict) else {"value": value}


def _int(name, v):
    if isinstance(v, bool) or not isinstance(v, int):
        try:
            import numbers
            if isinstance(v, numbers.Integral):
                return int(v)
        except ImportError:  # pragma: no cover
            pass
        raise TypeError("%s must be an integer seq, got %r" % (name, v))
    return v


def _check_search(query, scope, source=None):
    """The arguments every `ms.search` checks before it searches (the reader's and the host client's)."""
    if not isinstance(query, str):
        raise TypeError("ms.search: query must be a string, got %s" % type(query).__name__)
    if scope not in ("all", "session"):
        raise ValueError("ms.search: scope must be 'all' or 'session', got %r" % (scope,))
    if source is not None and not isinstance(source, str):
        raise TypeError("ms.search: source must be a string or None, got %r" % (source,))


def _pair(name, v):
    try:
        a, b = v
    except (TypeError, ValueError):
        raise ValueError("ms.search: %s must be a pair (a, b), got %r" % (name, v)) from None
    return (a, b)


def _seqs_of(x):
    """Seqs from a seq, a Hit/dict/Event, or an iterable of those."""
    if isinstance(x, dict):
        if "seq" not in x:
            raise TypeError("ms.expand: a dict needs a 'seq' key")
        return [_int("seq", x["seq"])]
    if isinstance(x, (str, bytes)):
        raise TypeError("ms.expand: expected a seq, a list of seqs or hits, got a string")
    try:
        return [_int("seq", x)]
    except TypeError:
        pass
    try:
        items = list(x)
    except TypeError:
        raise TypeError("ms.expand: expected a seq, a list of seqs or hits, got %s" % type(x).__name__) from None
    out = []
    for item in items:
        if isinstance(item, dict):
            if "seq" not in item:
                raise TypeError("ms.expand: a dict needs a 'seq' key")
            out.append(_int("seq", item["seq"]))
        else:
            out.append(_int("seq", item))
    return out


def parse_payload_text(data):
    """A payload's bytes as `ms.payload` returns them: parsed JSON when it is JSON, else text, else bytes."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    stripped = text.lstrip()
    if stripped[:1] in ("{", "[", '"') or stripped in ("true", "false", "null"):
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text
