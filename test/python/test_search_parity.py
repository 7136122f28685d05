"""kernel/scroll_search.py must search exactly like the TypeScript search (src/core/search).

Each corpus of test/vectors/search-vectors.json is ingested through the real CLI
(`node bin/scroll.js ingest`), then every vector query must return the expected seqs in order;
the same queries are also run through `scroll search --json` (the TypeScript search) and the two
must agree on seqs and scores. Plus: stems equal the ones SQLite writes, stop words equal the
TypeScript list, and hostile input never raises.
"""

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernel"))

import scroll_search  # noqa: E402

VECTORS = os.path.join(ROOT, "test", "vectors", "search-vectors.json")
CLI = os.path.join(ROOT, "bin", "scroll.js")


def _cli(*args):
    return subprocess.run(["node", CLI, *args], capture_output=True, text=True, timeout=120)


def _shared_constants():
    with open(os.path.join(ROOT, "kernel", "search_constants.json"), encoding="utf-8") as f:
        return json.load(f)


def _kwargs(opts):
    kw = {}
    for key in ("k", "kind", "role", "session", "name", "offset", "source"):
        if key in opts:
            kw[key] = opts[key]
    if "seqFrom" in opts or "seqTo" in opts:
        kw["seq_range"] = (opts.get("seqFrom"), opts.get("seqTo"))
    if "tsFrom" in opts or "tsTo" in opts:
        kw["ts_range"] = (opts.get("tsFrom"), opts.get("tsTo"))
    return kw


class SearchParityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(VECTORS, encoding="utf-8") as f:
            cls.vectors = json.load(f)
        cls.tmp = tempfile.mkdtemp(prefix="scroll-search-parity-")
        cls.dbs = {}
        for name, events in cls.vectors["corpora"].items():
            out = cls._ingest(name, events)
            assert out["first_seq"] == 1 and out["appended"] == len(events), out
            cls.dbs[name] = os.path.join(cls.tmp, name, "scroll.db")
        cls.conns = {n: sqlite3.connect("file:%s?mode=ro" % p, uri=True) for n, p in cls.dbs.items()}

    @classmethod
    def _ingest(cls, name, events):
        """Appends `events` to the log <tmp>/<name>/scroll.db through the TypeScript CLI."""
        src = os.path.join(cls.tmp, name + ".jsonl")
        with open(src, "w", encoding="utf-8") as f:
            for e in events:
                f.write(json.dumps(e, ensure_ascii=False) + "\n")
        r = _cli("ingest", src, "--db", os.path.join(cls.tmp, name, "scroll.db"))
        if r.returncode != 0:
            raise RuntimeError("scroll ingest failed: %s %s" % (r.stdout, r.stderr))
        return json.loads(r.stdout)

    @classmethod
    def tearDownClass(cls):
        for c in cls.conns.values():
            c.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_vectors(self):
        for q in self.vectors["queries"]:
            with self.subTest(q["name"]):
                r = scroll_search.search(self.conns[q["corpus"]], q["query"], **_kwargs(q.get("opts", {})))
                self.assertEqual([h["seq"] for h in r["hits"]], q["expect"])
                self.assertEqual([h["seq"] for h in r["hits"] if h["broadened"]], q["broadened"])
                self.assertEqual(r["broadened"], bool(q["broadened"]))
                if q.get("terms") is not None:
                    self.assertEqual(r["terms"], q["terms"])
                self.assertEqual(r["pruned"], q["pruned"])
                self.assertEqual(bool(r["message"]), q["message"])
                if "snippetContains" in q:
                    self.assertTrue(any(q["snippetContains"] in h["snippet"] for h in r["hits"]),
                                    [h["snippet"] for h in r["hits"]])
                for h in r["hits"]:
                    self.assertEqual(set(h), {"seq", "score", "kind", "role", "session", "ts", "name", "headline",
                                              "snippet", "broadened", "match"})
                    self.assertEqual(h["broadened"], h["match"] != "every")

    def test_same_seqs_and_scores_as_the_typescript_cli(self):
        flags = {"k": "--k", "kind": "--kind", "role": "--role", "session": "--session",
                 "seqFrom": "--seq-from", "seqTo": "--seq-to"}
        checked = 0
        for q in self.vectors["queries"]:
            opts = q.get("opts", {})
            if not q["query"].strip() or len(q["query"]) > 500 or any(
                    k not in flags or isinstance(v, list) for k, v in opts.items()):
                continue
            args = ["search", q["query"], "--db", self.dbs[q["corpus"]], "--json"]
            for key, v in opts.items():
                args += [flags[key], str(v)]
            r = _cli(*args)
            self.assertEqual(r.returncode, 0, r.stderr)
            ts_out = json.loads(r.stdout)
            ts_hits = ts_out["hits"]
            py_out = scroll_search.search(self.conns[q["corpus"]], q["query"], **_kwargs(opts))
            py_hits = py_out["hits"]
            with self.subTest(q["name"]):
                self.assertEqual([h["seq"] for h in py_hits], [h["seq"] for h in ts_hits])
                for a, b in zip(py_hits, ts_hits):
                    self.assertAlmostEqual(a["score"], b["score"], places=9)
                    self.assertEqual(a["snippet"], b["snippet"])
                    self.assertEqual(a["match"], b["match"])
                self.assertEqual(py_out.get("ignored"), ts_out.get("ignored"))
            checked += 1
        self.assertGreater(checked, 20)

    def test_stems_match_sqlite(self):
        words = set()
        for events in self.vectors["corpora"].values():
            for e in events:
                words.update(scroll_search.fold(w) for w in scroll_search.TOKEN_RE.findall(e["content"]))
        words.update("""caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled
            sized hopping tanned falling hissing fizzed failing filing happy sky relational conditional rational
            valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization
            predication operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti
            triplicate formative formalize electriciti electrical hopeful goodness revival allowance inference
            airliner gyroscopic adjustable defensible irritant replacement adjustment dependent adoption homologou
            communism activate angulariti homologous effective bowdlerize probate rate cease controll roll
            generalizations oscillators agreement yesterday dying lying eyeing flying skies abc ab xyzzy
            résumé naïve café""".split())
        words = sorted(scroll_search.fold(w) for w in words)
        db = sqlite3.connect(":memory:")
        db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = \"porter unicode61 remove_diacritics 2 tokenchars '_'\")")
        db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", [(i + 1, w) for i, w in enumerate(words)])
        for doc, term in db.execute("SELECT doc, term FROM v"):
            self.assertEqual(scroll_search.porter_stem(words[doc - 1]), term, words[doc - 1])

    def test_stop_words_equal_typescript(self):
        # TypeScript's stop words are the ones src/core/search/constants.ts loads from the shared file.
        with open(os.path.join(ROOT, "src", "core", "search", "constants.ts"), encoding="utf-8") as f:
            src = f.read()
        self.assertIn("from '../../../kernel/search_constants.json'", src)
        self.assertIn("new Set(rules.STOP_WORDS)", src)
        self.assertEqual(set(_shared_constants()["STOP_WORDS"]), set(scroll_search.STOP_WORDS))

    def _typescript(self, module, expression, **values):
        """`expression` evaluated by node with the built out/src/core/search/<module> as `a`, query.js as `p`
        and each of `values` bound."""
        built = os.path.join(ROOT, "out", "src", "core", "search", module)
        if not os.path.exists(built):
            self.skipTest("out/ is not built (npx tsc -p .)")
        binds = "".join("const %s = %s;" % (k, json.dumps(v)) for k, v in values.items())
        query = os.path.join(ROOT, "out", "src", "core", "search", "query.js")
        script = "const a = require(%s); const p = require(%s); %s process.stdout.write(JSON.stringify(%s))" % (
            json.dumps(built), json.dumps(query), binds, expression)
        r = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_answer_types_equal_typescript(self):
        # The question forms and cue patterns are built from the shared file by both; the same
        # strings must give the same kinds and the same yes / no in TypeScript (the built answerType.js).
        questions = ["When did I go?", "when did Caroline meet Anna", "In which city did John play?",
                     "For how long has Nate had turtles?", "How long ago did I move?", "How many bowls?",
                     "According to John, who is his hero?", "Where is it?", "What did he do when young?",
                     "throw new RetryError when", "sql where clause", "Is the friend who wrote it alive?",
                     "  \"When\" was it", "in\u00a0which city", "WHOSE idea", "wh\u0131ch city", "\u212aow many",
                     "", "??", "what year did she", "how often do i run"]
        texts = ["I went yesterday.", "last   week", "last\u00a0week", "in 2021", "3 bowls", "Someone came",
                 "It was Matt Patterson, so talented.", "Anna came.", "we went to Paris", "near the lake",
                 "LAST WEEK", "\u212aast week", "my second try", "a few times", "", "Caf\u00e9 Rome"]
        kinds = [["time"], ["number"], ["person"], ["place"], ["number", "time"]]
        ts_types, ts_holds = self._typescript("answerType.js", "[q.map((x) => a.answerTypeOf(x) ?? null), t.map((x) => k.map((y) => a.holdsAnswerType(x, y)))]",
                                              q=questions, t=texts, k=kinds)
        self.assertEqual([scroll_search.answer_type_of(q) for q in questions], ts_types)
        self.assertEqual([[scroll_search.holds_answer_type(t, k) for k in kinds] for t in texts], ts_holds)

    def test_proximity_equals_typescript(self):
        # The same query and text must give the same share of adjacent terms found together in
        # TypeScript (the built proximity.js): code points, stems, irregular forms, parts, CJK.
        gap = "x" * (scroll_search.PROXIMITY_WINDOW - 7)
        queries = ["red barn", "night train ticket", "what did Melanie buy", "user id", "retries exhausted",
                   "\uc7ac\uc2dc\ub3c4 \u4e0a\u9650", "what day", "barn", ""]
        texts = ["the red barn", "red %s\U0001f600\U0001f600 barn" % gap, "red %s\U0001f600\U0001f600\U0001f600 barn" % gap,
                 "barn %s the barn was red" % ("x" * 80), "the night train left; %s a ticket" % ("z" * 70),
                 "Melanie: we bought a tent", "getUserById(user_id)", "the retry budget was exhausted",
                 "\uc7ac\uc2dc\ub3c4\ub97c \u4e0a\u9650\u662f", "what a day", "Caf\u00e9 red barn", ""]
        ts = self._typescript("proximity.js", "q.map((x) => t.map((y) => a.nearPairShare(y, a.termPrefixes(p.parseQuery(x).terms))))",
                              q=queries, t=texts)
        py = [[scroll_search.near_pair_share(t, scroll_search.term_prefixes(scroll_search.parse_query(q)["terms"])) for t in texts]
              for q in queries]
        self.assertEqual(py, ts)
        self.assertEqual(py[0][1], 1)  # two emoji are two characters: within the window
        self.assertEqual(py[0][2], 0)

    def test_questions_about_the_user_equal_typescript(self):
        # The same strings must give the same answer in TypeScript (the built selfReference.js).
        queries = ["What did I name my cat?", "what did you suggest for my trip", "Can you remind me what I said?",
                   "could you tell me where you said I parked", "I\u2019m sure I said it", "\u2018my\u2019 cap",
                   "'you' and I", "mine sweeper", "iPhone", "MY CAT", "\u0130 said", "I\u0307 said", "you-know-what I",
                   "canyou help me", "can  you help me", "can\u00a0you help me", "", "I", "?!", "yours and mine, I think"]
        ts = self._typescript("selfReference.js", "q.map((x) => a.asksAboutUser(x))", q=queries)
        self.assertEqual([scroll_search.asks_about_user(q) for q in queries], ts)
        self.assertEqual(scroll_search.asks_about_user("What did I name my cat?"), True)
        self.assertEqual(scroll_search.asks_about_user("What did you name my cat?"), False)

    def test_ranking_constants_come_from_the_shared_file(self):
        shared = _shared_constants()
        for name, value in shared.items():
            if name.startswith("$") or name == "STOP_WORDS":
                continue
            with self.subTest(name):
                ours = getattr(scroll_search, name)
                if name == "CJK_RANGES":
                    ours = ["%X-%X" % r for r in ours]
                if isinstance(ours, frozenset):  # a word list, read as a set
                    ours, value = sorted(ours), sorted(value)
                self.assertEqual(list(ours) if isinstance(ours, tuple) else ours, value)
        self.assertEqual(scroll_search._RANK, "bm25(events_fts, 10.0, 0.5, 2.0, 5.0)")
        # No number of the shared file is written in the module itself.
        with open(os.path.join(ROOT, "kernel", "scroll_search.py"), encoding="utf-8") as f:
            src = f.read()
        for name in shared:
            if not name.startswith("$"):
                self.assertIsNone(re.search(r"^%s = [0-9(]" % name, src, re.M), name)

    def test_hostile_input_never_raises(self):
        conn = self.conns["main"]
        for q in ['"', '""', "(", ")", "NEAR(", "a NEAR/2 b", "*", "-", "-x", "x*", "^x", "a:b", "{a b}: c",
                  "AND", "OR NOT", "'", "\\", "\x00", "😀 emoji", "x" * 20000, "a " * 5000, None, 42]:
            r = scroll_search.search(conn, q, k=5)
            self.assertIsInstance(r["hits"], list)
        r = scroll_search.search(conn, "", k=5)
        self.assertEqual(r["hits"], [])
        self.assertIn("nothing to search", r["message"])

    def test_pruning_follows_the_log_as_it_grows(self):
        db = os.path.join(self.tmp, "grow", "scroll.db")

        def ingest(contents):
            self._ingest("grow", [{"kind": "note", "role": "assistant", "content": c, "session": "s"} for c in contents])

        ingest(["deploy timeout on staging", "health check ok", "database migrated", "cache warmed"])
        conn = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        try:
            self.assertEqual(scroll_search.search(conn, "deploy timeout")["pruned"], [])
            ingest(["deploy one", "deploy two", "deploy three", "deploy four"])  # 5 of 8
            self.assertEqual(scroll_search.search(conn, "deploy timeout")["pruned"], ["deploy"])
            ingest(["a", "b", "c", "d"])  # 5 of 12
            self.assertEqual(scroll_search.search(conn, "deploy timeout")["pruned"], [])
        finally:
            conn.close()

    def test_paging_walks_one_fixed_list_like_typescript(self):
        # The corpus of test/unit/search/paging.test.ts: pages of 7 concatenate to the k=500 list.
        events = []
        for i in range(300):
            if i % 3 == 0:
                content = "retry %sthe upload of chunk %d after a timeout number %d" % ("retry " * (i % 5), i, i * 7)
            else:
                content = "filler line %d about caching, logging and %s" % (i, "queues" if i % 2 else "workers")
            events.append({"kind": "tool_result", "role": "tool", "content": content, "session": "s%d" % (i % 3)})
        self._ingest("paging", events)
        db = os.path.join(self.tmp, "paging", "scroll.db")
        conn = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        try:
            full = [h["seq"] for h in scroll_search.search(conn, "retry timeout", k=500)["hits"]]
            self.assertGreaterEqual(len(full), 100)
            paged = []
            for offset in range(0, len(full), 7):
                paged += [h["seq"] for h in scroll_search.search(conn, "retry timeout", k=7, offset=offset)["hits"]]
            self.assertEqual(paged, full)
            ts = _cli("search", "retry timeout", "--k", "500", "--db", db, "--json")
            self.assertEqual(ts.returncode, 0, ts.stderr)
            out = json.loads(ts.stdout)
            hits = out["hits"] if isinstance(out, dict) else out
            self.assertEqual([h["seq"] for h in hits], full)
        finally:
            conn.close()

    def test_a_damaged_index_is_a_message_with_the_way_out_not_an_exception(self):
        self._ingest("damaged", [{"kind": "note", "role": "user", "content": "deploy timeout %d retry" % i} for i in range(200)])
        db = os.path.join(self.tmp, "damaged", "scroll.db")
        w = sqlite3.connect(db)
        w.execute("UPDATE events_fts_data SET block = X'00' WHERE id > 10")
        w.commit()
        w.close()
        conn = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        try:
            for q in ("deploy", "deploy timeout"):
                out = scroll_search.search(conn, q)
                self.assertEqual(out["hits"], [])
                self.assertIn("scroll reindex", out["message"])
                self.assertIn(scroll_search.DAMAGED_INDEX_HINT, out["message"])
        finally:
            conn.close()
        with open(os.path.join(ROOT, "src", "core", "search", "search.ts"), encoding="utf-8") as f:
            ts = re.search(r"export const DAMAGED_INDEX_HINT = '([^']*)'", f.read()).group(1)
        self.assertEqual(ts, scroll_search.DAMAGED_INDEX_HINT)

    def test_bad_arguments_are_clamped_not_raised(self):
        conn = self.conns["main"]
        self.assertEqual(len(scroll_search.search(conn, "pool", k=0)["hits"]), 1)
        self.assertEqual(len(scroll_search.search(conn, "pool", k="x")["hits"]),
                         len(scroll_search.search(conn, "pool")["hits"]))
        self.assertEqual(scroll_search.search(conn, "pool", offset=-3)["hits"][0]["seq"],
                         scroll_search.search(conn, "pool")["hits"][0]["seq"])
        self.assertEqual(scroll_search.search(conn, "pool", seq_range=(20, 10))["hits"], [])


if __name__ == "__main__":
    unittest.main()
