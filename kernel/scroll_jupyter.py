"""Scroll inside a Jupyter kernel (used by the editor's Jupyter adapter).

The session notebook's bootstrap cell and the adapter call:
    import scroll_jupyter; scroll_jupyter.bootstrap(globals(), ADDRESS, TOKEN, SESSION)
which binds `ms` in the notebook's namespace: a client of the editor's local memory channel
(docs/MEMORY-PROTOCOL.md). The kernel never opens the event log itself. After each cell the
adapter asks
    scroll_jupyter.digest(globals())
for the variables digest, printed as one JSON line. Stdlib only.
"""

import json

import scroll_ms_client
from scroll_kernel import variable_digest

# Names the kernel (IPython) or the bootstrap put in the namespace; hidden from the digest
# while they still hold the object they had then.
_baseline = {}
DIGEST_MARK = "\x1escroll-digest\x1e"


def bootstrap(ns, address, token, session=None):
    """Bind `ms` in `ns` (the notebook's globals) and remember what was already there."""
    old = ns.get("ms")
    transport = getattr(old, "_t", None)
    if isinstance(transport, scroll_ms_client.SocketTransport):
        transport.close()
    ns["ms"] = scroll_ms_client.connect_socket(address, token, session=session)
    _baseline.clear()
    for name in ("In", "Out", "get_ipython", "exit", "quit", "open"):
        if name in ns:
            _baseline[name] = ns[name]
    _baseline["ms"] = ns["ms"]
    if isinstance(ns["ms"], scroll_ms_client.UnavailableMemorySpace):
        return "scroll: %r" % ns["ms"]
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
