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
sys.path.insert(0, os.path.join(ROOT, "kernel"))
import scroll_ms  # noqa: E402


class HostDouble:
    """Test double of the host side of `ms` (docs/MEMORY-PROTOCOL.md), answering from the standalone
    Python reader. The real host is TypeScript (src/core/memory); this one only exercises the
    kernel's half of the protocol."""

    ERRORS = ((scroll_ms.ScrollReadOnlyError, "PermissionError"), (KeyError, "KeyError"),
              (ValueError, "ValueError"), (TypeError, "TypeError"))

    def __init__(self, db, session):
        self.ms = scroll_ms.connect(db, session=session)
        self.calls = []
        self.stale_first = False

    def reply(self, msg):
        self.calls.append(msg["method"])
        try:
            return {"ms_reply": msg["ms_call"], "result": self.answer(msg["method"], msg.get("args") or {})}
        except Exception as exc:  # noqa: BLE001 — every error goes back to the kernel
            kind = next((name for cls, name in self.ERRORS if isinstance(exc, cls)), "RuntimeError")
            return {"ms_reply": msg["ms_call"], "error": {"type": kind, "message": str(exc).strip("'\"")}}

    def answer(self, method, a):
        ms = self.ms
        if method == "search":
            hits = ms.search(a["query"], k=a["k"], kind=a["kind"], role=a["role"], session=a["session"],
                             name=a["name"], seq_range=a["seq_range"], ts_range=a["ts_range"],
                             offset=a["offset"], snippet=a["snippet"], scope=a["scope"])
            return {"hits": [dict(h) for h in hits], "broadened": hits.broadened, "terms": hits.terms,
                    "pruned": hits.pruned, "message": hits.message}
        if method in ("expand", "range", "recent"):
            evs = (ms.expand(a["seqs"]) if method == "expand" else ms.range(a["a"], a["b"]) if method == "range"
                   else ms.recent(a["n"], a["session"]))
            return {"events": [dict(e) for e in evs]}
        if method == "sql":
            rows = ms.sql(a["query"], a["params"])
            return {"columns": rows.columns, "rows": [list(r.values()) for r in rows], "truncated": rows.truncated}
        if method == "index":
            return {"blocks": [dict(b) for b in ms.index(a["session"])]}
        raise ValueError("unknown method %s" % method)


class KernelProcess:
    """Drives one kernel process over its pipes, with a deadline on every read. With a `host`,
    the kernel's `ms` calls are answered by it."""

    def __init__(self, *args, host=None):
        if host is not None:
            args = ("--ms", "host") + args
        self.host = host
        self.proc = subprocess.Popen([sys.executable, KERNEL, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buf = b""
        self.ready = self.read(10)

    def read(self, timeout):
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while True:
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
            msg = json.loads(line)
            if isinstance(msg, dict) and "ms_call" in msg:
                if self.host is None:
                    raise AssertionError("the kernel called ms without a host: %r" % msg)
                if self.host.stale_first:  # a reply to an earlier, interrupted call arrives first
                    self.send_raw((json.dumps({"ms_reply": msg["ms_call"] - 1000, "result": "stale"}) + "\n").encode())
                self.send_raw((json.dumps(self.host.reply(msg), default=str) + "\n").encode())
                continue
            return msg

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
        cls.host = HostDouble(cls.db, "s1")
        cls.k = KernelProcess("--session", "s1", "--output-cap", "1000", "--mem-mb", "1024", host=cls.host)

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

    def test_ms_goes_through_the_host(self):
        r = self.k.run("h = ms.search('deploy key', k=3)\nprint(h[0].seq, h[0].kind)\n"
                       "print(ms.sql('SELECT count(*) AS n FROM events')[0].n)\n"
                       "print([e.seq for e in ms.recent(5)])")
        self.assertIsNone(r["error"], r["error"])
        self.assertEqual(r["stdout"].splitlines()[0], "%d user_message" % self.first)
        self.assertEqual(r["stdout"].splitlines()[1], "2")
        self.assertIn("search", self.host.calls)
        self.assertIn("sql", self.host.calls)

    def test_host_errors_become_python_exceptions(self):
        r = self.k.run("ms.expand(999)")
        self.assertEqual(r["error"]["ename"], "KeyError")
        self.assertIn("999", r["error"]["evalue"])
        r = self.k.run("ms.search(5)")  # checked in the kernel, before any call
        self.assertEqual(r["error"]["ename"], "TypeError")
        r = self.k.run("try:\n    ms.sql('DELETE FROM events')\nexcept PermissionError as e:\n    print('refused')")
        self.assertIn("refused", r["stdout"])

    def test_stale_replies_are_dropped(self):
        # Between cells: a reply nobody waits for gets no answer and changes nothing.
        self.k.send_raw(b'{"ms_reply": 4242, "result": "late"}\n')
        self.assertEqual(self.k.run("print('after a stale reply')")["stdout"], "after a stale reply\n")
        # During a call: a reply to another call is skipped, the right one is used.
        self.host.stale_first = True
        try:
            r = self.k.run("print(ms.expand(%d)[0].content)" % self.first)
        finally:
            self.host.stale_first = False
        self.assertEqual(r["stdout"], "the deploy key rotates on Mondays\n")

    def test_kernel_holds_no_handle_on_the_log(self):
        # `ms` is a client: no connection, and no file of the log open in the kernel process.
        r = self.k.run("print(hasattr(ms, '_conn'), type(ms).__name__)")
        self.assertEqual(r["stdout"], "False HostMemorySpace\n")
        fd_dir = "/proc/%d/fd" % self.k.proc.pid
        if os.path.isdir(fd_dir):
            targets = []
            for fd in os.listdir(fd_dir):
                try:
                    targets.append(os.readlink(os.path.join(fd_dir, fd)))
                except OSError:
                    pass
            self.assertFalse([t for t in targets if t.startswith(self.tmp)], targets)

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


class KernelWithoutHostTest(unittest.TestCase):
    def test_runs_without_a_host_and_refuses_to_open_a_log(self):
        k = KernelProcess()
        try:
            self.assertTrue(k.ready["ready"])
            self.assertEqual(k.run("print(ms)")["stdout"], "None\n")
        finally:
            k.close()
        for args in (("--db", "/some/scroll.db"), ("--ms", "/some/scroll.db")):
            proc = subprocess.run([sys.executable, KERNEL, *args], capture_output=True, timeout=10)
            self.assertEqual(proc.returncode, 2, args)


if __name__ == "__main__":
    unittest.main()
