"""Fuzz every target for a bounded time and keep what crashes: `python fuzz/run.py [--seconds N] [--only T]`.

Each target runs in its own atheris process, starting from its seeds (fuzz/targets.py) and the
corpus it grew on earlier runs (build/fuzz/corpus/<target>, not committed). An input that crashes,
hangs (over --timeout seconds) or runs out of memory is copied to fuzz/regressions/<target>/, which
the test suite replays on every run; the run then fails. Prints one row per target: inputs tried,
corpus size, crashes.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = REPO / "build" / "fuzz"
sys.path.insert(0, str(HERE))

import targets  # noqa: E402


def prepare(name: str) -> tuple[Path, Path, Path]:
    corpus = WORK / "corpus" / name
    corpus.mkdir(parents=True, exist_ok=True)
    for seed in targets.SEEDS.get(name, []):
        (corpus / ("seed-" + hashlib.sha1(seed).hexdigest())).write_bytes(seed)
    dictionary = WORK / f"{name}.dict"
    dictionary.write_text("".join('"' + "".join(f"\\x{b:02x}" for b in token) + '"\n'
                                  for token in targets.DICTIONARIES.get(name, [])))
    artifacts = WORK / "artifacts" / name
    shutil.rmtree(artifacts, ignore_errors=True)
    artifacts.mkdir(parents=True)
    return corpus, dictionary, artifacts


def fuzz(name: str, seconds: int, timeout: int) -> dict[str, object]:
    corpus, dictionary, artifacts = prepare(name)
    regressions = HERE / "regressions" / name
    command = [sys.executable, str(HERE / "harness.py"), name, str(corpus),
               f"-max_total_time={seconds}", f"-timeout={timeout}", "-rss_limit_mb=4096",
               "-print_final_stats=1", f"-artifact_prefix={artifacts}/", "-close_fd_mask=1"]
    if dictionary.stat().st_size:
        command.append(f"-dict={dictionary}")
    if regressions.is_dir():
        command.append(str(regressions))  # read only: libFuzzer adds new units to the first dir
    began = time.monotonic()
    log = WORK / f"{name}.log"
    with log.open("wb") as out:
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
    text = log.read_text(errors="replace")
    runs = re.findall(r"stat::number_of_executed_units: (\d+)", text)
    kept = []
    for artifact in sorted(artifacts.iterdir()):
        regressions.mkdir(parents=True, exist_ok=True)
        target = regressions / artifact.name
        shutil.copyfile(artifact, target)
        kept.append(target)
    return {"target": name, "inputs": int(runs[-1]) if runs else 0, "seconds": time.monotonic() - began,
            "corpus": sum(1 for _ in corpus.iterdir()), "crashes": len(kept), "exit": done.returncode,
            "kept": kept, "log": log}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=60, help="fuzzing time per target (default 60)")
    parser.add_argument("--timeout", type=int, default=10, help="seconds one input may take (default 10)")
    parser.add_argument("--only", action="append", choices=sorted(targets.TARGETS), help="fuzz only this target")
    args = parser.parse_args()
    rows = [fuzz(name, args.seconds, args.timeout) for name in args.only or targets.TARGETS]
    print(f"\n{'target':<16} {'inputs':>10} {'corpus':>7} {'crashes':>8}")
    for row in rows:
        print(f"{row['target']:<16} {row['inputs']:>10,} {row['corpus']:>7} {row['crashes']:>8}")
    print(f"{'total':<16} {sum(r['inputs'] for r in rows):>10,}")
    failed = [row for row in rows if row["crashes"] or row["exit"] not in (0,)]
    for row in failed:
        print(f"\n{row['target']}: exit {row['exit']}, log {row['log']}")
        for path in row["kept"]:
            print(f"  kept as a regression case: {path.relative_to(REPO)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
