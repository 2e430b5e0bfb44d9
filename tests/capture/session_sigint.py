"""Capture sessions interrupted by real SIGINTs at random moments: `python session_sigint.py TWIN SECONDS`.

Runs in its own process (a KeyboardInterrupt loose in pytest would end the run). A helper thread
sends SIGINT every few tens of microseconds; the handler raises KeyboardInterrupt only while a
session is being opened, used or closed. After every session, interrupted or not, fd 2 must be what
it was and the guard free. Prints one JSON line: counts of cycles, interrupts and faults.
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

twin = importlib.import_module("ferrule._capture" if sys.argv[1] == "c" else "ferrule._capture_py")
seconds = float(sys.argv[2])
from ferrule._capture_shared import ACTIVE  # noqa: E402


def identity(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


original = identity(2)
spare = os.dup(2)
armed = [False]


def on_sigint(signum: int, frame: object) -> None:
    if armed[0]:
        raise KeyboardInterrupt


signal.signal(signal.SIGINT, on_sigint)
done = threading.Event()


def pester() -> None:
    pid = os.getpid()
    while not done.is_set():
        os.kill(pid, signal.SIGINT)
        time.sleep(random.uniform(0, 0.0003))


threading.Thread(target=pester, daemon=True).start()
counts = {"cycles": 0, "interrupted": 0, "wrong_text": 0, "fd2_lost": 0, "guard_held": 0, "other": 0}
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    counts["cycles"] += 1
    try:
        armed[0] = True
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
    except KeyboardInterrupt:
        armed[0] = False
        counts["interrupted"] += 1
    except BaseException as exc:
        armed[0] = False
        counts["other"] += 1
        counts.setdefault("other_kinds", []).append(repr(exc)[:120])
    if identity(2) != original:
        counts["fd2_lost"] += 1
        os.dup2(spare, 2)
    if ACTIVE.locked():
        counts["guard_held"] += 1
        ACTIVE.release()
done.set()
print(json.dumps(counts), flush=True)
