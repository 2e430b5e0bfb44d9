"""The server loop (`Server`, `log_exception`): the compiled twin (`ferrule.mcp._server_c`) unless
`FERRULE_NO_EXTENSIONS` is set or this is not CPython, else the pure-Python one (`_server_py`).

Both twins are one source: setup.py compiles `_server_py.py` as `_server_c`, typed by
`_server_c.pxd`, which makes `Server` an extension type whose hot methods call one another in C
(a lockstep call runs about a fifth fewer instructions). Python subclasses of either
override its methods as usual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._twins import load_twin

if TYPE_CHECKING:
    from ._server_py import DEFAULT_STDERR_LIMIT, Server, log_exception

    IMPLEMENTATION = "python"
else:
    _twin, IMPLEMENTATION = load_twin("ferrule.mcp._server_c", "ferrule.mcp._server_py")
    DEFAULT_STDERR_LIMIT, Server, log_exception = _twin.DEFAULT_STDERR_LIMIT, _twin.Server, _twin.log_exception

__all__ = ["DEFAULT_STDERR_LIMIT", "IMPLEMENTATION", "Server", "log_exception"]
