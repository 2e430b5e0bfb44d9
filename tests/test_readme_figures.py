"""The README's benchmark figures are the newest recording in bench/results/, and the page renders on PyPI."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"

# The recordings live in the repository only: neither the sdist nor the installed-wheel suite has them.
if not README.exists() or not (REPO / "bench" / "results").is_dir():
    pytest.skip("needs the source checkout (README.md, bench/results/)", allow_module_level=True)


def _load(name: str):
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "bench" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


readme_table = _load("readme_table")
recording = _load("recording")
_report = _load("_report")


def test_the_readme_table_is_the_newest_recording():
    block = readme_table.readme_block(README.read_text(encoding="utf-8"))
    newest = recording.latest()
    assert block == readme_table.latest_block(), (
        f"README.md's benchmark table is not what {newest.name if newest else 'no recording'} gives: "
        "regenerate it with `python bench/readme_table.py`, never by hand")


def _recorded(runs: list[list[list[object]]], quick: bool = False) -> dict:
    """A recording of `runs`, each run one MCP table printed the way bench_mcp.py prints it."""
    tables = []
    for rows in runs:
        first = len(_report.TABLES)
        _report.print_table("MCP stdio servers: the echo tool over pipes (quick)" if quick else
                            "MCP stdio servers: the echo tool over pipes", ["server", "lockstep req/s", "vs SDK"], rows)
        tables.append(_report.TABLES[first:])
    return {"quick": quick, "runs": len(runs), "tables": recording.aggregate(tables)}


def _runs(pairs: list[tuple[float, float]]) -> list[list[list[object]]]:
    return [[["ferrule (C twins)", ours, f"{ours / sdk:.1f}x"], ["official SDK low-level", sdk, "1.0x"]]
            for ours, sdk in pairs]


def test_a_figure_is_the_median_run_with_the_range_of_runs(capsys):
    record = _recorded(_runs([(80_000.0, 2_000.0), (60_000.0, 2_000.0), (90_000.0, 3_000.0),
                              (70_000.0, 1_000.0), (85_000.0, 2_500.0)]))
    rate = readme_table.Cell(readme_table.MCP, "ferrule (C twins)", "lockstep req/s")
    assert readme_table.figure(record, rate) == "80,000 (60,000–90,000)"
    # a ratio is taken within each run, then the median: not the ratio of the two medians (40x)
    ratio = readme_table.Ratio(rate, readme_table.Cell(readme_table.MCP, "official SDK", "lockstep req/s"))
    assert readme_table.figure(record, ratio) == "34x (30–70)"
    assert readme_table.figure(record, readme_table.Cell(readme_table.MCP, "ferrule", "vs SDK", "x")) == \
        "34x (30–70)"


def test_only_five_full_runs_make_the_readme_table(capsys):
    with pytest.raises(ValueError, match="at least 5 full runs of every benchmark"):
        readme_table.render(_recorded(_runs([(80_000.0, 2_000.0)] * 4)), "four")
    with pytest.raises(ValueError, match="at least 5 full runs of every benchmark"):
        readme_table.render(_recorded(_runs([(80_000.0, 2_000.0)] * 5), quick=True), "quick")


def test_a_figure_the_recording_lacks_is_an_error_not_a_blank(capsys):
    record = _recorded(_runs([(80_000.0, 2_000.0)] * 5))
    with pytest.raises(KeyError, match="fastmcp"):
        readme_table.figure(record, readme_table.Cell(readme_table.MCP, "fastmcp", "lockstep req/s"))


def test_the_readme_has_no_relative_links_since_pypi_cannot_follow_them():
    text = README.read_text(encoding="utf-8")
    relative = [target for target in re.findall(r"\]\(([^)\s]+)\)", text)
                if not re.match(r"(https?://|mailto:|#)", target)]
    assert relative == []
