#!/usr/bin/env python3
"""Record the goldens and the analyzer transcripts, against the real rust-analyzer.

    . /opt/rust-offline/env.sh
    .venv/bin/python tests/relay/double/record.py [SCENARIO ...]

For each scenario of tests/testkit/scenarios.py: copy the fixture crate to a temporary directory,
run `ferrule serve` on it with --rust-analyzer pointing at this script in proxy mode (which runs the
real analyzer and logs every LSP message both ways), play the scenario's batches, then write
  tests/relay/goldens/<scenario>.ndjson          the outer frames, normalised (the golden)
  tests/relay/double/transcripts/<scenario>.ndjson  the inner LSP hop, root as $ROOT (for the double)
and the one-shot commands of scenarios.CLI_RUNS the same way, into
  tests/relay/goldens/cli.ndjson                 {args, cwd, exit, stdout} of each run
  tests/relay/double/transcripts/cli.ndjson      every run's inner hop, one after another
Run it again after a deliberate change to the relay's answers or the fixture, and review the diff.

Proxy mode (what the relay starts as its analyzer):
    record.py proxy --out TRANSCRIPT --analyzer REAL_RUST_ANALYZER [analyzer args...]
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the tests' helper package, testkit, as pytest finds it
sys.path.insert(0, str(HERE))

from fake_analyzer import ROOT_MARK, replace_root, root_of  # noqa: E402

# ---------------------------------------------------------------------------------------------------
# proxy: the relay's analyzer, logging the inner hop


def _die_with_parent() -> None:
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _read_message(stream):
    """One LSP message: (raw bytes including headers, parsed body), or None at end of stream."""
    headers = b""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        headers += line
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    body = b""
    while len(body) < (length or 0):  # a raw pipe may return less than asked
        chunk = stream.read(length - len(body))
        if not chunk:
            return None
        body += chunk
    return headers + body, json.loads(body)


def proxy(argv: list[str]) -> int:
    out = Path(argv[argv.index("--out") + 1])
    real = argv[argv.index("--analyzer") + 1]
    rest = [a for i, a in enumerate(argv) if a not in ("--out", "--analyzer")
            and (i == 0 or argv[i - 1] not in ("--out", "--analyzer"))]
    if "--version" in rest or "-V" in rest:
        done = subprocess.run([real, *rest], capture_output=True, text=True)
        with out.open("a", encoding="utf-8") as log:
            log.write(json.dumps({"version": done.stdout.strip()}) + "\n")
        sys.stdout.write(done.stdout)
        sys.stderr.write(done.stderr)
        return done.returncode
    child = subprocess.Popen([real, *rest], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             preexec_fn=_die_with_parent, bufsize=0)
    lock = threading.Lock()
    state = {"root": None}
    log = out.open("a", encoding="utf-8")

    def record(direction: str, message: dict) -> None:
        text = json.dumps({direction: message}, ensure_ascii=False)
        if state["root"]:
            text = replace_root(text, state["root"], ROOT_MARK)
        log.write(text + "\n")
        log.flush()

    def client_to_server() -> None:
        stdin = sys.stdin.buffer
        while True:
            got = _read_message(stdin)
            if got is None:
                break
            raw, message = got
            with lock:
                if message.get("method") == "initialize":
                    state["root"] = root_of(message.get("params") or {})
                record("c", message)
                child.stdin.write(raw)
        child.stdin.close()

    def server_to_client() -> None:
        stdout = sys.stdout.buffer
        while True:
            got = _read_message(child.stdout)
            if got is None:
                break
            raw, message = got
            with lock:
                record("s", message)
                stdout.write(raw)
                stdout.flush()

    threading.Thread(target=client_to_server, daemon=True).start()
    server_to_client()
    code = child.wait()
    with lock:
        log.close()
    sys.stdout.flush()
    os._exit(code)  # the stdin pump may still be blocked in a read: do not wait for it


# ---------------------------------------------------------------------------------------------------
# driver: play the scenarios live


def record_scenario(name: str, batches: list[list[bytes]], analyzer: str) -> None:
    from testkit import golden
    from testkit.scenarios import FIXTURE

    goldens = HERE.parent / "goldens"
    transcripts = HERE / "transcripts"
    goldens.mkdir(exist_ok=True)
    transcripts.mkdir(exist_ok=True)
    transcript = transcripts / f"{name}.ndjson"
    transcript.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="ferrule-record-") as tmp:
        root = golden.copy_fixture(FIXTURE, Path(tmp) / "crate")
        wrapper = Path(tmp) / "recording-rust-analyzer"
        wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).resolve()}" proxy '
                           f'--out "{transcript}" --analyzer "{analyzer}" "$@"\n')
        wrapper.chmod(0o755)
        serve = golden.ServeProcess(root, str(wrapper))
        try:
            steps = golden.run_steps(serve, [golden.Step(sends=b) for b in batches], str(root))
            code = serve.close_input()
        finally:
            serve.kill()
        if code != 0:
            raise SystemExit(f"{name}: serve exited {code}; stderr:\n{serve.stderr()}")
    golden.dump(goldens / f"{name}.ndjson", steps)
    print(f"{name}: {sum(len(s.sends) for s in steps)} frames, "
          f"{sum(1 for _ in transcript.open())} inner messages")


def record_cli(runs: list[tuple[str, list[str]]], analyzer: str) -> None:
    from testkit import golden
    from testkit.scenarios import FIXTURE

    transcript = HERE / "transcripts" / "cli.ndjson"
    transcript.unlink(missing_ok=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="ferrule-record-") as tmp:
        root = golden.copy_fixture(FIXTURE, Path(tmp) / "crate")
        wrapper = Path(tmp) / "recording-rust-analyzer"
        wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).resolve()}" proxy '
                           f'--out "{transcript}" --analyzer "{analyzer}" "$@"\n')
        wrapper.chmod(0o755)
        for cwd, args in runs:
            done = golden.run_cli(args, root / cwd, str(wrapper))
            results.append({"cwd": cwd, "args": args, "exit": done.returncode,
                            "stdout": done.stdout.replace(str(root), golden.ROOT_MARK)})
            print(f"cli {' '.join(args)}: exit {done.returncode}")
    (HERE.parent / "goldens" / "cli.ndjson").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in results), encoding="utf-8")


def main(argv: list[str]) -> int:
    if argv[:1] == ["proxy"]:
        return proxy(argv[1:])
    from testkit.scenarios import CLI_RUNS, SCENARIOS

    analyzer = os.environ.get("RUST_ANALYZER")
    if not analyzer:
        raise SystemExit("set RUST_ANALYZER (. /opt/rust-offline/env.sh) to the real rust-analyzer first")
    names = argv or [*SCENARIOS, "cli"]
    for name in names:
        if name == "cli":
            record_cli(CLI_RUNS, analyzer)
        else:
            record_scenario(name, SCENARIOS[name], analyzer)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
