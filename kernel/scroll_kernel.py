"""Scroll's own persistent Python kernel: JSON lines on stdin/stdout.

    python3 kernel/scroll_kernel.py [--ms host] [--session S] [--output-cap N] [--mem-mb N]
                                    [--file-mb N] [--timeout-ms N]

Request  {"id", "code", "timeout_ms"?}
Response {"id", "stdout", "stderr", "error": null | {"ename","evalue","traceback"}, "duration_ms",
          "variables": [{"name","type","size"}], "truncated"}
The first line written is {"ready": true, "pid", "python", "executable"} once `ms` is bound.

`--ms host`: `ms` is a client of the host over these same pipes (docs/MEMORY-PROTOCOL.md): while a
cell runs, the kernel writes {"ms_call", "method", "args"} and reads until {"ms_reply"} with that
id. The kernel never opens the event log itself. Without it, `ms` is None.

One namespace for the whole process. The last expression of a cell is shown like a REPL shows it.
Top-level `await` works. The cell's own time limit is enforced here (SIGALRM); the parent process
adds SIGINT and, 2 s later, kill + restart for code that swallows the interrupt.
Stdlib only; heavy modules (asyncio) are imported on first use to keep start-up short.
"""

import io
import json
import os
import signal
import sys
import time

DEFAULT_OUTPUT_CAP = 20000
DEFAULT_MEM_MB = 4096
MAX_VARIABLES = 60
CO_COROUTINE = 0x0080  # inspect.CO_COROUTINE, without importing inspect


class CellTimeout(BaseException):
    """Raised inside a cell that ran past its limit. BaseException so `except Exception` in the
    cell does not swallow it."""


class CappedWriter(io.TextIOBase):
    """Collects a cell's output up to `cap` characters and counts the rest without keeping it."""

    def __init__(self, cap, name):
        super().__init__()
        self.cap = cap
        self.name = name
        self.parts = []
        self.kept = 0
        self.dropped = 0

    def writable(self):
        return True

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not %s" % type(s).__name__)
        room = self.cap - self.kept
        if room > 0:
            piece = s[:room]
            self.parts.append(piece)
            self.kept += len(piece)
            self.dropped += len(s) - len(piece)
        else:
            self.dropped += len(s)
        return len(s)

    def flush(self):
        pass

    @property
    def encoding(self):
        return "utf-8"

    def isatty(self):
        return False

    def text(self):
        out = "".join(self.parts)
        if self.dropped:
            total = self.kept + self.dropped
            out += ("\n[scroll: output truncated — showed the first %d of %d characters on %s. "
                    "Print less: slices, counts or summaries; keep the full data in variables.]\n"
                    % (self.kept, total, self.name))
        return out


def _variable_size(value):
    try:
        if isinstance(value, (str, bytes, bytearray)):
            return "%d %s" % (len(value), "chars" if isinstance(value, str) else "bytes")
        if isinstance(value, bool) or value is None:
            return repr(value)
        if isinstance(value, (int, float, complex)):
            r = repr(value)
            return r if len(r) <= 32 else r[:31] + "…"
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple):
            return "shape " + "x".join(str(d) for d in shape)
        if hasattr(value, "__len__") and not isinstance(value, type):
            return "%d items" % len(value)
    except Exception:  # a user object with a broken __len__/__repr__
        pass
    return ""


def variable_digest(ns, baseline=None):
    """[{name, type, size}] of the user's variables: no _private names, no modules, nothing
    still bound to what the kernel itself put there (`baseline`: name -> original object)."""
    out = []
    baseline = baseline or {}
    for name, value in list(ns.items()):
        if name.startswith("_") or type(value).__name__ == "module":
            continue
        if name in baseline and baseline[name] is value:
            continue
        out.append({"name": name, "type": type(value).__name__, "size": _variable_size(value)})
        if len(out) >= MAX_VARIABLES:
            break
    return out


class Kernel:
    def __init__(self, args, memory_transport=None):
        self.output_cap = args.output_cap
        self.default_timeout_ms = args.timeout_ms
        self.cell_count = 0
        self.executing = False
        self.loop = None
        self.ns = {"__name__": "__main__", "__builtins__": __builtins__}
        self.ms = None
        if memory_transport is not None:
            import scroll_ms_client
            self.ms = scroll_ms_client.HostMemorySpace(memory_transport, session=args.session)
        self.ns["ms"] = self.ms
        self.native = _NativeCapture()

    # -- signals ------------------------------------------------------------------------------
    def on_sigint(self, signum, frame):
        if self.executing:  # idle (between cells) interrupts are ignored: nothing to stop
            raise KeyboardInterrupt("interrupted")

    def on_alarm(self, signum, frame):
        if self.executing:
            raise CellTimeout()

    # -- one request --------------------------------------------------------------------------
    def handle_line(self, line):
        try:
            req = json.loads(line)
        except ValueError as exc:
            return self.protocol_error(_salvage_id(line), "malformed request line (not JSON): %s" % exc)
        if not isinstance(req, dict):
            return self.protocol_error(None, "a request must be a JSON object {\"id\", \"code\"}")
        if "ms_reply" in req and "code" not in req:
            return None  # the reply to an `ms` call that was interrupted (SIGINT, time limit): stale
        rid = req.get("id")
        code = req.get("code")
        if not isinstance(code, str):
            return self.protocol_error(rid, "request field \"code\" must be a string")
        timeout_ms = req.get("timeout_ms", self.default_timeout_ms)
        if timeout_ms is not None and (isinstance(timeout_ms, bool) or not isinstance(timeout_ms, (int, float))
                                       or timeout_ms <= 0):
            return self.protocol_error(rid, "request field \"timeout_ms\" must be a positive number")
        return self.execute(rid, code, timeout_ms)

    def protocol_error(self, rid, message):
        return {"id": rid, "stdout": "", "stderr": "", "duration_ms": 0, "truncated": False,
                "error": {"ename": "ProtocolError", "evalue": message, "traceback": []},
                "variables": self.variables()}

    def execute(self, rid, code, timeout_ms):
        self.cell_count += 1
        filename = "<cell-%d>" % self.cell_count
        out = CappedWriter(self.output_cap, "stdout")
        err = CappedWriter(self.output_cap, "stderr")
        error = None
        started = time.perf_counter()
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err
        if sys.stdin is None or sys.stdin.closed:  # exit() closes stdin before raising SystemExit
            sys.stdin = _empty_stdin()
        self.native.start()
        try:
            _remember_source(filename, code)
            self.executing = True
            if timeout_ms:
                signal.setitimer(signal.ITIMER_REAL, timeout_ms / 1000.0)
            try:
                self.run_cell(code, filename)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                self.executing = False
        except CellTimeout:
            evalue = "the cell ran past its limit of %d ms and was interrupted" % timeout_ms
            error = {"ename": "TimeoutError", "evalue": evalue,
                     "traceback": _format_tb(sys.exc_info(), "TimeoutError: %s\n" % evalue)}
        except SystemExit as exc:
            error = {"ename": "SystemExit", "evalue": "exit() is ignored in the kernel (code %r)" % (exc.code,),
                     "traceback": []}
        except BaseException:
            exc_type, exc, _tb = sys.exc_info()
            error = {"ename": exc_type.__name__, "evalue": str(exc),
                     "traceback": _format_tb(sys.exc_info())}
        finally:
            sys.stdout, sys.stderr = saved
            native = self.native.stop(self.output_cap)
            if native:
                out.write(native)
        duration_ms = (time.perf_counter() - started) * 1000.0
        return {"id": rid, "stdout": out.text(), "stderr": err.text(), "error": error,
                "duration_ms": round(duration_ms, 3), "truncated": bool(out.dropped or err.dropped),
                "variables": self.variables()}

    def run_cell(self, code, filename):
        import ast  # here, not at the top: keeps start-up short
        flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        tree = compile(code, filename, "exec", ast.PyCF_ONLY_AST | flags, dont_inherit=True)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        if tree.body:
            self.run_code(compile(tree, filename, "exec", flags, dont_inherit=True))
        if last is not None:
            value = self.run_code(compile(last, filename, "eval", flags, dont_inherit=True))
            if value is not None:
                self.ns["_"] = value
                print(repr(value))

    def run_code(self, code_obj):
        result = eval(code_obj, self.ns)
        if code_obj.co_flags & CO_COROUTINE:
            # Top-level await: the compiled cell is a coroutine; run it on the kernel's own loop.
            if self.loop is None:
                import asyncio
                self.loop = asyncio.new_event_loop()
                asyncio.set_event_loop(self.loop)
            result = self.loop.run_until_complete(result)
        return result

    def variables(self):
        return variable_digest(self.ns, {"ms": self.ms})


class _NativeCapture:
    """Output written below Python during a cell (os.system, subprocesses, C extensions) goes to
    fds 1 and 2; point both at an unlinked temporary file for the cell and read it back after."""

    def __init__(self):
        tmpdir = os.environ.get("TMPDIR") or "/tmp"
        path = os.path.join(tmpdir, "scroll-kernel-%d-native" % os.getpid())
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        os.unlink(path)
        self.saved = os.dup(2)

    def start(self):
        os.ftruncate(self.fd, 0)
        os.lseek(self.fd, 0, os.SEEK_SET)
        os.dup2(self.fd, 1)
        os.dup2(self.fd, 2)

    def stop(self, cap):
        os.dup2(self.saved, 1)
        os.dup2(self.saved, 2)
        size = os.fstat(self.fd).st_size
        if not size:
            return ""
        data = os.pread(self.fd, min(size, cap * 4), 0)
        return data.decode("utf-8", "replace")


def _empty_stdin():
    return io.TextIOWrapper(io.BytesIO(b""), encoding="utf-8")


def _salvage_id(line):
    import re
    m = re.search(r'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)', line)
    if not m:
        return None
    try:
        return json.loads(m.group(1))
    except ValueError:
        return None


def _remember_source(filename, code):
    # Tracebacks show the cell's lines.
    import linecache
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)


def _format_tb(exc_info, last_line=None):
    """The traceback from the cell on: the kernel's own frames are left out."""
    import traceback
    exc_type, exc, tb = exc_info
    frames = [f for f in traceback.extract_tb(tb) if f.filename != __file__]
    lines = ["Traceback (most recent call last):\n"] if frames else []
    lines += traceback.format_list(frames)
    lines += [last_line] if last_line else traceback.format_exception_only(exc_type, exc)
    return lines


def _set_limit(name, mb):
    if mb <= 0:
        return
    try:
        import resource
        which = getattr(resource, name)
        limit = mb * 1024 * 1024
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY and hard < limit:
            limit = hard
        resource.setrlimit(which, (limit, hard))
    except (ImportError, AttributeError, ValueError, OSError):  # not on this platform: run without the cap
        pass


USAGE = ("usage: scroll_kernel.py [--ms host] [--session S] [--output-cap N] "
         "[--mem-mb N] [--file-mb N] [--timeout-ms N]")


class _Args:
    ms = session = timeout_ms = None
    output_cap = DEFAULT_OUTPUT_CAP
    mem_mb = DEFAULT_MEM_MB
    file_mb = 0


def _parse_args(argv):
    """A few options; argparse alone would cost a noticeable share of start-up."""
    args = _Args()
    options = {"--ms": ("ms", str), "--session": ("session", str), "--output-cap": ("output_cap", int),
               "--mem-mb": ("mem_mb", int), "--file-mb": ("file_mb", int), "--timeout-ms": ("timeout_ms", int)}
    i = 0
    while i < len(argv):
        opt = argv[i]
        value = None
        if "=" in opt and opt.split("=", 1)[0] in options:
            opt, value = opt.split("=", 1)
        elif opt in options and i + 1 < len(argv):
            i += 1
            value = argv[i]
        if opt in ("-h", "--help"):
            print(USAGE)
            sys.exit(0)
        if opt not in options or value is None:
            sys.stderr.write("%s\nscroll_kernel.py: bad argument %r\n" % (USAGE, argv[i]))
            sys.exit(2)
        name, kind = options[opt]
        try:
            setattr(args, name, kind(value))
        except ValueError:
            sys.stderr.write("scroll_kernel.py: %s needs a number, got %r\n" % (opt, value))
            sys.exit(2)
        i += 1
    if args.output_cap <= 0:
        sys.stderr.write("scroll_kernel.py: --output-cap must be positive\n")
        sys.exit(2)
    if args.ms not in (None, "host"):
        sys.stderr.write("scroll_kernel.py: --ms takes only 'host' (the kernel never opens the log itself)\n")
        sys.exit(2)
    return args


def main(argv=None):
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    # The protocol owns private copies of fds 0 and 1. Cell code sees an empty stdin, and anything
    # written to fd 1 below Python (os.system, C libraries) lands on stderr instead of the protocol.
    proto_in = os.fdopen(os.dup(0), "rb", buffering=0)
    proto_out = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdin = _empty_stdin()

    def send(obj):
        data = json.dumps(obj, ensure_ascii=False, default=str).encode("utf-8", "replace") + b"\n"
        view = memoryview(data)
        while view:
            n = proto_out.write(view)
            view = view[n:]

    _set_limit("RLIMIT_AS", args.mem_mb)
    # One file may not outgrow the scratch folder's cap (the host checks the folder's total).
    _set_limit("RLIMIT_FSIZE", args.file_mb)
    reader = io.BufferedReader(proto_in)
    transport = None
    if args.ms == "host":
        import scroll_ms_client
        transport = scroll_ms_client.PipeTransport(reader, send)
    try:
        kernel = Kernel(args, transport)
    except Exception as exc:
        send({"ready": False, "error": {"ename": type(exc).__name__, "evalue": str(exc), "traceback": []}})
        return 1
    signal.signal(signal.SIGINT, kernel.on_sigint)
    signal.signal(signal.SIGALRM, kernel.on_alarm)
    send({"ready": True, "pid": os.getpid(), "python": sys.version.split()[0], "executable": sys.executable})

    while True:
        try:
            raw = reader.readline()
        except KeyboardInterrupt:
            continue
        if not raw:
            return 0
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            send(kernel.protocol_error(None, "request line is not UTF-8: %s" % exc))
            continue
        if not line.strip():
            continue
        try:
            resp = kernel.handle_line(line)
        except KeyboardInterrupt:  # an interrupt that arrived just as the cell ended
            resp = kernel.protocol_error(None, "interrupted")
        except MemoryError:
            resp = kernel.protocol_error(None, "out of memory while handling the request")
        if resp is not None:
            send(resp)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())
