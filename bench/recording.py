"""The recorded form of `bench/run.py`'s tables: every numeric cell over several runs as a median and a
range, with the machine, the peers' versions and the load, in bench/results/<UTC time>.{json,md}.

A table is known by its title without the parenthesized parts (which carry counts and run modes), a
row by its first cell, or its first two where the first repeats (the overhead table: path, op), a
column by its header. Cells that are numbers, or strings like "41.0x" and "34 ms", are numeric.
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"
PEERS_PYTHON = REPO / ".venv-peers" / "bin" / "python"

# Every peer a table names, and how it is run; versions are read where each one is installed.
PEERS = {
    "mcp": "the official MCP SDK's low-level `Server` over stdio, a subprocess serving the same echo tool "
           "(bench/peers/sdk_lowlevel_echo.py)",
    "fastmcp": "`FastMCP` over stdio, a subprocess serving the same echo tool (bench/peers/fastmcp_echo.py)",
    "orjson": "the bare loop (bench/peers/bare_loop.py): read a line, orjson in and out, no validation: the "
              "ceiling",
    "pygls": "its sync reader `io_.run` with JSON decoding stubbed, and `PositionCodec` (bench/test_fastframe.py)",
    "python-lsp-jsonrpc": "`JsonRpcStreamReader._read_message` (bench/test_fastframe.py)",
    "wurlitzer": "`pipes(stdout=None, encoding=None)` around the same block (bench/test_capture.py)",
    "multilspy": "in .venv-peers (`make peers`), on the same rust-analyzer through its `server_binary` setting, "
                 "in its own process (bench/peer_lsp.py)",
}
IN_PEERS_VENV = {"multilspy"}
# Baselines written here, so they have no version of their own.
OURS = {
    "direct LSP client": "bench/relay_direct_client.py: a blocking Content-Length client on its own warm "
                         "rust-analyzer, sending the relay's own initialize params: the relay's floor",
}

_NUMBER = re.compile(r"^\s*([+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[+-]?\d+)?)\s*(x|ms|µs|MB|%)?\s*$")
_PARENS = re.compile(r"\s*\([^()]*\)")


def table_key(title: str) -> str:
    while True:  # innermost parentheses first: titles nest them, "(full: 5 race(s) …)"
        shorter = _PARENS.sub("", title)
        if shorter == title:
            return " ".join(title.replace(" ,", ",").split())
        title = shorter


def numeric(cell: object) -> tuple[float, str] | None:
    """(value, unit) of a numeric cell, None for text."""
    if isinstance(cell, bool):
        return None
    if isinstance(cell, int | float):
        return (float(cell), "") if math.isfinite(cell) else None
    match = _NUMBER.match(str(cell))
    if match is None:
        return None
    return float(match.group(1).replace(",", "")), match.group(2) or ""


def row_keys(rows: Sequence[Sequence[object]]) -> list[str]:
    firsts = [str(r[0]) for r in rows]
    if len(set(firsts)) == len(firsts):
        return firsts
    return [f"{r[0]} | {r[1]}" for r in rows]


# ---------------------------------------------------------------------------------------------------
# one recording: the runs' tables folded into median and range


def aggregate(runs: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """`runs`: each run's tables as _report.TABLES holds them. Tables, rows and columns keep the order
    of their first appearance."""
    tables: dict[str, dict[str, Any]] = {}
    for run in runs:
        for table in run:
            key = table_key(table["title"])
            into = tables.setdefault(key, {"key": key, "title": table["title"], "header": table["header"],
                                           "notes": table["notes"], "rows": {}})
            into["title"], into["notes"] = table["title"], table["notes"]  # the last run's words
            for rkey, row in zip(row_keys(table["rows"]), table["rows"], strict=True):
                cells = into["rows"].setdefault(rkey, [[] for _ in table["header"]])
                for column, cell in enumerate(row[:len(cells)]):
                    cells[column].append(cell)
    return [{**t, "rows": [{"key": rkey, "cells": [fold(seen) for seen in cells]}
                           for rkey, cells in t["rows"].items()]}
            for t in tables.values()]


def fold(seen: list[object]) -> dict[str, Any]:
    parsed = [numeric(c) for c in seen]
    units = {p[1] for p in parsed if p is not None}
    if seen and all(p is not None for p in parsed) and len(units) == 1:
        values = [p[0] for p in parsed if p is not None]
        return {"values": values, "unit": units.pop(), "median": statistics.median(values),
                "min": min(values), "max": max(values)}
    texts = [str(c) for c in seen]
    distinct = list(dict.fromkeys(texts))
    if len(distinct) == 1:
        return {"text": distinct[0]}
    return {"text": ", ".join(f"{t} ({texts.count(t)} of {len(texts)})" for t in distinct)}


def fmt_number(value: float, signed: bool = False) -> str:
    """Three significant figures, thousands separated."""
    if value == 0 or not math.isfinite(value):
        text = f"{value:g}"
    elif abs(value) >= 1000:
        text = f"{round(value, 2 - int(math.floor(math.log10(abs(value))))):,.0f}"
    elif abs(value) >= 100:
        text = f"{value:.0f}"
    else:
        text = f"{value:.3g}"
    return f"+{text}" if signed and value > 0 else text


def fmt_range(median: float, low: float, high: float, unit: str = "", signed: bool = False) -> str:
    """`median` followed by the runs' range: "41x (38–43)", "+0.03 ms (-0.01 to +0.05)"; a single run
    shows no range."""
    text = fmt_number(median, signed) + unit
    low_text, high_text = fmt_number(low, signed), fmt_number(high, signed)
    if low_text == high_text:
        return text
    return f"{text} ({low_text} to {high_text})" if signed else f"{text} ({low_text}–{high_text})"


def fmt_cell(cell: dict[str, Any]) -> str:
    if "text" in cell:
        return cell["text"]
    return fmt_range(cell["median"], cell["min"], cell["max"], cell["unit"])


# ---------------------------------------------------------------------------------------------------
# what the figures depend on


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        sys.path.insert(0, str(REPO / "src"))
        from ferrule.relay.resolve import resolve_analyzer

        analyzer = resolve_analyzer().version
    except Exception as exc:  # the relay tables fail on their own and say why
        analyzer = f"none ({type(exc).__name__})"
    return {"cores": os.cpu_count(), "cpu": cpu, "os": platform.platform(),
            "python": sys.version.split()[0], "rust_analyzer": analyzer, "commit": _commit()}


def _commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.strip()
        changed = subprocess.run(["git", "status", "--porcelain", "--", "src", "bench", "setup.py"], cwd=REPO,
                                 capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" with uncommitted changes" if changed else "")


def peers() -> dict[str, dict[str, str]]:
    found = {}
    for dist, how in PEERS.items():
        found[dist] = {"version": _version(dist, dist in IN_PEERS_VENV), "how": how}
    for name, how in OURS.items():
        found[name] = {"version": "", "how": how}
    return found


def _version(dist: str, in_peers_venv: bool) -> str:
    if not in_peers_venv:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "not installed"
    if not PEERS_PYTHON.exists():
        return "not installed"
    done = subprocess.run([str(PEERS_PYTHON), "-c", f"from importlib.metadata import version; print(version({dist!r}))"],
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else "not installed"


# ---------------------------------------------------------------------------------------------------
# files


def write(record: dict[str, Any], directory: Path = RESULTS) -> Path:
    """bench/results/<UTC time>.json and .md; the JSON's path."""
    directory.mkdir(parents=True, exist_ok=True)
    stem = record["date"].replace(":", "-")
    path = directory / f"{stem}.json"
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    path.with_suffix(".md").write_text(markdown(record), encoding="utf-8")
    return path


def latest(directory: Path = RESULTS) -> Path | None:
    """The newest recording: names are UTC times, so they sort."""
    found = sorted(directory.glob("*.json"))
    return found[-1] if found else None


def new_record(command: str, quick: bool) -> dict[str, Any]:
    return {"date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "command": command,
            "quick": quick, "runs": 0, "failed": False, "machine": machine(), "peers": peers(),
            "load": {"start": load_average(), "end": ""}, "each_run": [], "tables": []}


def peer_line(name: str, peer: dict[str, str]) -> str:
    return f"{name} {peer['version']}: {peer['how']}" if peer["version"] else f"{name}: {peer['how']}"


def markdown(record: dict[str, Any]) -> str:
    m = record["machine"]
    out = [f"# ferrule benchmarks, {record['date']}", "",
           f"`{record['command']}`: {record['runs']} {'quick' if record['quick'] else 'full'} run(s); every "
           "figure is the median over the runs and, in brackets, the lowest and highest run.", "",
           f"- machine: {m['cores']} cores ({m['cpu']}), {m['os']}, Python {m['python']}, {m['rust_analyzer']}",
           f"- ferrule: {m['commit']}",
           f"- load average (1, 5, 15 min): {record['load']['start']} at the start, {record['load']['end']} "
           "at the end",
           "- each run: " + "; ".join(f"{r['seconds']:.0f} s, load {r['load_start']} -> {r['load_end']}"
                                      for r in record["each_run"]),
           "- peers: " + "; ".join(peer_line(d, p) for d, p in record["peers"].items())]
    for table in record["tables"]:
        out += ["", f"## {table['key']}", "", "| " + " | ".join(table["header"]) + " |",
                "|" + "|".join(" --- " for _ in table["header"]) + "|"]
        for row in table["rows"]:
            out.append("| " + " | ".join(fmt_cell(c).replace("|", "\\|") for c in row["cells"]) + " |")
        if table["notes"]:
            out += ["", table["notes"]]
    return "\n".join(out) + "\n"
