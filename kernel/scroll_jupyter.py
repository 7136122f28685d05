"""Scroll inside a Jupyter kernel (used by the editor's Jupyter adapter).

The session notebook's bootstrap cell and the adapter call:
    import scroll_jupyter; scroll_jupyter.bootstrap(globals(), DB, PAYLOADS, SESSION)
which binds `ms` (read-only event log) in the notebook's namespace. After each cell the adapter asks
    scroll_jupyter.digest(globals())
for the variables digest, printed as one JSON line. Stdlib only.
"""

import json

import scroll_ms
from scroll_kernel import install_write_guard, variable_digest

# Names the kernel (IPython) or the bootstrap put in the namespace; hidden from the digest
# while they still hold the object they had then.
_baseline = {}
DIGEST_MARK = "\x1escroll-digest\x1e"


def bootstrap(ns, db_path, payload_dir=None, session=None):
    """Bind `ms` in `ns` (the notebook's globals) and remember what was already there."""
    old = ns.get("ms")
    if isinstance(old, scroll_ms.MemorySpace):
        try:
            old.close()
        except Exception:
            pass
    ns["ms"] = scroll_ms.connect(db_path, payload_dir=payload_dir, session=session)
    # The same guard as Scroll's own kernel: Python code here cannot open the log for writing.
    install_write_guard(db_path, ns["ms"].payload_dir)
    _baseline.clear()
    for name in ("In", "Out", "get_ipython", "exit", "quit", "open"):
        if name in ns:
            _baseline[name] = ns[name]
    _baseline["ms"] = ns["ms"]
    return "scroll: ms bound (session %s)" % session


def digest(ns):
    """Print the variables digest as one marked JSON line (the adapter strips it from output)."""
    print(DIGEST_MARK + json.dumps(variable_digest(ns, _baseline)))


def reset(ns):
    """Remove the session's own variables (what restart means when the kernel is the user's)."""
    for name in list(ns):
        if name.startswith("_") or (name in _baseline and _baseline[name] is ns[name]):
            continue
        del ns[name]
