"""Scroll memory space: read-only access to this workspace's event log.

`ms` is your whole history (every message, tool call, kernel cell and output), never trimmed.
Only what you print reaches your next context; keep full data in variables, print slices.

    hits = ms.search("retry backoff", k=5)   # LOCATE: ranked hits with seq addresses
    evs  = ms.expand(hits)                     # MATERIALIZE: full, untruncated events
    ms.range(120, 140); ms.recent(20)          # neighbourhoods by seq
    ms.sql("SELECT kind, count(*) FROM events GROUP BY kind")
    ms.index()                                 # map of evicted regions (seq spans + titles)

Python stdlib only (3.9+). The database is opened read-only: any write raises.
"""

import os
import re
import sqlite3

from scroll_types import (MAX_RANGE_EVENTS, MAX_SQL_ROWS, Event, Hit, Hits, Rows, ScrollReadOnlyError,  # noqa: F401
                          _AttrDict, _check_search, _int, _json_obj, _pair, _seqs_of, parse_payload_text)

__all__ = ["connect", "MemorySpace", "Hit", "Hits", "Event", "Rows", "ScrollReadOnlyError"]
_HANDLE_RE = re.compile(r"^[0-9a-f]{64}$")

_EVENT_COLUMNS = (
    "seq, session, kind, role, name, content, payload, bytes, tokens, ts, step, "
    "tool_call_id, parent_seq, headline, meta"
)


def _ro_uri(path):
    # Percent-encode what would otherwise end the path part of a URI.
    quoted = path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    return "file:%s?mode=ro" % quoted


def connect(db_path, payload_dir=None, session=None):
    """Open the event log at `db_path` read-only and return a MemorySpace.
    `payload_dir` defaults to `payloads/` beside the database; `session` scopes `scope='session'`,
    `recent()` and `index()`."""
    return MemorySpace(db_path, payload_dir=payload_dir, session=session)


class MemorySpace:
    """Your lossless history, read-only. Methods (see help(ms.search) etc.):
      search(query, k=10, kind=None, role=None, session=None, seq_range=None, scope='all', source=None) -> Hits
      expand(x) -> [Event]        x: a seq, a list of seqs, a Hit or a list of hits
      range(a, b) -> [Event]      events with a <= seq <= b
      recent(n=20) -> [Event]     the last n events of this session, oldest first
      payload(handle) -> str | bytes | parsed JSON
      sql(query, params=()) -> Rows (read-only, at most 1,000 rows, .truncated)
      index() -> [dict]           eviction index of this session: seq spans, level, title
    Attributes: session (this session's id), db_path. Only printed output reaches the model."""

    def __init__(self, db_path, payload_dir=None, session=None):
        db_path = os.path.abspath(os.fspath(db_path))
        if not os.path.isfile(db_path):
            raise FileNotFoundError("scroll: no event log at %s" % db_path)
        self.db_path = db_path
        self.payload_dir = os.path.abspath(payload_dir) if payload_dir else os.path.join(os.path.dirname(db_path), "payloads")
        self.session = session
        self._conn = sqlite3.connect(_ro_uri(db_path), uri=True, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        # Belt and braces: mode=ro already makes SQLite refuse writes; query_only covers ATTACHed files.
        self._conn.execute("PRAGMA query_only = 1")
        self._conn.execute("PRAGMA busy_timeout = 5000")
        # Same read tuning as the TypeScript side (src/core/db/index.ts): pages through a
        # memory map and a 32 MB cache make FTS5 searches faster on large logs.
        self._conn.execute("PRAGMA mmap_size = 268435456")
        self._conn.execute("PRAGMA cache_size = -32768")

    def __repr__(self):
        return "<ms: event log %s, session %s — help(ms) lists the methods>" % (self.db_path, self.session)

    def close(self):
        """Close the read-only connection."""
        self._conn.close()

    # -- LOCATE ---------------------------------------------------------------------------------
    def search(self, query, k=10, kind=None, role=None, session=None, seq_range=None, scope="all",
               name=None, ts_range=None, offset=0, snippet=True, source=None):
        """Full-text search (BM25, stemmed) over the whole log; returns Hits, best first.
        Filters: kind/role (str or list), session, name (tool name), seq_range=(a, b) inclusive,
        ts_range=(iso_a, iso_b), source (the agent a captured event came from: 'claude-code',
        'codex', 'copilot-chat', ...); scope='session' limits to this session. Paging: offset.
        Stop words and very common terms are dropped; if the exact (AND) query finds too little it
        retries as OR and marks hits `broadened` — check `.broadened` before trusting a count.
        Each hit: seq, score, kind, role, session, ts, name, headline, snippet («matched» terms)."""
        _check_search(query, scope, source)
        if scope == "session":
            if session is None:
                session = self.session
            if session is None:
                raise ValueError("ms.search: scope='session' but this memory space has no session")
        if seq_range is not None:
            seq_range = _pair("seq_range", seq_range)
        if ts_range is not None:
            ts_range = _pair("ts_range", ts_range)
        try:
            import scroll_search
        except ImportError as exc:
            raise RuntimeError("ms.search: the search module (kernel/scroll_search.py) is missing") from exc
        res = scroll_search.search(self._conn, query, k=int(k), kind=kind, role=role, session=session,
                                   name=name, seq_range=seq_range, ts_range=ts_range, offset=int(offset),
                                   snippet=snippet, source=source)
        hits = [Hit(_plain(h)) for h in res.get("hits", [])]
        return Hits(hits, res.get("broadened", False), res.get("terms", ()), res.get("pruned", ()),
                    res.get("message"))

    # -- MATERIALIZE ----------------------------------------------------------------------------
    def expand(self, x):
        """Full events for a seq, a list of seqs, a Hit/dict with 'seq', or a list of hits.
        Always returns a list of Event in the order asked (content complete, payloads resolved).
        Unknown seqs raise KeyError naming them."""
        seqs = _seqs_of(x)
        if not seqs:
            return []
        found = {}
        for i in range(0, len(seqs), 500):
            chunk = seqs[i: i + 500]
            q = "SELECT %s FROM events WHERE seq IN (%s)" % (_EVENT_COLUMNS, ",".join("?" * len(chunk)))
            for row in self._conn.execute(q, chunk):
                found[row["seq"]] = row
        missing = [s for s in seqs if s not in found]
        if missing:
            raise KeyError("ms.expand: no event with seq %s (max seq is %s)" % (
                ", ".join(str(s) for s in missing[:10]) + (" ..." if len(missing) > 10 else ""), self._max_seq()))
        return [self._event(found[s]) for s in seqs]

    def range(self, a, b):
        """Full events with a <= seq <= b (inclusive), oldest first. At most 10,000 events."""
        a, b = _int("a", a), _int("b", b)
        if a > b:
            raise ValueError("ms.range: a (%d) must be <= b (%d)" % (a, b))
        if b - a >= MAX_RANGE_EVENTS:
            raise ValueError("ms.range: span of %d seqs is too wide (limit %d); narrow it or page through it"
                             % (b - a + 1, MAX_RANGE_EVENTS))
        q = "SELECT %s FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq" % _EVENT_COLUMNS
        return [self._event(r) for r in self._conn.execute(q, (a, b))]

    def recent(self, n=20, session=None):
        """The last n events of this session (or of `session`; the whole log when there is no
        session), oldest first, full content."""
        n = _int("n", n)
        if n <= 0:
            return []
        session = session if session is not None else self.session
        if session is None:
            rows = self._conn.execute("SELECT %s FROM events ORDER BY seq DESC LIMIT ?" % _EVENT_COLUMNS, (n,))
        else:
            rows = self._conn.execute(
                "SELECT %s FROM events WHERE session = ? ORDER BY seq DESC LIMIT ?" % _EVENT_COLUMNS, (session, n))
        return [self._event(r) for r in reversed(rows.fetchall())]

    def payload(self, handle):
        """The full content stored under a payload handle (sha256 hex): parsed JSON when it is
        JSON, else text, else bytes."""
        return parse_payload_text(self._payload_bytes(handle))

    # -- COMPUTE helpers ------------------------------------------------------------------------
    def sql(self, query, params=()):
        """Run one read-only SQL statement; returns Rows (list of dicts) with `.columns` and
        `.truncated` (True when more than 1,000 rows matched). Tables: events(seq, session, kind,
        role, name, content, payload, bytes, tokens, ts, step, tool_call_id, parent_seq, headline,
        meta). `content` is a preview when `payload` is set — use ms.expand for the full text."""
        if not isinstance(query, str):
            raise TypeError("ms.sql: query must be a string")
        try:
            cur = self._conn.execute(query, params)
        except sqlite3.OperationalError as exc:
            if "readonly" in str(exc) or "read-only" in str(exc) or "query_only" in str(exc):
                raise ScrollReadOnlyError("ms.sql: the event log is read-only (%s)" % exc) from None
            raise
        except (sqlite3.Warning, sqlite3.ProgrammingError) as exc:
            if "one statement" in str(exc):
                raise ValueError("ms.sql: run one statement at a time") from None
            raise
        columns = [d[0] for d in (cur.description or ())]
        raw = cur.fetchmany(MAX_SQL_ROWS + 1)
        truncated = len(raw) > MAX_SQL_ROWS
        rows = [_AttrDict(zip(columns, r)) for r in raw[:MAX_SQL_ROWS]]
        return Rows(rows, columns, truncated)

    def index(self, session=None):
        """The eviction index of this session as it stands now: one dict per block, oldest first,
        with its seq span ('from_seq'/'to_seq'), 'level' (0 = one eviction, higher = merged) and
        'title' ({task, state, next}), plus 'event_seq' (the eviction event that recorded it).
        Evicted turns are still in the log: ms.range(b['from_seq'], b['to_seq'])."""
        session = session if session is not None else self.session
        if session is None:
            rows = self._conn.execute("SELECT seq, meta FROM events WHERE kind = 'eviction' ORDER BY seq").fetchall()
        else:
            rows = self._conn.execute(
                "SELECT seq, meta FROM events WHERE kind = 'eviction' AND session = ? ORDER BY seq", (session,)).fetchall()
        if not rows:
            return []
        # The agent records the whole (merged) index after each eviction: the last one is current.
        # The contract (src/core/log/eventMeta.ts, held by test/vectors/eviction-vectors.json):
        # indexFromSnapshot / indexFromBlocks.
        evictions = [(row["seq"], _json_obj(row["meta"])) for row in rows]
        entries = _index_from_snapshot(evictions[-1])
        if entries is None:
            entries = _index_from_blocks(evictions)
        return [_AttrDict(e) for e in entries]

    # -- internals ------------------------------------------------------------------------------
    def _max_seq(self):
        return self._conn.execute("SELECT max(seq) FROM events").fetchone()[0]

    def _payload_path(self, handle):
        if not isinstance(handle, str) or not _HANDLE_RE.match(handle):
            raise ValueError("ms.payload: %r is not a payload handle (64 lowercase hex characters)" % (handle,))
        return os.path.join(self.payload_dir, handle[:2], handle)

    def _payload_bytes(self, handle):
        path = self._payload_path(handle)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise FileNotFoundError("ms.payload: payload %s is missing from %s" % (handle, self.payload_dir)) from None
        import hashlib
        if hashlib.sha256(data).hexdigest() != handle:
            raise ValueError("ms.payload: payload %s is damaged (its bytes no longer match its sha256)" % handle)
        return data

    def _event(self, row):
        content = row["content"]
        handle = row["payload"]
        problem = None
        if handle:
            try:
                content = self._payload_bytes(handle).decode("utf-8", errors="replace")
            except (OSError, ValueError) as exc:
                # One unreadable payload must not hide the other events: keep the stored preview.
                problem = str(exc)
        event = Event(
            seq=row["seq"], session=row["session"], kind=row["kind"], role=row["role"], name=row["name"],
            content=content, ts=row["ts"], meta=_json_obj(row["meta"]), step=row["step"],
            tool_call_id=row["tool_call_id"], parent_seq=row["parent_seq"], headline=row["headline"],
            payload=handle, bytes=row["bytes"], tokens=row["tokens"])
        if problem:
            # The same sentence as src/core/log/previewOnly.ts.
            event["payload_error"] = (
                "Only the first %d characters of this event (%d bytes) can be shown: its payload file cannot be read (%s). "
                '"scroll check" or "Scroll: Check History Integrity" lists every such event.' % (len(content), row["bytes"], problem))
        return event


def _index_from_snapshot(last):
    """The last eviction's meta['index'] (a list of dicts), each block with that event's seq as
    'event_seq'; None when the event carries no snapshot. TS: eventMeta.ts indexFromSnapshot."""
    seq, meta = last
    snapshot = meta.get("index")
    if not isinstance(snapshot, list) or not all(isinstance(b, dict) for b in snapshot):
        return None
    return [dict(b, event_seq=seq) for b in snapshot]


def _index_from_blocks(evictions):
    """The blocks each eviction recorded, oldest first, as recorded: meta['blocks'] (a list),
    meta['block'] (a dict) or the meta itself, each with 'event_seq' unless it has one.
    TS: eventMeta.ts indexFromBlocks."""
    out = []
    for seq, meta in evictions:
        blocks = meta.get("blocks") if isinstance(meta.get("blocks"), list) else None
        if blocks is None and isinstance(meta.get("block"), dict):
            blocks = [meta["block"]]
        for block in (blocks if blocks is not None else [meta]):
            entry = dict(block) if isinstance(block, dict) else {"block": block}
            entry.setdefault("event_seq", seq)
            out.append(entry)
    return out


def _plain(h):
    if isinstance(h, dict):
        return h
    if isinstance(h, sqlite3.Row):
        return {k: h[k] for k in h.keys()}
    return dict(h)
