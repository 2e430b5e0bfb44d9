"""Run the test suite against an installed ferrule, from a copy outside the source tree.

Two ways in:
  python scripts/test_installed.py --source . --wheel dist/ferrule-*.whl   # makes a fresh venv first
  python scripts/test_installed.py --source .                               # this interpreter has ferrule
The second form is what cibuildwheel's test-command runs inside its own test environment.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

PYTEST_INI = """[pytest]
addopts = --import-mode=importlib -ra -p no:cacheprovider
pythonpath = tests
timeout = 300
markers =
    live: drives the real rust-analyzer
    c_extension: runs on the compiled modules (the C twin); --no-c-extensions deselects it
    slow: long-running
"""


def check_installed(python: str, source: Path, require_extensions: bool) -> None:
    probe = (
        "import ferrule, ferrule.fastframe as f, ferrule.capture as c, ferrule.mcp.server as s, pathlib, sys;"
        "print(pathlib.Path(ferrule.__file__).resolve().parent);"
        "print(f.IMPLEMENTATION, c.IMPLEMENTATION, s.IMPLEMENTATION)"
    )
    out = subprocess.run([python, "-c", probe], capture_output=True, text=True, cwd=tempfile.gettempdir(),
                         env={k: v for k, v in os.environ.items() if k != "FERRULE_NO_EXTENSIONS"})
    if out.returncode != 0:
        sys.exit(f"test_installed: ferrule does not import from {python}:\n{out.stderr}")
    location, impls = out.stdout.split("\n")[:2]
    if Path(location).is_relative_to(source.resolve()):
        sys.exit(f"test_installed: ferrule was imported from the source tree ({location}), not the install")
    if require_extensions and impls != "c c c":
        sys.exit(f"test_installed: the compiled modules did not load (implementations: {impls})")
    print(f"test_installed: ferrule from {location}, implementations {impls}")


def make_venv(wheel: Path, where: Path) -> str:
    venv.EnvBuilder(with_pip=True, clear=True).create(where)
    python = str(where / ("Scripts" if os.name == "nt" else "bin") / "python")
    pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, f"{wheel.resolve()}[test]"], check=True)
    return python


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, required=True, help="the source checkout (tests are copied from it)")
    parser.add_argument("--wheel", type=Path, help="install this wheel into a fresh venv first")
    parser.add_argument("--require-extensions", action="store_true", help="fail unless the compiled twins load")
    parser.add_argument("--markers", default="not live and not slow", help="pytest -m expression")
    args = parser.parse_args()
    source = args.source.resolve()
    with tempfile.TemporaryDirectory(prefix="ferrule-installed-") as tmp:
        work = Path(tmp)
        python = make_venv(args.wheel, work / "venv") if args.wheel else sys.executable
        check_installed(python, source, args.require_extensions)
        # the TypeScript clients are installed afresh there: a copy would turn their links into files
        shutil.copytree(source / "tests", work / "suite" / "tests",
                        ignore=shutil.ignore_patterns("__pycache__", "node_modules", "node_modules.lock", ".npm"))
        # what the tests read besides themselves: the demo crate, the fuzz targets, the soak driver, the
        # documents whose tables and sections the code is checked against
        for folder in ("examples", "fuzz", "bench", "docs"):
            if (source / folder).is_dir():
                shutil.copytree(source / folder, work / "suite" / folder,
                                ignore=shutil.ignore_patterns("target", "__pycache__", "results"))
        (work / "suite" / "pytest.ini").write_text(PYTEST_INI)
        env = {k: v for k, v in os.environ.items() if k not in ("FERRULE_NO_EXTENSIONS", "PYTHONPATH")}
        cmd = [python, "-m", "pytest", "-q", "-m", args.markers, "tests"]
        print("test_installed:", " ".join(cmd))
        return subprocess.run(cmd, cwd=work / "suite", env=env).returncode


if __name__ == "__main__":
    raise SystemExit(main())
