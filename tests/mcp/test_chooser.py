"""The server's chooser: the compiled twin in a normal build, the Python twin when switched off; both
are the same source and serve alike (the subprocess tests run each, by the `twin` fixture)."""

from __future__ import annotations

import os
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

from ferrule._twins import DEFAULT_MAX_LINE, NO_EXTENSIONS
from ferrule.mcp import ReplayTransport, Server, server
from ferrule.mcp.adapters.sdk import SdkServer


def test_the_compiled_twin_loads_unless_switched_off():
    if NO_EXTENSIONS:
        assert server.IMPLEMENTATION == "python"
        assert Server.__module__ == "ferrule.mcp._server_py"
    else:
        assert server.IMPLEMENTATION == "c", "ferrule.mcp._server_c did not load: run `make build`"
        assert Server.__module__ == "ferrule.mcp._server_c"


def test_the_switch_selects_the_python_twin():
    env = dict(os.environ, FERRULE_NO_EXTENSIONS="1")
    code = "from ferrule.mcp import Server, server; print(server.IMPLEMENTATION, Server.__module__)"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["python", "ferrule.mcp._server_py"]


def test_the_drop_in_server_subclasses_the_chosen_twin():
    assert issubclass(SdkServer, Server)


def test_a_python_subclass_overrides_what_the_loop_calls_and_keeps_attributes_of_its_own():
    class Routing(Server):
        def _route(self, msg_id, method, params):  # called by the loop's own (compiled) _handle
            self.routed.append(method)
            return super()._route(msg_id, method, params)

    routing = Routing("s", "1", [])
    routing.routed = []
    transport = ReplayTransport([b'{"jsonrpc":"2.0","id":1,"method":"ping"}'])
    routing.run(transport)
    assert routing.routed == ["ping"]
    assert [m["result"] for m in transport.messages()] == [{}]


def test_a_subclass_writes_the_loops_own_fields():
    class Holding(Server):
        def hold(self, line):
            self._pending.append(line)  # the loop's own field: its flush must see it

    holding = Holding("s", "1", [])
    transport = ReplayTransport([])
    holding._transport = transport
    holding.hold(b'{"jsonrpc":"2.0","id":1,"result":{}}')
    holding._flush()
    assert transport.messages() == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
    base = Server("s", "1", [])
    base.extra = 1  # an embedder's attribute on the base type itself
    assert base.extra == 1
    assert weakref.ref(base)() is base  # an embedder's registry of servers may hold them weakly


def test_a_subclass_cannot_hide_a_field_of_the_compiled_loop():
    class Small(Server):
        max_line = 10  # read by the compiled loop from its C field, never from here

    if server.IMPLEMENTATION == "c":
        with pytest.raises(TypeError, match="Small defines max_line at class level"):
            Small("s", "1", [])
    else:
        assert Small("s", "1", []).max_line == DEFAULT_MAX_LINE  # __init__ sets the instance's own


@pytest.mark.c_extension
@pytest.mark.parametrize(("source_name", "compiled"), [
    ("_server_py.py", "_server_c"), ("wire.py", "_wire_c"), ("validate.py", "_validate_c")])
def test_a_compiled_module_is_not_older_than_its_source(source_name, compiled):
    """In a source tree an edit of a compiled .py source or its .pxd needs `make build`: until then
    the compiled module is the old code, and a test run would test that."""
    source = Path(server.__file__).with_name(source_name)
    built = sorted(source.parent.glob(f"{compiled}.*.so")) + sorted(source.parent.glob(f"{compiled}.*.pyd"))
    in_checkout = (source.parents[3] / "setup.py").exists()  # src/ferrule/mcp/: not an installed copy
    if server.IMPLEMENTATION != "c" or not built or not in_checkout:
        pytest.skip("the compiled loop of a source checkout only")
    typed_by = source.with_name(f"{compiled}.pxd")
    newest = max(source.stat().st_mtime, typed_by.stat().st_mtime if typed_by.exists() else 0)
    assert built[0].stat().st_mtime >= newest, f"run `make build`: {compiled} predates its source"
