"""Tests of kernel/scroll_sql_server.py: the read-only SQL helper behind the host's `ms.sql`.

Drives the real process over its JSON-lines protocol, on a database built from the real schema
(src/core/log/schema.ts, via test_ms.LogBuilder).
"""

import base64
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from test_ms import LogBuilder, ROOT  # noqa: E402

SERVER = os.path.join(ROOT, "kernel", "scroll_sql_server.py")


class Helper:
    def __init__(self, db_path, timeout_ms=None):
        args = [sys.executable, SERVER, "--db", db_path]
        if timeout_ms is not None:
            args += ["--timeout-ms", str(timeout_ms)]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, encoding="utf-8")
        self.ready = json.loads(self.proc.stdout.readline())
        self.n = 0

    def raw(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def query(self, sql, params=None, **extra):
        self.n += 1
        msg = {"id": self.n, "sql": sql, "params": [] if params is None else params}
        msg.update(extra)
        reply = self.raw(json.dumps(msg))
        assert reply["id"] == self.n, reply
        return reply

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass  # the helper already exited
        self.proc.wait(timeout=10)
        self.proc.stdout.close()
        self.proc.stderr.close()


def dump(db_path):
    conn = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    try:
        out = {"schema": conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()}
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"):
            out[name] = sorted(repr(r) for r in conn.execute('SELECT * FROM "%s"' % name))
        return out
    finally:
        conn.close()


class SqlServerTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="scroll-sqlsrv-")
        b = LogBuilder(self.dir)
        b.add("user_message", "user", "Why does the retry cap stop at three?")
        b.add("tool_call", "tool", "grep -rn MAX_RETRIES src", name="grep")
        b.add("model_turn", "assistant", "The retry cap is a constant.", session="s2")
        b.close()
        self.db = b.db_path
        self.helper = Helper(self.db, timeout_ms=1000)

    def tearDown(self):
        self.helper.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def assertError(self, reply, type_, contains=None):
        self.assertIn("error", reply, reply)
        self.assertEqual(reply["error"]["type"], type_, reply)
        if contains:
            self.assertIn(contains, reply["error"]["message"])
        return reply["error"]["message"]

    def test_ready_line(self):
        self.assertTrue(self.helper.ready["ready"])
        self.assertEqual(self.helper.ready["pid"], self.helper.proc.pid)
        self.assertTrue(self.helper.ready["sqlite"])

    def test_honest_reads(self):
        r = self.helper.query("SELECT kind, count(*) FROM events GROUP BY kind ORDER BY kind")
        self.assertEqual(r["columns"], ["kind", "count(*)"])
        self.assertEqual(r["rows"], [["model_turn", 1], ["tool_call", 1], ["user_message", 1]])
        self.assertFalse(r["truncated"])
        r = self.helper.query("SELECT a.seq, b.seq FROM events a JOIN events b ON b.seq = a.seq + 1 ORDER BY a.seq")
        self.assertEqual(r["rows"], [[1, 2], [2, 3]])
        r = self.helper.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT sum(x) FROM c")
        self.assertEqual(r["rows"], [[6]])
        self.assertEqual(self.helper.query("SELECT seq FROM events WHERE session = ?", ["s2"])["rows"], [[3]])
        self.assertEqual(self.helper.query("SELECT seq FROM events WHERE session = :s", {"s": "s1"})["rows"], [[1], [2]])
        r = self.helper.query("SELECT rowid FROM events_fts WHERE events_fts MATCH 'cap' ORDER BY rowid")
        self.assertEqual(r["rows"], [[1], [3]])
        self.assertEqual(self.helper.query("SELECT doc FROM events_vocab WHERE term = 'cap'")["rows"], [[2]])
        self.assertEqual(self.helper.query("SELECT * FROM pragma_table_info('scroll_meta')")["rows"][0][1], "key")
        self.assertEqual(self.helper.query("SELECT name FROM sqlite_master WHERE name = 'events'")["rows"], [["events"]])

    def test_values_json_cannot_carry(self):
        blob = base64.b64encode(b"\x00\xff").decode()
        r = self.helper.query("SELECT x'00ff', ?, 1e999, -1e999, 9007199254740993, ?, 'é'",
                              [{"$base64": blob}, {"$int": "-9007199254740999"}])
        self.assertEqual(r["rows"], [[{"$base64": blob}, {"$base64": blob}, {"$float": "inf"}, {"$float": "-inf"},
                                      {"$int": "9007199254740993"}, {"$int": "-9007199254740999"}, "é"]])
        self.assertError(self.helper.query("SELECT ?", [[1]]), "TypeError", "parameter 1")
        self.assertError(self.helper.query("SELECT ?", [{"$base64": "!!"}]), "TypeError", "$base64")
        self.assertError(self.helper.query("SELECT 1", "x"), "TypeError", "params")

    def test_row_cap(self):
        r = self.helper.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1001) SELECT x FROM c")
        self.assertTrue(r["truncated"])
        self.assertEqual(len(r["rows"]), 1000)
        r = self.helper.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1000) SELECT x FROM c")
        self.assertFalse(r["truncated"])

    def test_refused_statements_change_nothing(self):
        before = dump(self.db)
        files = sorted(os.listdir(self.dir))
        copy = os.path.join(self.dir, "copy.db")
        rw = "file:%s?mode=rw" % self.db
        refused = [
            "PRAGMA query_only=0",
            "PRAGMA query_only = OFF",
            "ATTACH '%s' AS w" % rw,
            "ATTACH '%s' AS w; INSERT INTO w.events(session, kind, role, content, bytes, tokens, ts) VALUES (1,1,1,1,1,1,1)" % rw,
            "ATTACH ':memory:' AS m",
            "INSERT INTO events(session, kind, role, content, bytes, tokens, ts) VALUES ('x','x','x','x',1,1,'t') RETURNING seq",
            "DELETE FROM events",
            "UPDATE events SET content = ''",
            "REPLACE INTO scroll_meta(key, value) VALUES ('schema_version', '9')",
            "DROP TRIGGER events_no_delete",
            "DROP TRIGGER events_no_update",
            "DROP TABLE events",
            "ALTER TABLE events ADD COLUMN x",
            "CREATE TEMP TABLE t(x)",
            "CREATE TEMP VIEW v AS SELECT 1",
            "CREATE TABLE t(x)",
            "CREATE INDEX i ON events(content)",
            "PRAGMA writable_schema=1",
            "PRAGMA user_version = 7",
            "PRAGMA journal_mode = DELETE",
            "VACUUM INTO '%s'" % copy,
            "VACUUM",
            "SELECT load_extension('x')",
            "BEGIN",
            "COMMIT",
            "SAVEPOINT a",
            "DETACH main",
            "REINDEX",
            "ANALYZE",
            "INSERT INTO events_fts(events_fts) VALUES ('delete-all')",
            "WITH x AS (SELECT 1) DELETE FROM events",
            "EXPLAIN DELETE FROM events",
        ]
        for sql in refused:
            message = self.assertError(self.helper.query(sql), "PermissionError")
            self.assertTrue(message.startswith("ms.sql: the event log is read-only ("), message)
        self.assertEqual(self.helper.query("SELECT 1; SELECT 2")["error"],
                         {"type": "ValueError", "message": "ms.sql: run one statement at a time"})
        self.assertError(self.helper.query("SELECT 1; DELETE FROM events"), "ValueError", "one statement")
        self.assertError(self.helper.query("SELEC 1"), "ValueError", "syntax error")
        self.assertEqual(self.helper.query("SELECT count(*) FROM sqlite_temp_master")["rows"], [[0]])
        self.assertEqual(dump(self.db), before)
        self.assertEqual(sorted(os.listdir(self.dir)), files)
        self.assertFalse(os.path.exists(copy))

    def test_time_limit_stops_the_statement_and_the_next_one_runs(self):
        t0 = time.monotonic()
        r = self.helper.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
        took = time.monotonic() - t0
        self.assertEqual(r["error"], {"type": "TimeoutError", "message": "ms.sql: the query ran past 1 s and was stopped"})
        self.assertLess(took, 3)
        r = self.helper.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
                              timeout_ms=250)
        self.assertEqual(r["error"]["message"], "ms.sql: the query ran past 0.25 s and was stopped")
        self.assertEqual(self.helper.query("SELECT count(*) FROM events")["rows"], [[3]])

    def test_a_schema_change_by_the_writer_is_picked_up(self):
        writer = sqlite3.connect(self.db)
        writer.execute("CREATE TABLE notes_by_someone(x)")
        writer.execute("INSERT INTO notes_by_someone VALUES ('secret')")
        writer.commit()
        writer.close()
        # The virtual tables are reconnected after the schema change; search-style reads still work.
        r = self.helper.query("SELECT rowid FROM events_fts WHERE events_fts MATCH 'retry' ORDER BY rowid")
        self.assertEqual(r["rows"], [[1], [3]])
        self.assertEqual(self.helper.query("SELECT doc FROM events_vocab WHERE term = 'cap'")["rows"], [[2]])
        # A table that is not Scroll's is not readable, not even counted.
        self.assertError(self.helper.query("SELECT * FROM notes_by_someone"), "PermissionError", "notes_by_someone")
        self.assertError(self.helper.query("SELECT count(*) FROM notes_by_someone"), "PermissionError")

    def test_every_table_of_the_schema_is_readable(self):
        # Every table the migrations of src/core/log/schema.ts create (a new one too) can be read.
        conn = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True)
        try:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        finally:
            conn.close()
        self.assertIn("capture_records", tables)
        for name in tables:
            r = self.helper.query('SELECT count(*) FROM "%s"' % name)
            self.assertNotIn("error", r, name)

    def test_capture_tables_read_and_refuse_writes(self):
        writer = sqlite3.connect(self.db)
        writer.execute("INSERT INTO capture_records(source, record_id, seq) VALUES ('claude-code', 'u-1', 1)")
        writer.execute("INSERT INTO capture_cursors(path, source, offset, line, size, mtime_ms, cwd, session)"
                       " VALUES ('/h/.claude/projects/w/s.jsonl', 'claude-code', 120, 2, 120, 1.5, '/w', 'claude-code:s')")
        writer.execute("INSERT INTO event_binaries(seq, handle, media_type, bytes) VALUES (1, 'ab12', 'image/png', 68)")
        writer.commit()
        writer.close()
        r = self.helper.query("SELECT r.source, r.record_id, e.kind FROM capture_records r JOIN events e ON e.seq = r.seq")
        self.assertEqual(r["rows"], [["claude-code", "u-1", "user_message"]])
        r = self.helper.query("SELECT path, offset, line, cwd, session FROM capture_cursors")
        self.assertEqual(r["rows"], [["/h/.claude/projects/w/s.jsonl", 120, 2, "/w", "claude-code:s"]])
        self.assertEqual(self.helper.query("SELECT seq, handle, media_type, bytes FROM event_binaries")["rows"],
                         [[1, "ab12", "image/png", 68]])
        before = dump(self.db)
        for sql in (
            "INSERT INTO capture_records(source, record_id, seq) VALUES ('codex', 'x', 2)",
            "INSERT OR IGNORE INTO capture_records(source, record_id, seq) VALUES ('claude-code', 'u-1', 9)",
            "UPDATE capture_records SET seq = 3",
            "DELETE FROM capture_records",
            "UPDATE capture_cursors SET offset = 0",
            "DELETE FROM capture_cursors",
            "REPLACE INTO capture_cursors(path, source, offset, line, size, mtime_ms) VALUES ('p', 's', 0, 0, 0, 0)",
            "INSERT INTO event_binaries(seq, handle, media_type, bytes) VALUES (2, 'cd', 'image/png', 1)",
            "DELETE FROM event_binaries",
            "DROP TABLE capture_cursors",
            "DROP INDEX event_binaries_handle",
            "CREATE INDEX i ON capture_records(seq)",
        ):
            message = self.assertError(self.helper.query(sql), "PermissionError")
            self.assertTrue(message.startswith("ms.sql: the event log is read-only ("), message)
        self.assertEqual(dump(self.db), before)

    def test_bad_request_lines_are_answered_and_the_helper_goes_on(self):
        self.assertEqual(self.helper.raw("not json")["error"]["type"], "ValueError")
        self.assertEqual(self.helper.raw("[1]")["error"]["type"], "ValueError")
        self.assertEqual(self.helper.raw(json.dumps({"id": 5, "sql": 7}))["error"],
                         {"type": "TypeError", "message": "ms.sql: query must be a string"})
        self.assertEqual(self.helper.raw(json.dumps({"id": 6, "sql": "SELECT 1", "timeout_ms": -1}))["error"]["type"], "ValueError")
        self.assertEqual(self.helper.query("SELECT 2")["rows"], [[2]])

    def test_end_of_input_ends_the_helper(self):
        self.helper.proc.stdin.close()
        self.assertEqual(self.helper.proc.wait(timeout=10), 0)

    def test_no_log(self):
        h = Helper(os.path.join(self.dir, "missing.db"))
        try:
            self.assertEqual(h.ready["ready"], False)
            self.assertEqual(h.ready["error"]["type"], "RuntimeError")
            self.assertIn("no event log", h.ready["error"]["message"])
            self.assertEqual(h.proc.wait(timeout=10), 1)
        finally:
            h.close()


if __name__ == "__main__":
    unittest.main()
