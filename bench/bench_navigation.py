"""Navigation by name: what the relay adds over talking to rust-analyzer directly, and how long an agent
waits from a name to its definition.

Two warm analyzers, each on a private copy of tests/fixtures/orders, run side by side: the direct LSP
client (relay_direct_client.py, the floor), sending the relay's own `initialize` params and settings,
and the in-process Session (`await session.call(...)`). Calls alternate in short blocks so that the
machine's drift is shared. For each op both sides ask the analyzer the same thing:

- `definition` at a position (`order.total()` in src/report.rs): textDocument/definition;
- `references` at the same position: textDocument/references;
- `symbols` with `query: "total"`: workspace/symbol over every kind;
- `rename` (edits only, nothing applied): textDocument/rename;
- name to definition (`symbol: "Order::total"`): workspace/symbol, then textDocument/definition.

The relay's side includes all it does for an agent: checking params and paths, reading the lines'
text of the locations, converting positions, grouping and capping.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "src"))

from _report import print_table  # noqa: E402
from relay_direct_client import DirectClient  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "orders"
FILE = "src/report.rs"
AT = {"line": 13, "character": 45}  # `total` in `order.total()`: 1-based line, UTF-8 column
TARGET_MS = 0.3  # the most the relay may add at p50, per op
BLOCK = 10  # calls per turn before the other side takes its turn
OPS = ("definition", "references", "symbols", "rename", "name to definition")


def _copy(into: Path, name: str) -> Path:
    target = into / name
    shutil.copytree(FIXTURE, target, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    return Path(os.path.realpath(target))


def _analyzer() -> str:
    from ferrule.relay.resolve import resolve_analyzer

    return resolve_analyzer().path


def direct_ops(client: DirectClient) -> dict[str, Callable[[], Any]]:
    where = {"textDocument": {"uri": client.uri(FILE)}, "position": {"line": AT["line"] - 1, "character": AT["character"]}}

    def name_to_definition() -> Any:
        found = client.request("workspace/symbol", {"query": "total", "searchKind": "allSymbols",
                                                    "searchScope": "workspace"})
        hit = next(s for s in found if s["name"] == "total" and s.get("containerName") == "Order")
        return client.request("textDocument/definition", {
            "textDocument": {"uri": hit["location"]["uri"]}, "position": hit["location"]["range"]["start"]})

    def rename() -> Any:
        return client.request("textDocument/rename", {**where, "newName": "sum"})

    return {
        "definition": lambda: client.request("textDocument/definition", where),
        "references": lambda: client.request("textDocument/references", {**where, "context": {"includeDeclaration": True}}),
        "symbols": lambda: client.request("workspace/symbol", {"query": "total", "searchKind": "allSymbols",
                                                               "searchScope": "workspace"}),
        "rename": rename,
        "name to definition": name_to_definition,
    }


RELAY_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "definition": ("definition", {"file": FILE, "position": AT}),
    "references": ("references", {"file": FILE, "position": AT}),
    "symbols": ("symbols", {"query": "total"}),
    "rename": ("rename", {"file": FILE, "position": AT, "new_name": "sum"}),
    "name to definition": ("definition", {"symbol": "Order::total"}),
}


def _check(direct: dict[str, Callable[[], Any]], relay: dict[str, Any]) -> None:
    """Both sides answer the same thing before anything is timed."""
    assert relay["definition"]["locations"][0]["line"] == 22
    assert len(direct["definition"]()) == 1
    assert relay["references"]["count"] == len(direct["references"]()) == 5
    assert len(relay["rename"]["changes"]) == len(direct["rename"]()["documentChanges"]) == 4
    assert relay["name to definition"]["locations"] == relay["definition"]["locations"]


async def race(tmp: Path, analyzer: str, rounds: int) -> dict[str, dict[str, list[float]]]:
    from ferrule.project import ProjectRoot
    from ferrule.relay.analyzer import analyzer_config, initialize_params
    from ferrule.relay.session import Session

    direct_root, relay_root = _copy(tmp, "direct"), _copy(tmp, "relay")
    config = analyzer_config(ProjectRoot(direct_root))  # the relay's own, so both analyzers do the same work
    client = DirectClient(analyzer, direct_root, options=config)
    client.initialize(params=initialize_params(direct_root, config))
    session = Session(relay_root, analyzer=analyzer, quiet_policy=True)
    await session.call("init", {})
    try:
        direct = direct_ops(client)
        first = {name: await session.call(op, params) for name, (op, params) in RELAY_CALLS.items()}
        _check(direct, first)
        times: dict[str, dict[str, list[float]]] = {"direct": {}, "relay": {}}
        clock = time.perf_counter
        for name in OPS:
            op, params = RELAY_CALLS[name]
            call = direct[name]
            ours, theirs = times["relay"].setdefault(name, []), times["direct"].setdefault(name, [])
            for _ in range(max(1, rounds // BLOCK)):
                for _ in range(BLOCK):
                    start = clock()
                    call()
                    theirs.append((clock() - start) * 1000)
                for _ in range(BLOCK):
                    start = clock()
                    await session.call(op, params)
                    ours.append((clock() - start) * 1000)
        return times
    finally:
        client.close()
        await session.aclose()


def p50(samples: list[float]) -> float:
    return statistics.median(samples)


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main(quick: bool = False) -> None:
    rounds = 100 if quick else 600
    analyzer = _analyzer()
    with tempfile.TemporaryDirectory(prefix="ferrule-bench-nav-") as tmp:
        times = asyncio.run(race(Path(tmp), analyzer, rounds))
    rows = []
    overhead = []
    for name in OPS:
        floor, ours = times["direct"][name], times["relay"][name]
        rows.append([name, p50(floor), p99(floor), p50(ours), p99(ours)])
        added = p50(ours) - p50(floor)
        if name == "name to definition":
            overhead.append([name, added, "-", "the whole lookup, two analyzer requests"])
        else:
            overhead.append([name, added, f"<= {TARGET_MS}", "met" if added <= TARGET_MS else "MISSED"])
    print_table(f"navigation: relay vs direct rust-analyzer ({'quick' if quick else 'full'}: "
                f"{rounds} calls per op and side, alternating blocks of {BLOCK})",
                ["op", "direct p50 ms", "direct p99 ms", "relay p50 ms", "relay p99 ms"], rows,
                "`rename` answers the edits only (nothing applied).")
    print_table("relay overhead over the direct client (p50)", ["op", "added ms", "target ms", "verdict"],
                overhead, "name to definition: the time from `symbol: \"Order::total\"` to its definition is the "
                "relay p50 of that row. serena's find_symbol is not compared: it is not installed here and "
                "needs a network install.")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
