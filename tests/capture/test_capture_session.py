"""CaptureSession: one redirect for a run, a window per call; both twins (the `twin` fixture)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading

import pytest

from ferrule._capture_shared import ACTIVE
from ferrule.capture import CaptureBusy, Captured
from testkit.storm import assert_storm_is_harmless

NOTE = re.compile(r"^\[stderr truncated: the first (\d+) bytes were cut\]\n")


def identity(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def window(session, action, limit=None) -> Captured:
    session.begin()
    try:
        action()
    finally:
        captured = session.end(limit)
    return captured


def test_each_window_gets_exactly_its_own_bytes_and_the_rest_reaches_stderr(twin, capsys, own_stderr, monkeypatch):
    with capsys.disabled(), own_stderr() as path:
        # sys.stderr block-buffered on fd 2 itself: only the session's flushes move its text to the fd
        monkeypatch.setattr(sys, "stderr", open(2, "w", closefd=False, buffering=1 << 16))
        before = identity(2)
        with twin.capture.CaptureSession() as session:
            assert identity(2) != before
            os.write(2, b"server start|")
            first = window(session, lambda: (os.write(2, b"call one"), print("+py", file=sys.stderr, end="")))
            sys.stderr.write("server between|")  # no newline: the next begin flushes it, before the window
            second = window(session, lambda: os.write(2, b"call two"))
            third = window(session, lambda: None)
            os.write(2, b"server end")
        assert identity(2) == before
        assert not ACTIVE.locked()
    assert (first.text, second.text, third.text) == ("call one+py", "call two", "")
    assert (first.size, second.size, third.size, first.truncated) == (11, 8, 0, False)
    assert path.read_bytes() == b"server start|server between|server end"


def test_bytes_between_windows_are_forwarded_at_begin_and_forward_in_order(twin, own_stderr):
    with own_stderr() as path:
        with twin.capture.CaptureSession() as session:
            os.write(2, b"one|")
            assert path.read_bytes() == b""  # still in the capture file
            session.begin()
            assert path.read_bytes() == b"one|"
            os.write(2, b"in")
            assert session.end().text == "in"
            os.write(2, b"two|")
            session.forward()
            assert path.read_bytes() == b"one|two|"
            session.forward()  # nothing new: nothing sent twice
            os.write(2, b"three")
        assert path.read_bytes() == b"one|two|three"


def test_forward_inside_a_window_leaves_the_window_alone(twin, own_stderr):
    with own_stderr() as path:
        with twin.capture.CaptureSession() as session:
            session.begin()
            os.write(2, b"mine")
            session.forward()
            assert session.end().text == "mine"
    assert path.read_bytes() == b""


def test_a_background_thread_between_windows_is_forwarded_not_attributed(twin, own_stderr):
    with own_stderr() as path:
        with twin.capture.CaptureSession() as session:
            writer = threading.Thread(target=os.write, args=(2, b"from a thread|"))
            writer.start()
            writer.join()
            assert window(session, lambda: os.write(2, b"call")).text == "call"
    assert path.read_bytes() == b"from a thread|"


def test_the_limit_keeps_the_tail_with_the_capture_note(twin):
    with twin.capture.CaptureSession() as session:
        os.write(2, b"before the window")  # not the window's: never counted in its size or cut
        cut = window(session, lambda: os.write(2, b"0123456789"), limit=5)
        exact = window(session, lambda: os.write(2, b"0123456789"), limit=10)
        nothing = window(session, lambda: os.write(2, b"abc"), limit=0)
    assert cut.text == "[stderr truncated: the first 5 bytes were cut]\n56789"
    assert (cut.truncated, cut.size) == (True, 10)
    assert (exact.text, exact.truncated) == ("0123456789", False)
    assert nothing.text == "[stderr truncated: the first 3 bytes were cut]\n"


@pytest.mark.parametrize("char", ["é", "€", "😀"])
def test_the_limit_never_splits_a_character(twin, char):
    body = ("x" + char * 10).encode()
    with twin.capture.CaptureSession() as session:
        for limit in range(1, len(body)):
            seen = window(session, lambda: os.write(2, body), limit=limit)
            note = NOTE.match(seen.text)
            assert note, seen.text
            kept = seen.text[note.end():]
            assert body.decode().endswith(kept) and "\ufffd" not in kept
            assert limit - len(char.encode()) < len(kept.encode()) <= limit
            assert int(note.group(1)) == len(body) - len(kept.encode())


def test_bad_limits_and_thresholds_are_refused(twin):
    with pytest.raises(ValueError, match="threshold"):
        twin.capture.CaptureSession(-1)
    with twin.capture.CaptureSession() as session:
        session.begin()
        with pytest.raises(ValueError, match="limit"):
            session.end(-1)
        assert session.end().text == ""  # the refusal left the window open and usable


def test_a_child_in_a_window_is_captured_and_what_it_says_after_is_forwarded(twin, own_stderr):
    script = ("import sys\nsys.stderr.write('child started'); sys.stderr.flush()\n"
              "print('ready', flush=True)\nsys.stdin.readline()\n"
              "sys.stderr.write('child later'); sys.stderr.flush()\n")
    children = []

    def start() -> None:
        child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        children.append(child)
        assert child.stdout.readline() == b"ready\n"  # the window ends once the child spoke; it lives on

    with own_stderr() as path:
        with twin.capture.CaptureSession() as session:
            seen = window(session, start)
            children[0].communicate(b"go\n", timeout=60)  # it speaks between windows, and exits
            later = window(session, lambda: os.write(2, b"next call"))
    assert seen.text == "child started"
    assert later.text == "next call"
    assert path.read_bytes() == b"child later"


def test_a_child_writing_a_megabyte_in_a_window_never_blocks_and_every_byte_comes_back(twin, megabyte_writer):
    argv, payload = megabyte_writer
    with twin.capture.CaptureSession(threshold=1 << 19) as session:
        whole = window(session, lambda: subprocess.run(argv, timeout=120))
        assert session.begin() == 0, "past the threshold the file was emptied"
        session.end()
        tail = window(session, lambda: subprocess.run(argv, timeout=120), limit=64 * 1024)
    assert whole.size == len(payload) > (1 << 20) - 8
    assert whole.text == payload.decode()
    assert tail.size == len(payload) and tail.truncated
    assert payload.decode().endswith(tail.text[NOTE.match(tail.text).end():])


def test_the_file_is_emptied_past_the_threshold_between_windows(twin, own_stderr):
    with own_stderr() as path:
        with twin.capture.CaptureSession(threshold=1000) as session:
            os.write(2, b"a" * 999)
            assert session.begin() == 999  # under the threshold: kept, the window starts after it
            session.end()
            os.write(2, b"b" * 2000)
            assert session.begin() == 0  # forwarded, then emptied
            os.write(2, b"in")
            assert session.end().text == "in"
    assert path.read_bytes() == b"a" * 999 + b"b" * 2000


def test_fd2_is_restored_and_nothing_lost_when_the_run_raises(twin, own_stderr):
    with own_stderr() as path:
        before = identity(2)
        with pytest.raises(ZeroDivisionError):
            with twin.capture.CaptureSession() as session:
                os.write(2, b"between|")
                session.begin()
                os.write(2, b"in the open window")
                1 / 0  # noqa: B018
        assert identity(2) == before
        assert not ACTIVE.locked()
        os.write(2, b"|after")
    assert path.read_bytes() == b"between|in the open window|after"


def test_fd2_is_restored_after_a_keyboardinterrupt(twin, own_stderr):
    with own_stderr() as path:
        before = identity(2)
        with pytest.raises(KeyboardInterrupt):
            with twin.capture.CaptureSession() as session:
                window(session, lambda: os.write(2, b"call"))
                os.write(2, b"said before the interrupt")
                raise KeyboardInterrupt
        assert identity(2) == before
        assert not ACTIVE.locked()
    assert path.read_bytes() == b"said before the interrupt"
    with twin.capture.capture_stderr() as after:  # the guard is free and the file starts empty
        os.write(2, b"next")
    assert after.text == "next"


def test_captures_and_windows_do_not_nest(twin, all_twins):
    with twin.capture.CaptureSession() as session:
        for other in all_twins:
            with pytest.raises(CaptureBusy, match=r"docs/MCP\.md §4\.2"):
                with other.capture.capture_stderr():
                    pass
            with pytest.raises(CaptureBusy):
                with other.capture.CaptureSession():
                    pass
        with pytest.raises(CaptureBusy):
            with session:
                pass
        session.begin()
        with pytest.raises(CaptureBusy):
            session.begin()
        assert session.end().text == ""
        with pytest.raises(RuntimeError, match="no capture window"):
            session.end()
    with pytest.raises(RuntimeError, match="not open"):
        session.begin()
    for other in all_twins:
        with other.capture.capture_stderr() as free:
            os.write(2, b"free again")
        assert free.text == "free again"


def test_a_session_can_be_opened_again(twin):
    session = twin.capture.CaptureSession()
    for run in ("first", "second"):
        with session:
            assert session.active
            assert window(session, lambda run=run: os.write(2, run.encode())).text == run
        assert not session.active


def test_an_invalid_fd2_stays_invalid_and_windows_still_capture(twin):
    saved = os.dup(2)
    try:
        os.close(2)
        with twin.capture.CaptureSession() as session:
            os.write(2, b"nowhere to go")  # between windows, with no stderr to forward to: dropped
            assert window(session, lambda: os.write(2, b"into the void")).text == "into the void"
        with pytest.raises(OSError):
            os.fstat(2)
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def test_pytest_capfd_gets_its_fd_back_with_the_forwarded_text(twin, capfd):
    os.write(2, b"before|")
    with twin.capture.CaptureSession() as session:
        os.write(2, b"between|")
        seen = window(session, lambda: os.write(2, b"inside"))
    os.write(2, b"after")
    assert seen.text == "inside"
    assert capfd.readouterr().err == "before|between|after"


STDOUT_SCRIPT = r"""
import os, subprocess, sys
twin = __import__("ferrule._capture" if sys.argv[1] == "c" else "ferrule._capture_py", fromlist=["x"])
from ferrule.capture import private_stdout

frames = private_stdout()
with twin.CaptureSession() as session:
    print("stray print between windows")
    session.begin()
    print("print in a window", flush=True)
    subprocess.run([sys.executable, "-c", "print('child stdout in a window')"], check=True)
    print("print left in the buffer")  # the window's end flushes it
    seen = session.end()
    os.write(frames, ("frame: " + repr(seen.text) + "\n").encode())
print("print after the session", flush=True)
"""


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_fd1_follows_fd2_when_stdout_is_private(twin, unbuffered):
    name = str(twin)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:  # sys.stdout and sys.stderr then write straight through: nothing to flush
        env["PYTHONUNBUFFERED"] = "1"
    done = subprocess.run([sys.executable, "-c", STDOUT_SCRIPT, name], capture_output=True, text=True, timeout=60,
                          env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "frame: 'print in a window\\nchild stdout in a window\\nprint left in the buffer\\n'"]
    assert done.stderr.splitlines() == ["stray print between windows", "print after the session"]


@pytest.mark.parametrize("mode", ["capture", "session"])
def test_real_sigints_at_random_moments_never_lose_fd2_or_the_guard(twin, mode):
    assert_storm_is_harmless(twin, mode, seconds=2)
