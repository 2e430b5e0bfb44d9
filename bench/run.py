"""Run every benchmark and print one table per hot path, with ratios.

Micro-benchmarks are pytest-benchmark files (bench/test_*.py): each test names its `group` (the hot
path) and sets `extra_info["impl"]` and, for the reference row, `extra_info["baseline"] = True`. The
table for a group divides every row's median by the baseline's. Whole-process benchmarks (servers,
the analyzer relay) are scripts bench/bench_*.py with `main(quick: bool)` that print their own tables.

`--runs N` repeats the whole set; `--record` writes every table's numeric cells over the runs, as median
and range, to bench/results/ (bench/recording.py), where bench/readme_table.py reads the README's table.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _report  # noqa: E402
import recording  # noqa: E402
from _report import print_table  # noqa: E402


def run_micro(quick: bool, only: str | None) -> int:
    files = sorted(HERE.glob("test_*.py"))
    if only:
        files = [f for f in files if only in f.name]
    if not files:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.json"
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *map(str, files),
               f"--benchmark-json={out}", "--benchmark-disable-gc", "--benchmark-columns=median"]
        if quick:
            cmd += ["--benchmark-max-time=0.05", "--benchmark-min-rounds=3", "--benchmark-warmup=off"]
        proc = subprocess.run(cmd, cwd=HERE.parent, capture_output=True, text=True)
        if proc.returncode != 0 or not out.exists():
            sys.stdout.write(proc.stdout[-4000:])
            sys.stderr.write(proc.stderr[-4000:])
            return proc.returncode or 1
        data = json.loads(out.read_text())
    groups: dict[str, list[dict]] = defaultdict(list)
    for b in data["benchmarks"]:
        groups[b["group"] or b["name"]].append(b)
    for group, rows in groups.items():
        base = next((r for r in rows if r["extra_info"].get("baseline")), rows[0])
        base_median = base["stats"]["median"]
        table = []
        for r in sorted(rows, key=lambda r: r["stats"]["median"]):
            median = r["stats"]["median"]
            table.append([r["extra_info"].get("impl", r["name"]), median * 1e6, 1 / median,
                          f"{base_median / median:.1f}x"])
        target = next((r["extra_info"]["target"] for r in rows if "target" in r["extra_info"]), "")
        print_table(group, ["implementation", "median µs", "ops/s",
                            f"speed vs {base['extra_info'].get('impl', base['name'])}"], table,
                    f"target: {target}" if target else "")
    return 0


def run_scripts(quick: bool, only: str | None) -> int:
    status = 0
    for path in sorted(HERE.glob("bench_*.py")):
        if only and only not in path.name:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        assert spec.loader is not None
        sys.modules[spec.name] = module  # dataclasses and pickling look their module up by name
        spec.loader.exec_module(module)
        try:
            module.main(quick=quick)
        except Exception as exc:  # one broken benchmark must not hide the others
            print(f"\n## {path.stem}: FAILED: {exc!r}")
            status = 1
    return status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="short runs, for CI: the ratios, not the precision")
    parser.add_argument("--only", help="run only the benchmarks whose file name contains this")
    parser.add_argument("--runs", type=int, default=1, help="repeat the whole set this many times")
    parser.add_argument("--record", action="store_true",
                        help="write the tables, median and range over the runs, to bench/results/")
    args = parser.parse_args()
    os.environ.setdefault("PYTHONHASHSEED", "0")
    command = "python bench/run.py " + " ".join(sys.argv[1:])
    record = recording.new_record(command, args.quick)
    status = 0
    each: list[list[dict]] = []
    for number in range(args.runs):
        load_start, started = recording.load_average(), time.monotonic()
        print(f"# ferrule benchmarks ({'quick' if args.quick else 'full'}, run {number + 1} of {args.runs}), "
              f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {load_start}", flush=True)
        first = len(_report.TABLES)
        status |= run_micro(args.quick, args.only) | run_scripts(args.quick, args.only)
        each.append(_report.TABLES[first:])
        record["each_run"].append({"seconds": round(time.monotonic() - started, 1), "load_start": load_start,
                                   "load_end": recording.load_average()})
    record["load"]["end"] = recording.load_average()
    record["runs"], record["only"] = args.runs, args.only
    record["failed"] = bool(status)  # a failed part leaves its tables out; the README table will not render
    record["tables"] = recording.aggregate(each)
    if args.runs > 1:
        print(recording.markdown(record))
    if args.record:
        path = recording.write(record)
        print(f"recorded: {path.relative_to(HERE.parent)} and {path.with_suffix('.md').name}; "
              "the README's table from it: python bench/readme_table.py")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
