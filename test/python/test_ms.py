"""Tests of kernel/scroll_ms.py: the read-only `ms` capability over the event log.

Databases are built from the real schema (src/core/log/schema.ts, read at test time so the tables
match the TypeScript log). The shared search vectors run through `ms.search` when the search
module and the vectors file exist, with the databases built by the real CLI (`scroll ingest`).
"""

import hashlib
import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KERNEL_DIR = os.path.join(ROOT, "kernel")
if KERNEL_DIR not in sys.path:
    sys.path.insert(0, KERNEL_DIR)

import scroll_ms  # noqa: E402

PAYLOAD_THRESHOLD = 8192
PREVIEW_CHARS = 2000


def schema_sql():
    """The SQL of every migration in src/core/log/schema.ts, as the built TypeScript computes it
    (its templates are expressions: the append-only triggers come from one constant)."""
    schema_js = os.path.join(ROOT, "out", "src", "core", "log", "schema.js")
    if not os.path.exists(schema_js):
        raise AssertionError("build first (npx tsc -p .): %s is missing" % schema_js)
    import subprocess
    script = "process.stdout.write(require(%s).MIGRATIONS.map((m) => m.sql).join('\\n'))" % json.dumps(schema_js)
    sql = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True).stdout
    if not sql.strip():
        raise AssertionError("no migrations found in schema.ts")
    return sql


class LogBuilder:
    """Writes events the way the TypeScript EventLog does (same tables, payloads above the
    threshold externalised to <payloads>/<aa>/<sha256>, FTS row per event)."""

    def __init__(self, folder):
        self.folder = folder
        self.db_path = os.path.join(folder, "scroll.db")
        self.payload_dir = os.path.join(folder, "payloads")
        self.conn = sqlite3.connect(self.db_path)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.executescript(schema_sql())
        self.n = 0

    def add(self, kind, role, content, session="s1", name=None, meta=None, headline=None, step=None):
        self.n += 1
        data = content.encode("utf-8")
        payload = None
        stored = content
        if len(data) > PAYLOAD_THRESHOLD:
            payload = hashlib.sha256(data).hexdigest()
            d = os.path.join(self.payload_dir, payload[:2])
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, payload), "wb") as f:
                f.write(data)
            stored = content[:PREVIEW_CHARS]
        ts = "2026-01-01T00:%02d:%02d.000Z" % ((self.n // 60) % 60, self.n % 60)
        cur = self.conn.execute(
            "INSERT INTO events(session, kind, role, name, content, payload, bytes, tokens, ts, step, headline, meta)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (session, kind, role, name, stored, payload, len(data), math.ceil(len(content) / 4), ts, step,
             headline, json.dumps(meta or {})))
        seq = cur.lastrowid
        self.conn.execute("INSERT INTO events_fts(rowid, body, code, parts, headline) VALUES (?,?,?,?,?)",
                          (seq, content, "", "", headline or ""))
        self.conn.commit()
        return seq

    def close(self):
        self.conn.close()


class CliLogBuilder:
    """Same interface as LogBuilder, but the events go in through the real `scroll ingest`, so the
    rows, payloads and FTS text are exactly what the TypeScript EventLog writes. Seqs of a fresh
    log are 1..n; close() checks that the CLI agrees."""

    def __init__(self, folder):
        self.folder = folder
        self.db_path = os.path.join(folder, "scroll.db")
        self.payload_dir = os.path.join(folder, "payloads")
        self.events = []
        self.n = 0

    def add(self, kind, role, content, session="s1", name=None, meta=None, headline=None, step=None):
        e = {"kind": kind, "role": role, "content": content, "session": session}
        for key, value in (("name", name), ("meta", meta), ("headline", headline), ("step", step)):
            if value is not None:
                e[key] = value
        self.events.append(e)
        self.n += 1
        return self.n

    def close(self):
        report = ingest_with_cli(self.folder, self.events)
        if (report.get("first_seq"), report.get("last_seq")) != (1, self.n):
            raise AssertionError("scroll ingest assigned seqs %s..%s, expected 1..%d" % (
                report.get("first_seq"), report.get("last_seq"), self.n))


def make_builder(folder):
    """The real CLI when it is built (always in `npm test`), else the schema-level builder."""
    return CliLogBuilder(folder) if cli_available() else LogBuilder(folder)


def cli_available():
    return os.path.exists(os.path.join(ROOT, "out", "src", "cli", "main.js")) or \
        os.path.exists(os.path.join(ROOT, "dist", "cli.js"))


def ingest_with_cli(folder, events, session=None):
    """Build a database through the real `scroll ingest` CLI. Returns its report
    {appended, first_seq, last_seq}; the database is `<folder>/scroll.db`."""
    jsonl = os.path.join(folder, "events.jsonl")
    with open(jsonl, "w", encoding="utf-8") as f:
        for e in events:
            f.write(json.dumps(e) + "\n")
    db = os.path.join(folder, "scroll.db")
    cmd = ["node", os.path.join(ROOT, "bin", "scroll.js"), "ingest", jsonl, "--db", db, "--no-redact"]
    if session:
        cmd += ["--session", session]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError("scroll ingest failed (%d): %s %s" % (r.returncode, r.stdout, r.stderr))
    return json.loads(r.stdout.strip().splitlines()[-1])


class MemorySpaceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="scroll-ms-")
        b = make_builder(cls.tmp)
        cls.seqs = {}
        cls.seqs["hello"] = b.add("user_message", "user", "hello, the build uses esbuild and tsc")
        cls.seqs["reply"] = b.add("model_turn", "assistant", "I will look at the retry backoff code")
        cls.big = "".join("line %d of a long tool output\n" % i for i in range(2000))
        cls.seqs["big"] = b.add("tool_result", "tool", cls.big, name="read_file")
        cls.seqs["other"] = b.add("user_message", "user", "a message in another session", session="s2")
        cls.seqs["ev1"] = b.add("eviction", "system", "evicted 1-2", meta={"from": 1, "to": 2, "level": 0,
                                                                            "title": {"task": "build", "state": "read", "next": "fix"}})
        cls.seqs["ev2"] = b.add("eviction", "system", "evicted 1-3", meta={"block": {"from": 1, "to": 3, "level": 1, "title": "build - fix"}})
        for i in range(1005):
            b.add("note", "system", "filler %d" % i, session="s3")
        cls.json_handle = None
        cls.last = b.n
        b.close()
        cls.ms = scroll_ms.connect(os.path.join(cls.tmp, "scroll.db"), session="s1")

    @classmethod
    def tearDownClass(cls):
        cls.ms.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_connect_missing_file_is_a_clear_error(self):
        with self.assertRaises(FileNotFoundError) as cm:
            scroll_ms.connect(os.path.join(self.tmp, "nope.db"))
        self.assertIn("no event log", str(cm.exception))

    def test_expand_forms(self):
        ms = self.ms
        one = ms.expand(self.seqs["hello"])
        self.assertEqual(len(one), 1)
        self.assertEqual(one[0]["content"], "hello, the build uses esbuild and tsc")
        self.assertEqual(one[0].kind, "user_message")
        order = [self.seqs["reply"], self.seqs["hello"]]
        self.assertEqual([e.seq for e in ms.expand(order)], order)
        self.assertEqual([e.seq for e in ms.expand([{"seq": order[0]}, scroll_ms.Hit(seq=order[1])])], order)
        self.assertEqual(ms.expand([]), [])

    def test_expand_resolves_payload_untruncated(self):
        ev = self.ms.expand(self.seqs["big"])[0]
        self.assertIsNotNone(ev.payload)
        self.assertEqual(ev.content, self.big)
        self.assertEqual(ev.bytes, len(self.big.encode()))
        self.assertEqual(ev.name, "read_file")

    def test_expand_keeps_going_when_a_payload_is_missing(self):
        tmp = tempfile.mkdtemp(prefix="scroll-ms-missing-")
        self.addCleanup(shutil.rmtree, tmp, True)
        b = make_builder(tmp)
        big = b.add("tool_result", "tool", "x" * 20000)
        small = b.add("note", "user", "small")
        b.close()
        shutil.rmtree(os.path.join(tmp, "payloads"))
        ms = scroll_ms.connect(os.path.join(tmp, "scroll.db"))
        self.addCleanup(ms.close)
        evs = ms.expand([big, small])
        self.assertIn("missing", evs[0]["payload_error"])
        self.assertTrue(evs[0].content.startswith("xxx"))
        self.assertEqual(evs[1].content, "small")
        self.assertNotIn("payload_error", evs[1])

    def test_expand_unknown_seq(self):
        with self.assertRaises(KeyError) as cm:
            self.ms.expand([1, 999999])
        self.assertIn("999999", str(cm.exception))
        with self.assertRaises(TypeError):
            self.ms.expand("12")

    def test_range_and_recent(self):
        evs = self.ms.range(1, 3)
        self.assertEqual([e.seq for e in evs], [1, 2, 3])
        self.assertEqual(evs[2].content, self.big)
        with self.assertRaises(ValueError):
            self.ms.range(5, 1)
        with self.assertRaises(ValueError):
            self.ms.range(1, 1 + scroll_ms.MAX_RANGE_EVENTS)
        recent = self.ms.recent(2)
        self.assertEqual([e.session for e in recent], ["s1", "s1"])
        self.assertEqual([e.seq for e in recent], [self.seqs["ev1"], self.seqs["ev2"]])
        self.assertEqual(self.ms.recent(1, session="s2")[0].seq, self.seqs["other"])
        self.assertEqual(self.ms.recent(0), [])

    def test_payload(self):
        ev = self.ms.expand(self.seqs["big"])[0]
        self.assertEqual(self.ms.payload(ev.payload), self.big)
        with self.assertRaises(ValueError):
            self.ms.payload("../../etc/passwd")
        with self.assertRaises(FileNotFoundError):
            self.ms.payload("0" * 64)
        bad = "1" * 64
        os.makedirs(os.path.join(self.tmp, "payloads", "11"), exist_ok=True)
        with open(os.path.join(self.tmp, "payloads", "11", bad), "wb") as f:
            f.write(b"not what the handle says")
        with self.assertRaises(ValueError) as cm:
            self.ms.payload(bad)
        self.assertIn("damaged", str(cm.exception))

    def test_payload_json_is_parsed(self):
        data = json.dumps({"rows": list(range(3000))}).encode()
        handle = hashlib.sha256(data).hexdigest()
        d = os.path.join(self.tmp, "payloads", handle[:2])
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, handle), "wb") as f:
            f.write(data)
        self.assertEqual(self.ms.payload(handle)["rows"][2999], 2999)

    def test_sql_reads_and_caps_rows(self):
        rows = self.ms.sql("SELECT seq, kind FROM events WHERE session = ? ORDER BY seq", ("s1",))
        self.assertEqual(rows.columns, ["seq", "kind"])
        self.assertFalse(rows.truncated)
        self.assertEqual(rows[0]["kind"], "user_message")
        self.assertEqual(rows[0].seq, self.seqs["hello"])
        many = self.ms.sql("SELECT seq FROM events")
        self.assertEqual(len(many), scroll_ms.MAX_SQL_ROWS)
        self.assertTrue(many.truncated)

    def test_writes_raise_and_change_nothing(self):
        before = self.ms.sql("SELECT count(*) AS n FROM events")[0]["n"]
        attempts = [
            "INSERT INTO events(session, kind, role, content, bytes, tokens, ts) VALUES ('x','note','user','x',1,1,'t')",
            "DELETE FROM events",
            "UPDATE events SET content = 'x'",
            "DROP TABLE events",
            "CREATE TABLE t(x)",
            "PRAGMA user_version = 7",
        ]
        for q in attempts:
            with self.assertRaises((scroll_ms.ScrollReadOnlyError, sqlite3.DatabaseError), msg=q):
                self.ms.sql(q)
        with self.assertRaises(sqlite3.DatabaseError):
            self.ms._conn.execute("INSERT INTO events_fts(events_fts) VALUES ('delete-all')")
        attach = os.path.join(self.tmp, "side.db")
        with self.assertRaises(Exception):
            self.ms.sql("ATTACH DATABASE ? AS side", (attach,))
            self.ms.sql("CREATE TABLE side.t(x)")
        self.assertEqual(self.ms.sql("SELECT count(*) AS n FROM events")[0]["n"], before)

    def test_sql_one_statement(self):
        with self.assertRaises(ValueError):
            self.ms.sql("SELECT 1; SELECT 2")

    def test_index_without_snapshots_lists_each_eviction_block(self):
        idx = self.ms.index()
        self.assertEqual([(b["from"], b["to"], b["level"]) for b in idx], [(1, 2, 0), (1, 3, 1)])
        self.assertEqual(idx[0]["title"]["task"], "build")
        self.assertEqual(idx[1]["event_seq"], self.seqs["ev2"])
        self.assertEqual(self.ms.index(session="s2"), [])

    def test_index_is_the_latest_snapshot_the_agent_recorded(self):
        tmp = tempfile.mkdtemp(prefix="scroll-ms-index-")
        self.addCleanup(shutil.rmtree, tmp, True)
        b = make_builder(tmp)
        for i in range(6):
            b.add("model_turn", "assistant", "turn %d" % i, session="a")
        t = lambda n: {"task": "t%d" % n, "state": "s", "next": "n"}  # noqa: E731
        # The agent loop's eviction meta (src/core/agent/agentLoop.ts evictionMeta): the level-0
        # block of this sweep and the whole index after it.
        first = b.add("eviction", "system", "Evicted seq 1-2", session="a", meta={
            "level": 0, "from_seq": 1, "to_seq": 2, "title": t(1),
            "index": [{"level": 0, "from_seq": 1, "to_seq": 2, "segments": 1, "title": t(1)}]})
        last = b.add("eviction", "system", "Evicted seq 3-4", session="a", meta={
            "level": 0, "from_seq": 3, "to_seq": 4, "title": t(2),
            "index": [{"level": 1, "from_seq": 1, "to_seq": 2, "segments": 1, "title": t(1)},
                      {"level": 0, "from_seq": 3, "to_seq": 4, "segments": 1, "title": t(2)}]})
        b.close()
        ms = scroll_ms.connect(os.path.join(tmp, "scroll.db"), session="a")
        self.addCleanup(ms.close)
        idx = ms.index()
        self.assertEqual([(e.level, e.from_seq, e.to_seq) for e in idx], [(1, 1, 2), (0, 3, 4)])
        self.assertEqual({e.event_seq for e in idx}, {last})
        self.assertNotEqual(first, last)
        self.assertEqual([e.content for e in ms.range(idx[1].from_seq, idx[1].to_seq)], ["turn 2", "turn 3"])

    def test_help_is_short_and_every_method_documented(self):
        doc = scroll_ms.MemorySpace.__doc__
        self.assertLessEqual(len(doc.strip().splitlines()), 14)
        for name in ("search", "expand", "range", "recent", "payload", "sql", "index"):
            self.assertIn(name + "(", doc)
            method_doc = getattr(scroll_ms.MemorySpace, name).__doc__
            self.assertTrue(method_doc and len(method_doc.strip().splitlines()) <= 10, name)

    def test_search_argument_errors(self):
        with self.assertRaises(TypeError):
            self.ms.search(42)
        with self.assertRaises(ValueError):
            self.ms.search("x", scope="task")
        no_session = scroll_ms.connect(os.path.join(self.tmp, "scroll.db"))
        try:
            with self.assertRaises(ValueError):
                no_session.search("x", scope="session")
        finally:
            no_session.close()


def search_module_available():
    return os.path.exists(os.path.join(KERNEL_DIR, "scroll_search.py"))


@unittest.skipUnless(search_module_available(), "kernel/scroll_search.py not there yet")
class SearchThroughMsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="scroll-ms-search-")
        b = make_builder(cls.tmp)
        cls.a = b.add("user_message", "user", "the retry backoff doubles every attempt")
        cls.b = b.add("model_turn", "assistant", "retry logic lives in client.ts", session="s2")
        cls.c = b.add("tool_result", "tool", "unrelated output about colours", name="read_file")
        cls.d = b.add("user_message", "user", "why did the rebase stop halfway?", session="claude-code:7f3a",
                      meta={"source": "claude-code", "capture": {"record": "u-1"}})
        b.close()
        cls.ms = scroll_ms.connect(os.path.join(cls.tmp, "scroll.db"), session="s1")

    @classmethod
    def tearDownClass(cls):
        cls.ms.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_hits_carry_seq_and_filters_apply(self):
        def exact(hits):
            # Neighbours of a match come back too, marked broadened; the exact matches are these.
            return sorted(h.seq for h in hits if not h.broadened)
        hits = self.ms.search("retry")
        self.assertIsInstance(hits, scroll_ms.Hits)
        self.assertEqual(exact(hits), [self.a, self.b])
        for h in hits:
            for key in ("seq", "score", "kind", "role", "session", "ts", "snippet", "broadened"):
                self.assertIn(key, h)
        self.assertIn("«retry»", hits[0].snippet)
        self.assertEqual(exact(self.ms.search("retry", scope="session")), [self.a])
        self.assertEqual([h.seq for h in self.ms.search("retry", kind="model_turn")], [self.b])
        self.assertEqual([h.seq for h in self.ms.search("retry", seq_range=(2, 3))], [self.b])
        self.assertEqual(self.ms.expand(self.ms.search("colours"))[0].seq, self.c)
        # Captured transcripts: source filters on the agent they came from (meta.source).
        self.assertEqual([h.seq for h in self.ms.search("retry rebase", source="claude-code")], [self.d])
        self.assertEqual(exact(self.ms.search("rebase")), [self.d])
        self.assertEqual(len(self.ms.search("rebase", source="codex")), 0)
        with self.assertRaises(TypeError):
            self.ms.search("rebase", source=["claude-code"])
        empty = self.ms.search("!!! ???")
        self.assertEqual(len(empty), 0)
        self.assertTrue(empty.message)


def vectors_path():
    return os.path.join(ROOT, "test", "vectors", "search-vectors.json")


def _kwargs(opts):
    kw = {k: opts[k] for k in ("k", "kind", "role", "session", "name", "offset", "source") if k in opts}
    if "seqFrom" in opts or "seqTo" in opts:
        kw["seq_range"] = (opts.get("seqFrom"), opts.get("seqTo"))
    if "tsFrom" in opts or "tsTo" in opts:
        kw["ts_range"] = (opts.get("tsFrom"), opts.get("tsTo"))
    return kw


def _batchable(opts):
    """`scroll search --batch` takes k, session and a single kind/role."""
    return all(k in ("k", "session", "kind", "role") and (k in ("k", "session") or isinstance(v, str))
               for k, v in opts.items())


@unittest.skipUnless(search_module_available() and os.path.exists(vectors_path()) and cli_available(),
                     "search module, shared vectors or the built scroll CLI not there yet")
class SharedSearchVectorsThroughMsTest(unittest.TestCase):
    """The search vectors run through ms.search on databases built by the real `scroll ingest`
    (so the index text is exactly what TypeScript writes), compared with `scroll search --batch`
    (the TypeScript search) and with each vector's `expect` when it has one."""

    @classmethod
    def setUpClass(cls):
        with open(vectors_path(), encoding="utf-8") as f:
            cls.vectors = json.load(f)
        cls.tmp = tempfile.mkdtemp(prefix="scroll-ms-vectors-")
        cls.spaces = {}
        cls.dbs = {}
        for name, events in cls.vectors["corpora"].items():
            folder = os.path.join(cls.tmp, name)
            os.makedirs(folder)
            ingest_with_cli(folder, events, session="vectors")
            db = os.path.join(folder, "scroll.db")
            cls.dbs[name] = db
            cls.spaces[name] = scroll_ms.connect(db, session="vectors")

    @classmethod
    def tearDownClass(cls):
        for ms in cls.spaces.values():
            ms.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def _typescript(self, corpus, queries):
        lines = []
        for i, v in queries:
            req = {"id": str(i), "query": v["query"]}
            req.update(v.get("opts") or {})
            lines.append(json.dumps(req))
        r = subprocess.run(["node", os.path.join(ROOT, "bin", "scroll.js"), "search", "--batch", "-", "--db", self.dbs[corpus]],
                           input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=ROOT, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = {}
        for line in r.stdout.splitlines():
            if line.strip():
                res = json.loads(line)
                out[int(res["id"])] = [h["seq"] for h in res["hits"]]
        return out

    def test_vectors(self):
        queries = list(enumerate(self.vectors["queries"]))
        batch = {}
        for corpus in self.vectors["corpora"]:
            todo = [(i, v) for i, v in queries if v["corpus"] == corpus and _batchable(v.get("opts") or {})]
            batch.update(self._typescript(corpus, todo))
        self.assertGreater(len(batch), len(queries) // 2)
        for i, v in queries:
            with self.subTest(v["name"]):
                hits = self.spaces[v["corpus"]].search(v["query"], **_kwargs(v.get("opts") or {}))
                seqs = [h.seq for h in hits]
                if i in batch:
                    self.assertEqual(seqs, batch[i], "ms.search and the TypeScript search disagree")
                if "expect" in v:
                    self.assertEqual(seqs, v["expect"])
                if isinstance(v.get("broadened"), bool):
                    self.assertEqual(hits.broadened, v["broadened"])


def eviction_vectors_path():
    return os.path.join(ROOT, "test", "vectors", "eviction-vectors.json")


@unittest.skipUnless(os.path.exists(eviction_vectors_path()), "no shared eviction vectors")
class SharedEvictionVectorsTest(unittest.TestCase):
    """ms.index() on the shared eviction vectors (test/vectors/eviction-vectors.json): the same
    answer as the host's ms.index() and the TypeScript contract (src/core/log/eventMeta.ts), which
    test/unit/log/eventMetaVectors.test.ts holds to the same file."""

    def test_index_answers(self):
        with open(eviction_vectors_path(), encoding="utf-8") as f:
            vectors = json.load(f)
        self.assertGreaterEqual(len(vectors["cases"]), 2)
        for case in vectors["cases"]:
            tmp = tempfile.mkdtemp(prefix="scroll-ms-eviction-")
            self.addCleanup(shutil.rmtree, tmp, True)
            b = make_builder(tmp)
            for e in case["events"]:
                b.add(e["kind"], e["role"], e["content"], session=e.get("session", "s1"), name=e.get("name"),
                      meta=e.get("meta"), headline=e.get("headline"), step=e.get("step"))
            b.close()
            ms = scroll_ms.connect(os.path.join(tmp, "scroll.db"))
            self.addCleanup(ms.close)
            for q in case["index"]:
                with self.subTest(case=case["name"], session=q["session"]):
                    idx = ms.index() if q["session"] is None else ms.index(session=q["session"])
                    self.assertEqual([dict(e) for e in idx], q["expect"])
                    for e in idx:
                        self.assertEqual(e.event_seq, e["event_seq"])

    def test_index_functions_on_rows(self):
        # The two halves of index() on (seq, meta) rows, as eventMeta.ts indexFromSnapshot/indexFromBlocks.
        snap = [{"level": 0, "from_seq": 1, "to_seq": 2, "segments": 1, "title": {"task": "t", "state": "s", "next": "n"}}]
        self.assertEqual(scroll_ms._index_from_snapshot((7, {"index": snap})), [dict(snap[0], event_seq=7)])
        self.assertIsNone(scroll_ms._index_from_snapshot((7, {"index": [1]})))
        self.assertIsNone(scroll_ms._index_from_snapshot((7, {})))
        self.assertEqual(scroll_ms._index_from_snapshot((7, {"index": []})), [])
        self.assertEqual(scroll_ms._index_from_blocks([(3, {"block": {"fromSeq": 1}}), (4, {"blocks": [{"event_seq": 9}, 5]}), (5, {"raw": "x"})]),
                         [{"fromSeq": 1, "event_seq": 3}, {"event_seq": 9}, {"block": 5, "event_seq": 4}, {"raw": "x", "event_seq": 5}])


if __name__ == "__main__":
    unittest.main()
