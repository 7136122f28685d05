"""Read-only SQL over the Scroll event log, for the host's `ms.sql` (docs/MEMORY-PROTOCOL.md).

    python3 kernel/scroll_sql_server.py --db PATH [--timeout-ms 5000]

The host (src/core/memory/readOnlySql.ts) starts one of these per event log and keeps it running.
JSON lines on stdin/stdout, one request at a time:

    out, first:  {"ready": true, "pid", "python", "sqlite"}   (or {"ready": false, "error": {...}}, exit 1)
    in:          {"id": 1, "sql": "SELECT ...", "params": [..] | {..}, "timeout_ms"?: 5000}
    out:         {"id": 1, "columns": [..], "rows": [[..]], "truncated": false}
             or  {"id": 1, "error": {"type": "PermissionError" | "ValueError" | "TypeError" |
                                              "TimeoutError" | "RuntimeError", "message": "ms.sql: ..."}}

Why a process of its own: the host's SQLite driver has no authorizer and cannot interrupt a
statement. Here the log is opened `mode=ro` with `PRAGMA query_only`, and an authorizer allows only
reads of Scroll's own tables (plus functions, recursive CTEs and a few read pragmas): no ATTACH, no
writing PRAGMA, no temp tables, views or triggers, no transactions, no load_extension. A progress
handler stops a statement at its time limit. At most 1,000 rows come back (`truncated`).

Values JSON cannot carry exactly come as one-key objects: a BLOB as {"$base64": "..."}, an integer
beyond +-(2**53 - 1) as {"$int": "<decimal>"}, an infinite float as {"$float": "inf" | "-inf"}.
Parameters may use the same {"$base64": ...} / {"$int": ...} forms. Python stdlib only (3.9+).
"""

import base64
import json
import math
import os
import sqlite3
import sys
import time

MAX_ROWS = 1000
DEFAULT_TIMEOUT_MS = 5000
#: A reply larger than this (estimated while the rows are read) is refused: select less.
MAX_REPLY_CHARS = 64 * 1024 * 1024
#: Longest string or blob a statement may build (SQLITE_LIMIT_LENGTH): far above any stored
#: value, low enough that a runaway group_concat() fails fast instead of filling memory.
MAX_VALUE_BYTES = 64 * 1024 * 1024
#: VM instructions between two checks of the clock.
PROGRESS_STEPS = 1000
MAX_SAFE_INT = 2 ** 53 - 1

#: Scroll's own tables (src/core/log/schema.ts: the log, the captured transcripts' bookkeeping),
#: the FTS5 index and its shadow tables, and the tables SQLite keeps itself that hold nothing but
#: schema and counters.
READABLE_TABLES = frozenset([
    "events", "scroll_meta", "events_fts", "events_vocab",
    "events_fts_data", "events_fts_idx", "events_fts_docsize", "events_fts_config", "events_fts_content",
    "capture_records", "capture_cursors", "event_binaries", "event_vectors",
    "sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema", "sqlite_sequence",
])
SCHEMA_TABLES = frozenset(["sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"])
#: Pragmas that only read. Those below take no value (a value would set them) ...
READ_PRAGMAS = frozenset([
    "data_version",  # FTS5 reads it to notice other connections' writes
    "schema_version", "user_version", "page_count", "page_size", "freelist_count", "encoding",
    "compile_options", "table_list",
])
#: ... and these take a table or index name.
TABLE_PRAGMAS = frozenset(["table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list"])
#: Their table-valued forms (`SELECT * FROM pragma_table_info('events')`) read as tables.
READABLE_TABLES = READABLE_TABLES | frozenset("pragma_" + p for p in READ_PRAGMAS | TABLE_PRAGMAS)
DENIED_FUNCTIONS = frozenset(["load_extension", "fts3_tokenizer", "readfile", "writefile", "edit"])

# Authorizer action codes (sqlite3.h); the module exposes most of them, not all in every version.
_C = lambda name, value: getattr(sqlite3, name, value)  # noqa: E731
SQLITE_CREATE_INDEX = _C("SQLITE_CREATE_INDEX", 1)
SQLITE_CREATE_TABLE = _C("SQLITE_CREATE_TABLE", 2)
SQLITE_CREATE_TEMP_INDEX = _C("SQLITE_CREATE_TEMP_INDEX", 3)
SQLITE_CREATE_TEMP_TABLE = _C("SQLITE_CREATE_TEMP_TABLE", 4)
SQLITE_CREATE_TEMP_TRIGGER = _C("SQLITE_CREATE_TEMP_TRIGGER", 5)
SQLITE_CREATE_TEMP_VIEW = _C("SQLITE_CREATE_TEMP_VIEW", 6)
SQLITE_CREATE_TRIGGER = _C("SQLITE_CREATE_TRIGGER", 7)
SQLITE_CREATE_VIEW = _C("SQLITE_CREATE_VIEW", 8)
SQLITE_DELETE = _C("SQLITE_DELETE", 9)
SQLITE_DROP_INDEX = _C("SQLITE_DROP_INDEX", 10)
SQLITE_DROP_TABLE = _C("SQLITE_DROP_TABLE", 11)
SQLITE_DROP_TEMP_INDEX = _C("SQLITE_DROP_TEMP_INDEX", 12)
SQLITE_DROP_TEMP_TABLE = _C("SQLITE_DROP_TEMP_TABLE", 13)
SQLITE_DROP_TEMP_TRIGGER = _C("SQLITE_DROP_TEMP_TRIGGER", 14)
SQLITE_DROP_TEMP_VIEW = _C("SQLITE_DROP_TEMP_VIEW", 15)
SQLITE_DROP_TRIGGER = _C("SQLITE_DROP_TRIGGER", 16)
SQLITE_DROP_VIEW = _C("SQLITE_DROP_VIEW", 17)
SQLITE_INSERT = _C("SQLITE_INSERT", 18)
SQLITE_PRAGMA = _C("SQLITE_PRAGMA", 19)
SQLITE_READ = _C("SQLITE_READ", 20)
SQLITE_SELECT = _C("SQLITE_SELECT", 21)
SQLITE_TRANSACTION = _C("SQLITE_TRANSACTION", 22)
SQLITE_UPDATE = _C("SQLITE_UPDATE", 23)
SQLITE_ATTACH = _C("SQLITE_ATTACH", 24)
SQLITE_DETACH = _C("SQLITE_DETACH", 25)
SQLITE_ALTER_TABLE = _C("SQLITE_ALTER_TABLE", 26)
SQLITE_REINDEX = _C("SQLITE_REINDEX", 27)
SQLITE_ANALYZE = _C("SQLITE_ANALYZE", 28)
SQLITE_CREATE_VTABLE = _C("SQLITE_CREATE_VTABLE", 29)
SQLITE_DROP_VTABLE = _C("SQLITE_DROP_VTABLE", 30)
SQLITE_FUNCTION = _C("SQLITE_FUNCTION", 31)
SQLITE_SAVEPOINT = _C("SQLITE_SAVEPOINT", 32)
SQLITE_RECURSIVE = _C("SQLITE_RECURSIVE", 33)

_ACTION_WORDS = {
    SQLITE_CREATE_INDEX: "CREATE INDEX", SQLITE_CREATE_TABLE: "CREATE TABLE",
    SQLITE_CREATE_TEMP_INDEX: "CREATE TEMP INDEX", SQLITE_CREATE_TEMP_TABLE: "CREATE TEMP TABLE",
    SQLITE_CREATE_TEMP_TRIGGER: "CREATE TEMP TRIGGER", SQLITE_CREATE_TEMP_VIEW: "CREATE TEMP VIEW",
    SQLITE_CREATE_TRIGGER: "CREATE TRIGGER", SQLITE_CREATE_VIEW: "CREATE VIEW",
    SQLITE_DROP_INDEX: "DROP INDEX", SQLITE_DROP_TABLE: "DROP TABLE", SQLITE_DROP_TEMP_INDEX: "DROP TEMP INDEX",
    SQLITE_DROP_TEMP_TABLE: "DROP TEMP TABLE", SQLITE_DROP_TEMP_TRIGGER: "DROP TEMP TRIGGER",
    SQLITE_DROP_TEMP_VIEW: "DROP TEMP VIEW", SQLITE_DROP_TRIGGER: "DROP TRIGGER", SQLITE_DROP_VIEW: "DROP VIEW",
    SQLITE_ALTER_TABLE: "ALTER TABLE", SQLITE_REINDEX: "REINDEX", SQLITE_ANALYZE: "ANALYZE",
    SQLITE_CREATE_VTABLE: "CREATE VIRTUAL TABLE", SQLITE_DROP_VTABLE: "DROP VIRTUAL TABLE",
}


class CallError(Exception):
    def __init__(self, type_, message):
        super().__init__(message)
        self.type = type_
        self.message = message


def ro_uri(path):
    # Percent-encode what would otherwise end the path part of a URI (as scroll_ms.py does).
    quoted = path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    return "file:%s?mode=ro" % quoted


def describe(action, a, b):
    """What a refused authorizer request was, in SQL words, for the error message."""
    if action in (SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE) and a in SCHEMA_TABLES:
        return "CREATE/ALTER/DROP of a table, view, index or trigger"
    if action == SQLITE_INSERT:
        return "INSERT into %s" % a
    if action == SQLITE_UPDATE:
        return "UPDATE of %s" % a
    if action == SQLITE_DELETE:
        return "DELETE from %s" % a
    if action == SQLITE_ATTACH:
        return "ATTACH of %r" % (a,) if a else "ATTACH (or VACUUM)"
    if action == SQLITE_DETACH:
        return "DETACH of %s" % a
    if action == SQLITE_PRAGMA:
        return "PRAGMA %s%s" % (a, "" if b is None else " = %s" % b)
    if action == SQLITE_TRANSACTION:
        return "%s (transactions)" % (a or "BEGIN")
    if action == SQLITE_SAVEPOINT:
        return "SAVEPOINT"
    if action == SQLITE_FUNCTION:
        return "the function %s()" % b
    if action == SQLITE_READ:
        return "reading %s, which is not one of Scroll's tables" % a
    word = _ACTION_WORDS.get(action)
    if word:
        return "%s %s" % (word, a) if a else word
    return "SQLite action %s" % action


class SqlServer:
    def __init__(self, db_path, timeout_ms=DEFAULT_TIMEOUT_MS):
        self.db_path = os.path.abspath(db_path)
        self.timeout_ms = timeout_ms
        if not os.path.isfile(self.db_path):
            raise CallError("RuntimeError", "ms.sql: no event log at %s" % self.db_path)
        self.conn = sqlite3.connect(ro_uri(self.db_path), uri=True, isolation_level=None, check_same_thread=False)
        # Invalid UTF-8 in a TEXT value reads as U+FFFD instead of failing the whole query.
        self.conn.text_factory = lambda b: b.decode("utf-8", "replace")
        self.conn.execute("PRAGMA query_only = 1")
        self.conn.execute("PRAGMA busy_timeout = 5000")
        self.conn.execute("PRAGMA mmap_size = 268435456")
        self.conn.execute("PRAGMA cache_size = -32768")
        if hasattr(self.conn, "setlimit"):  # Python 3.11+
            self.conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
            self.conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        self.denied = []
        self.deadline = None
        self.timed_out = False
        self.real_tables = frozenset()
        self.warm()
        self.conn.set_progress_handler(self._progress, PROGRESS_STEPS)

    # -- authorizer -----------------------------------------------------------------------------
    def warm(self):
        """Connects the virtual tables (FTS5, fts5vocab, table-valued pragmas) before user SQL runs.
        Connecting one compiles SQLite's own statements, which the authorizer would see as
        requests to update sqlite_master; after this they are cached on the connection. Run again
        when the schema changed (the virtual tables are then reconnected)."""
        self.conn.set_authorizer(None)
        try:
            self.real_tables = frozenset(r[0] for r in self.conn.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"))
            for sql in (
                "SELECT count(*) FROM events_vocab WHERE term = ''",
                "SELECT count(*) FROM events_fts WHERE events_fts MATCH '\"scroll\"' AND rowid < 0",
                "SELECT count(*) FROM pragma_table_info('events')",
                "SELECT count(*) FROM pragma_table_xinfo('events')",
                "SELECT count(*) FROM pragma_index_list('events')",
                "SELECT count(*) FROM pragma_index_info('events_ts')",
                "SELECT count(*) FROM pragma_index_xinfo('events_ts')",
                "SELECT count(*) FROM pragma_foreign_key_list('events')",
            ):
                try:
                    self.conn.execute(sql).fetchall()
                except sqlite3.Error:
                    pass  # an older log or an older SQLite: that table is simply not warmed
            self.schema_version = self.conn.execute("PRAGMA schema_version").fetchone()[0]
        finally:
            self.conn.set_authorizer(self._authorize)

    def _authorize(self, action, a, b, db, source):
        if action in (SQLITE_SELECT, SQLITE_RECURSIVE):
            return sqlite3.SQLITE_OK
        if action == SQLITE_READ:
            # A CTE or subquery reads under its own name (db None); so does count(*) of a table.
            if a in READABLE_TABLES or (db is None and a not in self.real_tables):
                return sqlite3.SQLITE_OK
        elif action == SQLITE_FUNCTION:
            if (b or "").lower() not in DENIED_FUNCTIONS:
                return sqlite3.SQLITE_OK
        elif action == SQLITE_PRAGMA:
            name = (a or "").lower()
            if (name in READ_PRAGMAS and b is None) or name in TABLE_PRAGMAS:
                return sqlite3.SQLITE_OK
        self.denied.append((action, a, b))
        return sqlite3.SQLITE_DENY

    def _progress(self):
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.timed_out = True
            return 1
        return 0

    # -- one request ----------------------------------------------------------------------------
    def query(self, sql, params, timeout_ms=None):
        if not isinstance(sql, str):
            raise CallError("TypeError", "ms.sql: query must be a string")
        params = decode_params(params)
        timeout_ms = self.timeout_ms if timeout_ms is None else timeout_ms
        self._check_schema()
        try:
            return self._run(sql, params, timeout_ms)
        except CallError as exc:
            # The schema changed since warm(): SQLite reconnected a virtual table inside this
            # statement. Warm again and retry once (a refused statement is refused again).
            if exc.type == "PermissionError" and self._only_internal_denials():
                self.warm()
                return self._run(sql, params, timeout_ms)
            raise

    def _check_schema(self):
        # Under the authorizer (a read pragma): switching it off and on would expire every
        # prepared statement on the connection.
        version = self.conn.execute("PRAGMA schema_version").fetchone()[0]
        if version != self.schema_version:
            self.warm()

    def _only_internal_denials(self):
        return bool(self.denied) and all(act == SQLITE_UPDATE and a == "sqlite_master" for act, a, _ in self.denied)

    def _run(self, sql, params, timeout_ms):
        self.denied = []
        self.timed_out = False
        self.deadline = time.monotonic() + timeout_ms / 1000.0
        try:
            cur = self.conn.execute(sql, params)
            columns = [d[0] for d in (cur.description or ())]
            raw = cur.fetchmany(MAX_ROWS + 1)
            cur.close()
        except sqlite3.Error as exc:
            raise self._error(exc, timeout_ms) from None
        except (OverflowError, MemoryError) as exc:
            raise CallError("ValueError", "ms.sql: %s" % exc) from None
        finally:
            self.deadline = None
        truncated = len(raw) > MAX_ROWS
        rows = []
        size = 0
        for r in raw[:MAX_ROWS]:
            row = []
            for v in r:
                v, n = encode_value(v)
                size += n
                row.append(v)
            if size > MAX_REPLY_CHARS:
                raise CallError("ValueError", "ms.sql: the result is larger than %d MB; select fewer or shorter values "
                                "(LIMIT, substr(), length())" % (MAX_REPLY_CHARS // (1024 * 1024)))
            rows.append(row)
        return {"columns": columns, "rows": rows, "truncated": truncated}

    def _error(self, exc, timeout_ms):
        text = str(exc)
        if self.timed_out:
            return CallError("TimeoutError", "ms.sql: the query ran past %s s and was stopped" % seconds(timeout_ms))
        if self.denied:
            what = describe(*self.denied[0])
            return CallError("PermissionError", "ms.sql: the event log is read-only (%s refused)" % what)
        low = text.lower()
        if "readonly" in low or "read-only" in low or "query_only" in low or "not authorized" in low:
            return CallError("PermissionError", "ms.sql: the event log is read-only (%s)" % text)
        if "one statement" in low:
            return CallError("ValueError", "ms.sql: run one statement at a time")
        if isinstance(exc, (sqlite3.ProgrammingError, sqlite3.OperationalError, sqlite3.IntegrityError,
                            sqlite3.DataError, sqlite3.InterfaceError, sqlite3.Warning)) and "disk i/o" not in low \
                and "locked" not in low and "malformed" not in low and "busy" not in low:
            # Syntax errors, unknown tables or columns, wrong parameters, too-big strings.
            return CallError("ValueError", "ms.sql: %s" % text)
        return CallError("RuntimeError", "ms.sql: %s" % text)


def seconds(ms):
    s = ms / 1000.0
    return ("%d" % s) if s == int(s) else ("%g" % s)


def encode_value(v):
    """A SQLite value as JSON can carry it exactly, and its size estimate."""
    if v is None or isinstance(v, bool):
        return v, 4
    if isinstance(v, int):
        if -MAX_SAFE_INT <= v <= MAX_SAFE_INT:
            return v, 20
        return {"$int": str(v)}, 30
    if isinstance(v, float):
        if math.isinf(v):
            return {"$float": "inf" if v > 0 else "-inf"}, 20
        if math.isnan(v):  # SQLite stores NaN as NULL; a function may still return one
            return None, 4
        return v, 24
    if isinstance(v, str):
        return v, len(v) + 2
    if isinstance(v, (bytes, bytearray, memoryview)):
        text = base64.b64encode(bytes(v)).decode("ascii")
        return {"$base64": text}, len(text) + 14
    return str(v), len(str(v)) + 2


def decode_param(v, where):
    if v is None or isinstance(v, (bool, int, float, str)):
        if isinstance(v, float) and not math.isfinite(v):
            raise CallError("TypeError", "ms.sql: parameter %s is not a finite number" % where)
        return v
    if isinstance(v, dict) and len(v) == 1:
        if isinstance(v.get("$base64"), str):
            try:
                return base64.b64decode(v["$base64"], validate=True)
            except ValueError:
                raise CallError("TypeError", "ms.sql: parameter %s: {'$base64': ...} is not valid base64" % where) from None
        if isinstance(v.get("$int"), str):
            try:
                return int(v["$int"])
            except ValueError:
                raise CallError("TypeError", "ms.sql: parameter %s: {'$int': ...} is not an integer" % where) from None
    raise CallError("TypeError", "ms.sql: parameter %s has an unsupported type %s (use None, bool, int, float, "
                    "str or bytes)" % (where, type(v).__name__))


def decode_params(params):
    if params is None:
        return ()
    if isinstance(params, list):
        return tuple(decode_param(v, i + 1) for i, v in enumerate(params))
    if isinstance(params, dict):
        out = {}
        for k, v in params.items():
            out[k] = decode_param(v, repr(k))
        return out
    raise CallError("TypeError", "ms.sql: params must be a list (for ?) or a dict (for :name), got %s" % type(params).__name__)


def _write(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=True, allow_nan=False, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def _parse_args(argv):
    db = None
    timeout_ms = DEFAULT_TIMEOUT_MS
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--db" and i + 1 < len(argv):
            db = argv[i + 1]
            i += 2
        elif arg == "--timeout-ms" and i + 1 < len(argv):
            timeout_ms = int(argv[i + 1])
            i += 2
        else:
            raise SystemExit("usage: scroll_sql_server.py --db PATH [--timeout-ms N]")
    if not db:
        raise SystemExit("usage: scroll_sql_server.py --db PATH [--timeout-ms N]")
    return db, timeout_ms


def main(argv=None):
    db, timeout_ms = _parse_args(sys.argv[1:] if argv is None else argv)
    # Replies are ASCII JSON (any lone surrogate escaped); requests are read as UTF-8 whatever the locale.
    sys.stdin.reconfigure(encoding="utf-8", errors="replace")
    try:
        server = SqlServer(db, timeout_ms)
    except CallError as exc:
        _write({"ready": False, "error": {"type": exc.type, "message": exc.message}})
        return 1
    except sqlite3.Error as exc:
        _write({"ready": False, "error": {"type": "RuntimeError", "message": "ms.sql: cannot open %s: %s" % (db, exc)}})
        return 1
    _write({"ready": True, "pid": os.getpid(), "python": sys.version.split()[0], "sqlite": sqlite3.sqlite_version})
    for line in sys.stdin:
        if not line.strip():
            continue
        rid = None
        try:
            try:
                msg = json.loads(line)
            except ValueError:
                raise CallError("ValueError", "ms.sql: the request is not JSON") from None
            if not isinstance(msg, dict):
                raise CallError("ValueError", "ms.sql: the request is not a JSON object")
            rid = msg.get("id")
            t = msg.get("timeout_ms")
            if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or not t > 0):
                raise CallError("ValueError", "ms.sql: timeout_ms must be a positive number")
            result = server.query(msg.get("sql"), msg.get("params"), t)
            result["id"] = rid
            _write(result)
        except CallError as exc:
            _write({"id": rid, "error": {"type": exc.type, "message": exc.message}})
        except Exception as exc:  # never die on one request
            _write({"id": rid, "error": {"type": "RuntimeError", "message": "ms.sql: %s: %s" % (type(exc).__name__, exc)}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
