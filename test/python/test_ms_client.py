"""Tests of kernel/scroll_ms_client.py over its socket transport (what a Jupyter kernel uses)."""

import json
import os
import shutil
import socket
import sys
import tempfile
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from test_kernel import HostDouble  # noqa: E402
from test_ms import make_builder  # noqa: E402

import scroll_ms_client  # noqa: E402  (test_kernel put kernel/ on sys.path)


class ChannelDouble:
    """Test double of the host's MemoryChannel: a Unix socket that wants the token first."""

    def __init__(self, path, token, host):
        self.token = token
        self.host = host
        self.refused = 0
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(4)
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()

    def handle(self, conn):
        f = conn.makefile("rwb")
        try:
            first = json.loads(f.readline() or b"{}")
            if first.get("token") != self.token:
                self.refused += 1
                return
            for line in f:
                f.write((json.dumps(self.host.reply(json.loads(line)), default=str) + "\n").encode())
                f.flush()
        finally:
            f.close()
            conn.close()

    def close(self):
        self.server.close()


class SocketClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="scroll-msc-")
        b = make_builder(cls.tmp)
        cls.first = b.add("user_message", "user", "the retry cap is five attempts", session="j1")
        b.close()
        cls.sock = os.path.join(cls.tmp, "ms.sock")
        cls.channel = ChannelDouble(cls.sock, "t0ken", HostDouble(os.path.join(cls.tmp, "scroll.db"), "j1"))

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_calls_with_the_right_token(self):
        ms = scroll_ms_client.connect_socket(self.sock, "t0ken", session="j1")
        self.assertIsInstance(ms, scroll_ms_client.HostMemorySpace)
        self.assertEqual(ms.search("retry cap")[0].seq, self.first)
        self.assertEqual(ms.expand(self.first)[0].content, "the retry cap is five attempts")
        with self.assertRaises(KeyError):
            ms.expand(12345)
        ms._t.close()

    def test_wrong_token_is_cut_off(self):
        ms = scroll_ms_client.connect_socket(self.sock, "wrong", session="j1")
        with self.assertRaises(RuntimeError) as cm:
            ms.search("retry")
        self.assertIn("closed the memory channel", str(cm.exception))

    def test_unreachable_channel_says_ms_is_not_available(self):
        ms = scroll_ms_client.connect_socket(os.path.join(self.tmp, "nobody.sock"), "t0ken")
        self.assertIsInstance(ms, scroll_ms_client.UnavailableMemorySpace)
        with self.assertRaises(RuntimeError) as cm:
            ms.search("retry")
        self.assertIn("`ms` is not available in this kernel", str(cm.exception))
        self.assertIsNone(getattr(ms, "_t", None))  # scroll_jupyter.bootstrap looks for an old transport this way


if __name__ == "__main__":
    unittest.main()
