"""`ms` in the agent's kernel: a thin client of the host (docs/MEMORY-PROTOCOL.md).

The kernel never opens the event log or the payload files: each call goes to the host process (the
editor or the CLI), which answers from its own read-only connection. Two transports:
- PipeTransport: Scroll's own kernel, over the same JSON-lines pipes as its cells;
- SocketTransport: a Jupyter kernel, over a local socket (or named pipe) the host opened, with a
  per-session token.
Stdlib only; same values as the standalone reader (scroll_types).
"""

import json

from scroll_types import (Event, Hit, Hits, Rows, ScrollReadOnlyError, _AttrDict, _check_search, _int, _pair, _seqs_of,
                          parse_payload_text)

__all__ = ["HostMemorySpace", "PipeTransport", "SocketTransport", "UnavailableMemorySpace", "connect_socket"]

_ERRORS = {
    "KeyError": KeyError,
    "ValueError": ValueError,
    "TypeError": TypeError,
    "PermissionError": ScrollReadOnlyError,
    "TimeoutError": TimeoutError,
    "RuntimeError": RuntimeError,
}


class _Calls:
    """Numbers calls and waits for the reply with the same number. A reply with another number is
    stale (its call was interrupted by SIGINT or the cell's time limit) and is dropped."""

    def __init__(self):
        self.next_id = 0

    def call(self, method, args):
        self.next_id += 1
        cid = self.next_id
        closed = "ms: the host closed the memory channel; `ms` is not available any more"
        try:
            self.write({"ms_call": cid, "method": method, "args": args})
        except (BrokenPipeError, ConnectionResetError):  # closed before we wrote: the same as closed before the reply
            raise RuntimeError(closed) from None
        while True:
            try:
                raw = self.readline()
            except ConnectionResetError:
                raise RuntimeError(closed) from None
            if not raw:
                raise RuntimeError(closed)
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(msg, dict) or msg.get("ms_reply") != cid:
                continue
            err = msg.get("error")
            if err:
                kind = _ERRORS.get(err.get("type"), RuntimeError)
                raise kind(err.get("message") or "ms.%s failed" % method)
            return msg.get("result")


class PipeTransport(_Calls):
    """Scroll's own kernel: `send` writes one protocol line; `reader` is the protocol's stdin."""

    def __init__(self, reader, send):
        super().__init__()
        self.reader = reader
        self.send = send

    def write(self, obj):
        self.send(obj)

    def readline(self):
        return self.reader.readline()


class SocketTransport(_Calls):
    """A Jupyter kernel: a Unix socket (or a Windows named pipe) opened by the host."""

    def __init__(self, address, token, timeout=10.0):
        super().__init__()
        if address.startswith("\\\\.\\pipe\\"):
            self._file = open(address, "r+b", buffering=0)
            self._sock = None
            self._reader = self._file
        else:
            import socket
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._sock.settimeout(timeout)
            self._sock.connect(address)
            self._sock.settimeout(None)
            self._file = None
            self._reader = self._sock.makefile("rb")
        self._send_line({"token": token})

    def _send_line(self, obj):
        data = json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n"
        if self._sock is not None:
            self._sock.sendall(data)
        else:
            self._file.write(data)
            self._file.flush()

    def write(self, obj):
        self._send_line(obj)

    def readline(self):
        return self._reader.readline()

    def close(self):
        for f in (self._reader, self._sock, self._file):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass


def connect_socket(address, token, session=None):
    """`ms` over the host's local channel, or an UnavailableMemorySpace saying why not."""
    try:
        return HostMemorySpace(SocketTransport(address, token), session=session)
    except OSError as exc:
        return UnavailableMemorySpace(
            "`ms` is not available in this kernel: it cannot reach the editor's memory channel (%s). "
            "A remote Jupyter kernel cannot; use Scroll's own kernel (scroll.kernel.backend: subprocess)." % exc)


class UnavailableMemorySpace:
    """Stands in for `ms` where the host cannot be reached; every use says why."""

    def __init__(self, reason):
        self._reason = reason

    def __getattr__(self, name):
        if name.startswith("_"):  # private and dunder lookups (getattr(ms, "_t", None), copy, pickle) find nothing
            raise AttributeError(name)
        raise RuntimeError(self._reason)

    def __repr__(self):
        return "<ms: unavailable — %s>" % self._reason


class HostMemorySpace:
    """Your lossless history, read-only, answered by the editor (or the CLI) that runs this kernel.
      search(query, k=10, kind=None, role=None, session=None, seq_range=None, scope='all', source=None) -> Hits
      expand(x) -> [Event]        x: a seq, a list of seqs, a Hit or a list of hits
      range(a, b) -> [Event]      events with a <= seq <= b
      recent(n=20) -> [Event]     the last n events of this session, oldest first
      payload(handle) -> str | bytes | parsed JSON
      sql(query, params=()) -> Rows (read-only, at most 1,000 rows, .truncated)
      index() -> [dict]           eviction index of this session: seq spans, level, title
    Attribute: session (this session's id). Only printed output reaches the model."""

    def __init__(self, transport, session=None):
        self._t = transport
        self.session = session

    def __repr__(self):
        return "<ms: the workspace's event log (read-only, through the host), session %s — help(ms) lists the methods>" % (
            self.session,)

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
        args = {"query": query, "k": _int("k", k), "kind": _names("kind", kind), "role": _names("role", role),
                "session": _opt_str("session", session), "name": _opt_str("name", name),
                "seq_range": list(_pair("seq_range", seq_range)) if seq_range is not None else None,
                "ts_range": list(_pair("ts_range", ts_range)) if ts_range is not None else None,
                "offset": _int("offset", offset), "snippet": bool(snippet), "scope": scope,
                "source": source}
        res = self._t.call("search", args) or {}
        hits = [Hit(h) for h in res.get("hits", [])]
        return Hits(hits, res.get("broadened", False), res.get("terms", ()), res.get("pruned", ()), res.get("message"))

    def expand(self, x):
        """Full events for a seq, a list of seqs, a Hit/dict with 'seq', or a list of hits.
        Always returns a list of Event in the order asked (content complete, payloads resolved).
        Unknown seqs raise KeyError naming them."""
        seqs = _seqs_of(x)
        if not seqs:
            return []
        return _events(self._t.call("expand", {"seqs": seqs}))

    def range(self, a, b):
        """Full events with a <= seq <= b (inclusive), oldest first. At most 10,000 events."""
        return _events(self._t.call("range", {"a": _int("a", a), "b": _int("b", b)}))

    def recent(self, n=20, session=None):
        """The last n events of this session (or of `session`; the whole log when there is no
        session), oldest first, full content."""
        n = _int("n", n)
        if n <= 0:
            return []
        return _events(self._t.call("recent", {"n": n, "session": _opt_str("session", session)}))

    def payload(self, handle):
        """The full content stored under a payload handle (sha256 hex): parsed JSON when it is
        JSON, else text, else bytes."""
        if not isinstance(handle, str):
            raise ValueError("ms.payload: %r is not a payload handle (64 lowercase hex characters)" % (handle,))
        res = self._t.call("payload", {"handle": handle}) or {}
        if "base64" in res:
            import base64
            return parse_payload_text(base64.b64decode(res["base64"]))
        return parse_payload_text(res.get("text", "").encode("utf-8"))

    def sql(self, query, params=()):
        """Run one read-only SQL statement; returns Rows (list of dicts) with `.columns` and
        `.truncated` (True when more than 1,000 rows matched). Tables: events(seq, session, kind,
        role, name, content, payload, bytes, tokens, ts, step, tool_call_id, parent_seq, headline,
        meta). `content` is a preview when `payload` is set — use ms.expand for the full text.
        Anything but reading is refused (ScrollReadOnlyError); a query is stopped after a few seconds."""
        if not isinstance(query, str):
            raise TypeError("ms.sql: query must be a string")
        if isinstance(params, dict):
            wire_params = {str(k): _sql_value(v) for k, v in params.items()}
        elif isinstance(params, (list, tuple)):
            wire_params = [_sql_value(v) for v in params]
        else:
            raise TypeError("ms.sql: params must be a list, a tuple or a dict")
        res = self._t.call("sql", {"query": query, "params": wire_params}) or {}
        columns = list(res.get("columns") or [])
        rows = [_AttrDict(zip(columns, _row_values(r))) for r in res.get("rows") or []]
        return Rows(rows, columns, res.get("truncated", False))

    def index(self, session=None):
        """The eviction index of this session as it stands now: one dict per block, oldest first,
        with its seq span ('from_seq'/'to_seq'), 'level' (0 = one eviction, higher = merged) and
        'title' ({task, state, next}), plus 'event_seq' (the eviction event that recorded it).
        Evicted turns are still in the log: ms.range(b['from_seq'], b['to_seq'])."""
        res = self._t.call("index", {"session": _opt_str("session", session)}) or {}
        return [_AttrDict(b) for b in res.get("blocks", [])]


def _events(res):
    return [Event(e) for e in (res or {}).get("events", [])]


def _names(what, v):
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, (list, tuple, set, frozenset)) and all(isinstance(x, str) for x in v):
        return list(v)
    raise TypeError("ms.search: %s must be a string or a list of strings, got %r" % (what, v))


def _opt_str(what, v):
    if v is None or isinstance(v, str):
        return v
    raise TypeError("%s must be a string, got %r" % (what, v))


def _sql_value(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (bytes, bytearray)):
        import base64
        return {"$base64": base64.b64encode(bytes(v)).decode("ascii")}
    raise TypeError("ms.sql: a parameter must be None, a number, a string or bytes, got %s" % type(v).__name__)


def _row_values(row):
    """SQL values as sent (docs/MEMORY-PROTOCOL.md): blobs, integers past 2**53 and infinities come marked."""
    out = []
    for v in row:
        if isinstance(v, dict) and len(v) == 1:
            if "$base64" in v:
                import base64
                v = base64.b64decode(v["$base64"])
            elif "$int" in v:
                v = int(v["$int"])
            elif "$float" in v:
                v = float(v["$float"])
        out.append(v)
    return out
