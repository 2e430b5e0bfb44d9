"""The stderr capture guard: ferrule's C and Python twins against wurlitzer `pipes()`.

Two cycles: an empty one (what every tool call pays) and one where the block writes 64 KiB to fd 2
and the text is read back. wurlitzer captures stderr only here (stdout=None), like ferrule, and in
bytes (encoding=None), decoded whole afterwards: its text mode decodes each pipe read on its own and
turns characters split across reads into U+FFFD (87 of them in this payload).
"""

from __future__ import annotations

import os

import pytest
import wurlitzer

from ferrule import _capture, _capture_py

PAYLOAD = ("capture é € 😀 " * 4096).encode()[: 64 * 1024]
PAYLOAD = PAYLOAD[: len(PAYLOAD.decode("utf-8", "ignore").encode())]  # whole characters


def ferrule_cycle(twin, payload: bytes | None):
    capture_stderr = twin.capture_stderr

    def cycle() -> str:
        with capture_stderr() as seen:
            if payload:
                os.write(2, payload)
        return seen.text

    return cycle


def wurlitzer_cycle(payload: bytes | None):
    def cycle() -> str:
        with wurlitzer.pipes(stdout=None, encoding=None) as (_, err):
            if payload:
                os.write(2, payload)
        return err.read().decode("utf-8", "replace")

    return cycle


IMPLS = {
    "ferrule C": lambda payload: ferrule_cycle(_capture, payload),
    "ferrule Python": lambda payload: ferrule_cycle(_capture_py, payload),
    "wurlitzer pipes()": wurlitzer_cycle,
}


@pytest.mark.parametrize("impl", list(IMPLS))
def test_empty_cycle(benchmark, impl):
    benchmark.group = "capture: empty cycle"
    benchmark.extra_info["impl"] = impl
    benchmark.extra_info["target"] = "ferrule C >= 50x wurlitzer pipes()"
    if impl.startswith("wurlitzer"):
        benchmark.extra_info["baseline"] = True
    assert benchmark(IMPLS[impl](None)) == ""


@pytest.mark.parametrize("impl", list(IMPLS))
def test_64k_write_cycle(benchmark, impl):
    benchmark.group = "capture: 64 KiB write cycle"
    benchmark.extra_info["impl"] = impl
    if impl.startswith("wurlitzer"):
        benchmark.extra_info["baseline"] = True
    assert benchmark(IMPLS[impl](PAYLOAD)) == PAYLOAD.decode()
