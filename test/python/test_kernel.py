"""Tests of kernel/scroll_kernel.py: the JSON-lines protocol of Scroll's own kernel process."""

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from test_ms import ROOT, make_builder  # noqa: E402

KERNEL = os.path.join(ROOT, "kernel", "scroll_kernel.py")


class KernelProcess:
    """Drives one kernel process over its pipes, with a deadline on every read."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([sys.executable, KERNEL, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buf = b""
        self.ready = self.read(10)

    def read(self, timeout):
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("kernel did not answer within %ss" % timeout)
            r, _, _ = select.select([fd], [], [], left)
            if r:
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise AssertionError("kernel closed stdout; stderr: %s" % self.proc.stderr.read().decode())
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def run(self, code, rid=None, timeout_ms=None, wait=10):
        req = {"id": rid if rid is not None else code[:20], "code": code}
        if timeout_ms is not None:
            req["timeout_ms"] = timeout_ms
        self.send_raw((json.dumps(req) + "\n").encode())
        return self.read(wait)

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


class KernelProtocolTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="scroll-kernel-")
        b = make_builder(cls.tmp)
        cls.first = b.add("user_message", "user", "the deploy key rotates on Mondays")
        b.add("model_turn", "assistant", "noted", session="s1")
        b.close()
        cls.db = os.path.join(cls.tmp, "scroll.db")
        cls.k = KernelProcess("--db", cls.db, "--session", "s1", "--output-cap", "1000", "--mem-mb", "1024")

    @classmethod
    def tearDownClass(cls):
        cls.k.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_ready_line(self):
        self.assertTrue(self.k.ready["ready"])
        self.assertEqual(self.k.ready["pid"], self.k.proc.pid)

    def test_response_shape_and_persistence(self):
        r = self.k.run("persisted = [1, 2, 3]", rid="a1")
        self.assertEqual(r["id"], "a1")
        for key in ("stdout", "stderr", "error", "duration_ms", "variables"):
            self.assertIn(key, r)
        self.assertIsNone(r["error"])
        r = self.k.run("print(sum(persisted))")
        self.assertEqual(r["stdout"], "6\n")
        var = [v for v in r["variables"] if v["name"] == "persisted"][0]
        self.assertEqual(var, {"name": "persisted", "type": "list", "size": "3 items"})
        self.assertNotIn("ms", [v["name"] for v in r["variables"]])

    def test_last_expression_is_shown(self):
        self.assertEqual(self.k.run("x = 20\nx + 1")["stdout"], "21\n")
        self.assertEqual(self.k.run("None")["stdout"], "")
        self.assertEqual(self.k.run("'a' * 3")["stdout"], "'aaa'\n")
        self.assertEqual(self.k.run("y = 2")["stdout"], "")

    def test_top_level_await(self):
        r = self.k.run("import asyncio\nawait asyncio.sleep(0)\nv = await asyncio.sleep(0, result=7)\nv * 6")
        self.assertIsNone(r["error"], r["error"])
        self.assertEqual(r["stdout"], "42\n")

    def test_errors_have_cell_traceback(self):
        r = self.k.run("def f():\n    return 1 / 0\nf()")
        self.assertEqual(r["error"]["ename"], "ZeroDivisionError")
        tb = "".join(r["error"]["traceback"])
        self.assertIn("<cell-", tb)
        self.assertIn("return 1 / 0", tb)
        self.assertNotIn("scroll_kernel.py", tb)
        self.assertEqual(self.k.run("1 +")["error"]["ename"], "SyntaxError")

    def test_output_cap(self):
        r = self.k.run("print('x' * 5000)")
        self.assertTrue(r["truncated"])
        self.assertTrue(r["stdout"].startswith("x" * 1000 + "\n[scroll: output truncated"))
        self.assertIn("Print less", r["stdout"])
        self.assertFalse(self.k.run("print('short')")["truncated"])

    def test_native_output_is_captured(self):
        r = self.k.run("import os\nrc = os.system('echo from-a-subprocess')")
        self.assertIn("from-a-subprocess", r["stdout"])
        # The protocol channel survived a write to fd 1.
        self.assertEqual(self.k.run("print('still fine')")["stdout"], "still fine\n")

    def test_stdin_is_empty(self):
        self.assertEqual(self.k.run("input()")["error"]["ename"], "EOFError")

    def test_timeout_interrupts_and_keeps_variables(self):
        self.k.run("kept = 'yes'")
        started = time.monotonic()
        r = self.k.run("while True: pass", timeout_ms=300)
        self.assertLess(time.monotonic() - started, 3)
        self.assertEqual(r["error"]["ename"], "TimeoutError")
        self.assertIn("300 ms", r["error"]["evalue"])
        self.assertEqual(self.k.run("kept")["stdout"], "'yes'\n")

    def test_timeout_is_not_swallowed_by_except_exception(self):
        r = self.k.run("while True:\n    try:\n        pass\n    except Exception:\n        pass", timeout_ms=200)
        self.assertEqual(r["error"]["ename"], "TimeoutError")

    def test_sigint_interrupts_a_cell(self):
        # Not beside the log: the kernel refuses to write there.
        flag_dir = tempfile.mkdtemp(prefix="scroll-flag-")
        self.addCleanup(shutil.rmtree, flag_dir, True)
        flag = os.path.join(flag_dir, "sleepy-started")
        code = "import time\nopen(%r, 'w').close()\ntime.sleep(30)" % flag
        self.k.send_raw((json.dumps({"id": "sleepy", "code": code}) + "\n").encode())
        deadline = time.monotonic() + 10
        while not os.path.exists(flag):  # the cell is running: now the interrupt has something to stop
            self.assertLess(time.monotonic(), deadline, "the cell never started")
            time.sleep(0.01)
        os.kill(self.k.proc.pid, signal.SIGINT)
        r = self.k.read(5)
        self.assertEqual(r["id"], "sleepy")
        self.assertEqual(r["error"]["ename"], "KeyboardInterrupt")
        # An interrupt while idle is ignored.
        os.kill(self.k.proc.pid, signal.SIGINT)
        time.sleep(0.1)
        self.assertEqual(self.k.run("print(5)")["stdout"], "5\n")

    def test_malformed_lines_get_error_responses(self):
        self.k.send_raw(b'not json at all\n')
        r = self.k.read(5)
        self.assertEqual(r["error"]["ename"], "ProtocolError")
        self.k.send_raw(b'{"id": 77, "code": \n')
        self.assertEqual(self.k.read(5)["id"], 77)
        self.k.send_raw(b'{"id": 78}\n')
        r = self.k.read(5)
        self.assertEqual((r["id"], r["error"]["ename"]), (78, "ProtocolError"))
        self.k.send_raw(b'[1, 2]\n')
        self.assertEqual(self.k.read(5)["error"]["ename"], "ProtocolError")
        self.k.send_raw(b'{"id": 79, "code": "1", "timeout_ms": -5}\n')
        self.assertEqual(self.k.read(5)["error"]["ename"], "ProtocolError")
        self.k.send_raw(b'\xff\xfe\n')
        self.assertEqual(self.k.read(5)["error"]["ename"], "ProtocolError")
        self.assertEqual(self.k.run("print('alive')")["stdout"], "alive\n")

    def test_ms_is_bound(self):
        r = self.k.run("print(ms.session, ms.expand(%d)[0].content)" % self.first)
        self.assertEqual(r["stdout"], "s1 the deploy key rotates on Mondays\n")
        r = self.k.run("help(ms)")
        self.assertIn("search(query", r["stdout"])

    def test_writes_from_kernel_code_fail_and_log_is_unchanged(self):
        before = os.path.getsize(self.db), self._count()
        attempts = [
            "ms.sql(\"DELETE FROM events\")",
            "ms._conn.execute(\"INSERT INTO events(session,kind,role,content,bytes,tokens,ts) VALUES ('x','note','u','x',1,1,'t')\")",
            "import sqlite3\nsqlite3.connect(%r).execute('CREATE TABLE evil(x)')" % self.db,
            "open(%r, 'ab').write(b'garbage')" % self.db,
            "import os\nos.remove(%r)" % self.db,
            "import os\nos.open(%r, os.O_WRONLY)" % self.db,
        ]
        for code in attempts:
            r = self.k.run(code)
            self.assertIsNotNone(r["error"], code)
        self.assertEqual((os.path.getsize(self.db), self._count()), before)
        # Reading through an explicit read-only connection is allowed.
        r = self.k.run("import sqlite3\nsqlite3.connect('file:%s?mode=ro', uri=True).execute('select count(*) from events').fetchone()[0]" % self.db)
        self.assertIsNone(r["error"], r["error"])

    def test_memory_cap(self):
        r = self.k.run("big = bytearray(2 * 1024 * 1024 * 1024)")
        self.assertEqual(r["error"]["ename"], "MemoryError")
        self.assertEqual(self.k.run("print('after')")["stdout"], "after\n")

    def test_exit_is_ignored(self):
        r = self.k.run("exit(3)")
        self.assertEqual(r["error"]["ename"], "SystemExit")
        self.assertEqual(self.k.run("print('here')")["stdout"], "here\n")

    def _count(self):
        import sqlite3
        conn = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True)
        try:
            return conn.execute("SELECT count(*) FROM events").fetchone()[0]
        finally:
            conn.close()


class KernelWithoutDatabaseTest(unittest.TestCase):
    def test_runs_without_db_and_reports_bad_db(self):
        k = KernelProcess()
        try:
            self.assertTrue(k.ready["ready"])
            self.assertEqual(k.run("print(ms)")["stdout"], "None\n")
        finally:
            k.close()
        k = KernelProcess("--db", "/nonexistent/scroll.db")
        try:
            self.assertFalse(k.ready["ready"])
            self.assertIn("no event log", k.ready["error"]["evalue"])
        finally:
            k.close()


if __name__ == "__main__":
    unittest.main()
