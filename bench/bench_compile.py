"""validate's compile check against `cargo check` run by hand, after the same one-line edit.

For each project (the demo crate, and regex-syntax from the offline registry: some 50,000 lines):
`validate` with `compile: true` on a warm relay, the edit sent as unsaved `content`; against it,
`cargo check --all-targets --message-format=json` in a plain copy of the project after the same edit
written to disk. Both are warm (incremental) after a first, cold check, which is printed too; so is
`validate` without `compile`, the analyzer alone. Target: validate with compile at most 1.2 times
cargo's own incremental check, p50. Each project gets a private cache folder (XDG_CACHE_HOME).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import print_table  # noqa: E402

TARGET_RATIO = 1.2
BUDGET_MS = 600_000
HERE = Path(__file__).resolve().parent
PROJECTS = (
    ("demo crate", HERE.parent / "examples" / "demo-crate", "src/lib.rs"),
    ("regex-syntax", Path(os.environ.get("RUST_OFFLINE_CRATES", "/opt/rust-offline/crates")) / "regex-syntax-0.6.27",
     "src/lib.rs"),
)


def _edited(text: str, round_: int) -> str:
    """The file with its last line replaced: one changed line per round, as an agent's edit."""
    return text.rstrip("\n") + f"\n// edit {round_}\n"


def _cargo_check(project: Path) -> float:
    began = time.perf_counter()
    subprocess.run(["cargo", "check", "--all-targets", "--message-format=json"], cwd=project,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - began


def _validate(session, file: str, content: str, compile_: bool) -> float:
    began = time.perf_counter()
    result = session.call("validate", {"file": file, "content": content, "compile": compile_, "timeout_ms": BUDGET_MS})
    elapsed = time.perf_counter() - began
    if compile_ and not result.get("compiled"):
        raise RuntimeError(f"the compile check did not answer: {result.get('compile_error')}")
    return elapsed


def _measure(source: Path, file: str, rounds: int, scratch: Path) -> dict[str, object]:
    from ferrule.relay.sync import SyncSession

    ignore = shutil.ignore_patterns("target")
    mirrored, plain = scratch / "relay" / source.name, scratch / "plain" / source.name
    shutil.copytree(source, mirrored, ignore=ignore)
    shutil.copytree(source, plain, ignore=ignore)
    original = (mirrored / file).read_text(encoding="utf-8")
    figures: dict[str, object] = {"cargo cold": _cargo_check(plain)}
    os.environ["XDG_CACHE_HOME"] = str(scratch / "cache")
    with SyncSession(mirrored, quiet_policy=True) as session:
        session.call("init", {"timeout_ms": BUDGET_MS})
        figures["validate cold"] = _validate(session, file, _edited(original, -1), True)
        by_hand, shadow = [], []
        for round_ in range(rounds):  # interleaved, so that a busy moment of the machine hits both alike
            (plain / file).write_text(_edited(original, round_), encoding="utf-8")
            by_hand.append(_cargo_check(plain))
            shadow.append(_validate(session, file, _edited(original, round_), True))
        figures["cargo warm"], figures["validate warm"] = by_hand, shadow
        figures["analyzer only"] = [_validate(session, file, _edited(original, r), False) for r in range(rounds)]
    return figures


def _ms(seconds: float) -> float:
    return seconds * 1000


def main(quick: bool = False) -> None:
    rounds = 3 if quick else 9
    rows, cold = [], []
    saved = os.environ.get("XDG_CACHE_HOME")
    try:
        for name, source, file in PROJECTS:
            if not (source / "Cargo.toml").is_file():
                print(f"(skipped {name}: no project at {source})")
                continue
            with tempfile.TemporaryDirectory(prefix="bench-compile-") as scratch:
                figures = _measure(source, file, rounds, Path(scratch))
            cargo = statistics.median(figures["cargo warm"])  # type: ignore[arg-type]
            shadow = statistics.median(figures["validate warm"])  # type: ignore[arg-type]
            alone = statistics.median(figures["analyzer only"])  # type: ignore[arg-type]
            ratio = shadow / cargo
            rows.append([name, _ms(cargo), _ms(shadow), ratio, "yes" if ratio <= TARGET_RATIO else "NO", _ms(alone)])
            cold.append([name, _ms(figures["cargo cold"]), _ms(figures["validate cold"])])  # type: ignore[arg-type]
    finally:
        if saved is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = saved
    print_table(
        f"validate with compile vs cargo check by hand, after a one-line edit (p50 of {rounds}, ms)",
        ["project", "cargo check", "validate compile", "ratio", f"<= {TARGET_RATIO}", "validate alone"],
        rows,
        "validate compile: the edit sent as unsaved content, rustc's answer mapped back; cargo check: the "
        "same edit on disk in a plain copy. validate alone: without compile, the analyzer's diagnostics.",
    )
    print_table("the first (cold) check, ms", ["project", "cargo check", "validate compile"], cold,
                "both build the project from nothing in a target directory of their own")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
