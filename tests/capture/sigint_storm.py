"""Captures interrupted by real SIGINTs at random moments:
`python sigint_storm.py TWIN SECONDS MODE [SEED]`.

MODE `capture` runs `capture_stderr` blocks; MODE `session` runs a CaptureSession with three windows.
Runs in its own process (a KeyboardInterrupt loose in pytest would end the run). A helper thread
sends SIGINT every few tens of microseconds, at gaps drawn from SEED (random when not given); the
handler raises KeyboardInterrupt only while a capture is being entered, used or left. After every
cycle, interrupted or not, fd 2 must be what it was and the guard free. Prints one JSON line: the
seed, counts of cycles, interrupts and faults. The seed replays the gaps, not the moments they land
on (those depend on the machine's timing), so a fault found once is searched for with the same
sequence again.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable

twin_name, seconds, mode = sys.argv[1], float(sys.argv[2]), sys.argv[3]
seed = int(sys.argv[4]) if len(sys.argv) > 4 else random.SystemRandom().randrange(1 << 32)
gaps = random.Random(seed)
twin = importlib.import_module("ferrule._capture" if twin_name == "c" else "ferrule._capture_py")
from ferrule._capture_shared import ACTIVE  # noqa: E402


def identity(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


original = identity(2)
spare = os.dup(2)
armed = [False]
counts = dict.fromkeys(("cycles", "interrupted", "wrong_text", "fd2_lost", "guard_held", "busy", "other"), 0)
other_kinds: list[str] = []


def on_sigint(signum: int, frame: object) -> None:
    if armed[0]:
        raise KeyboardInterrupt


def pester(done: threading.Event) -> None:
    pid = os.getpid()
    while not done.is_set():
        os.kill(pid, signal.SIGINT)
        time.sleep(gaps.uniform(0, 0.0003))


def one_capture() -> None:
    with twin.capture_stderr(4096) as captured:
        os.write(2, b"inside\n")
    armed[0] = False
    if captured.text != "inside\n":
        counts["wrong_text"] += 1


def one_session() -> None:
    with twin.CaptureSession() as session:
        for _ in range(3):
            session.begin()
            try:
                os.write(2, b"inside")
            finally:
                seen = session.end(4096)
            if seen.text != "inside":
                counts["wrong_text"] += 1
    armed[0] = False


def storm(cycle: Callable[[], None]) -> None:
    signal.signal(signal.SIGINT, on_sigint)
    done = threading.Event()
    threading.Thread(target=pester, args=(done,), daemon=True).start()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        counts["cycles"] += 1
        try:
            armed[0] = True
            cycle()
        except KeyboardInterrupt:
            counts["interrupted"] += 1
        except twin.CaptureBusy:
            counts["busy"] += 1
        except BaseException as exc:
            counts["other"] += 1
            other_kinds.append(repr(exc)[:120])
        armed[0] = False
        if identity(2) != original:
            counts["fd2_lost"] += 1
            os.dup2(spare, 2)
        if ACTIVE.locked():
            counts["guard_held"] += 1
            ACTIVE.release()
    done.set()


storm({"capture": one_capture, "session": one_session}[mode])
print(json.dumps({"twin": twin_name, "mode": mode, "seed": seed, **counts, "other_kinds": other_kinds[:20]}),
      flush=True)
