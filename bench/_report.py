"""One way to print a benchmark table, shared by every bench script.

Every printed table is also kept in `TABLES`, as given (numbers unformatted), so that bench/run.py can
record the run's tables without any script returning them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

TABLES: list[dict[str, Any]] = []


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[object]], notes: str = "") -> None:
    TABLES.append({"title": title, "header": [str(c) for c in header], "rows": [list(r) for r in rows],
                   "notes": notes})
    cells = [[str(c) for c in header]] + [[fmt(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    print(f"\n## {title}")
    for i, row in enumerate(cells):
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    if notes:
        print(notes)


def fmt(value: object) -> str:
    if isinstance(value, float):
        if value >= 100:
            return f"{value:,.0f}"
        if value >= 1:
            return f"{value:.2f}"
        return f"{value:.3g}"
    return str(value)
