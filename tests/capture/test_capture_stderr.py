"""capture_stderr: both twins, through the `capture_stderr` fixture (parametrized over C and Python)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading

import pytest

from ferrule.capture import CaptureBusy, Captured

NOTE = re.compile(r"^\[stderr truncated: the first (\d+) bytes were cut\]\n")


def identity(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def test_python_and_c_level_writes_are_captured(capture_stderr, capsys):
    with capsys.disabled():  # pytest's capture off: sys.stderr writes to fd 2, as in a server process
        with capture_stderr() as seen:
            print("from sys.stderr", file=sys.stderr, end="|")  # buffered: the exit flush must send it
            os.write(2, b"from fd 2|")
            sys.stderr.write("again")
    assert isinstance(seen, Captured)
    assert seen.text == "from sys.stderr|from fd 2|again"
    assert seen.size == len(seen.text)
    assert not seen.truncated


def test_pending_stderr_is_flushed_before_the_capture_starts(capture_stderr, capsys, own_stderr):
    with capsys.disabled(), own_stderr() as path:
        sys.stderr.write("written before")  # still in sys.stderr's buffer when the capture starts
        with capture_stderr() as seen:
            os.write(2, b"inside")
    assert seen.text == "inside"
    assert path.read_bytes() == b"written before"


def test_a_child_writing_a_megabyte_does_not_block_and_every_byte_comes_back(capture_stderr, megabyte_writer):
    argv, payload = megabyte_writer
    with capture_stderr() as seen:
        done = subprocess.run(argv, timeout=120)
    assert done.returncode == 0
    assert seen.size == len(payload) > (1 << 20) - 8
    assert seen.text == payload.decode()


def test_each_capture_starts_empty(capture_stderr):
    with capture_stderr() as first:
        os.write(2, b"a long first capture")
    with capture_stderr() as second:
        os.write(2, b"short")
    with capture_stderr() as empty:
        pass
    assert (first.text, second.text, empty.text) == ("a long first capture", "short", "")
    assert (second.size, empty.size) == (5, 0)


def test_fd2_is_restored_when_the_block_raises(capture_stderr, own_stderr):
    with own_stderr() as path:
        before = identity(2)
        with pytest.raises(ZeroDivisionError):
            with capture_stderr() as seen:
                os.write(2, b"said before failing")
                assert identity(2) != before
                1 / 0  # noqa: B018
        assert identity(2) == before
        os.write(2, b"after")
    assert seen.text == "said before failing"
    assert path.read_bytes() == b"after"


def test_a_nested_capture_is_refused_citing_the_spec(capture_stderr):
    before = identity(2)
    with capture_stderr() as outer:
        os.write(2, b"outer ")
        with pytest.raises(CaptureBusy, match=r"docs/MCP\.md §4\.2") as refused:
            with capture_stderr():
                pytest.fail("a nested capture must not start")
        os.write(2, b"still captured")
    assert isinstance(refused.value, RuntimeError)
    assert outer.text == "outer still captured"
    assert identity(2) == before
    with capture_stderr() as later:  # the refusal did not leave the guard held
        os.write(2, b"ok")
    assert later.text == "ok"


def test_the_twins_share_one_guard(all_twins):
    for outer in all_twins:
        for inner in all_twins:
            with outer.capture.capture_stderr():
                with pytest.raises(CaptureBusy):
                    with inner.capture.capture_stderr():
                        pass


def test_a_capture_from_another_thread_is_refused(capture_stderr):
    outcome: list[BaseException | None] = []

    def other() -> None:
        try:
            with capture_stderr():
                pass
        except CaptureBusy as exc:
            outcome.append(exc)
        else:
            outcome.append(None)

    with capture_stderr():
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert isinstance(outcome[0], CaptureBusy)


def test_pytest_capfd_gets_its_fd_back(capture_stderr, capfd):
    os.write(2, b"before|")
    with capture_stderr() as seen:
        os.write(2, b"inside")
    os.write(2, b"after")
    assert seen.text == "inside"
    assert capfd.readouterr().err == "before|after"


@pytest.mark.parametrize("char", ["é", "€", "😀"])
def test_a_character_written_in_pieces_decodes_intact(capture_stderr, char):
    encoded = char.encode()
    with capture_stderr() as seen:
        for i in range(len(encoded)):
            os.write(2, encoded[i : i + 1])
    assert seen.text == char


def test_invalid_bytes_become_replacement_characters(capture_stderr):
    with capture_stderr() as seen:
        os.write(2, b"ok \xff\xfe ok \xc3( \xed\xa0\x80 \xe2\x82")
    assert seen.text == "ok \ufffd\ufffd ok \ufffd( \ufffd\ufffd\ufffd \ufffd"


@pytest.mark.parametrize("char", ["é", "€", "😀"])
def test_the_cap_never_splits_a_character(capture_stderr, char):
    body = ("x" + char * 10).encode()
    for limit in range(1, len(body)):
        with capture_stderr(limit=limit) as seen:
            os.write(2, body)
        note = NOTE.match(seen.text)
        assert note, seen.text
        kept = seen.text[note.end() :]
        assert "\ufffd" not in kept
        assert body.decode().endswith(kept)
        assert limit - len(char.encode()) < len(kept.encode()) <= limit
        assert int(note.group(1)) == len(body) - len(kept.encode())
        assert seen.truncated and seen.size == len(body)


def test_the_cap_keeps_the_tail(capture_stderr):
    with capture_stderr(limit=5) as seen:
        os.write(2, b"0123456789")
    assert seen.text == "[stderr truncated: the first 5 bytes were cut]\n56789"
    assert (seen.truncated, seen.size) == (True, 10)
    with capture_stderr(limit=10) as exact:
        os.write(2, b"0123456789")
    assert (exact.text, exact.truncated) == ("0123456789", False)
    with capture_stderr(limit=0) as nothing:
        os.write(2, b"abc")
    assert nothing.text == "[stderr truncated: the first 3 bytes were cut]\n"


def test_a_negative_limit_is_refused(capture_stderr):
    with pytest.raises(ValueError, match="limit"):
        capture_stderr(limit=-1)


def test_saved_descriptors_are_close_on_exec(capture_stderr, own_stderr):
    lister = (
        "import os\n"
        "for fd in range(256):\n"
        "    try: st = os.fstat(fd)\n"
        "    except OSError: continue\n"
        "    print(fd, st.st_dev, st.st_ino)\n"
    )
    with own_stderr():
        original = identity(2)
        with capture_stderr():
            mine = [fd for fd in range(1024) if _identity_or_none(fd) == original]
            inheritable = [fd for fd in mine if os.get_inheritable(fd)]
            child = subprocess.run([sys.executable, "-c", lister], close_fds=False, capture_output=True,
                                   text=True, timeout=60)
    assert mine, "the original stderr is saved somewhere while captured"
    assert min(mine) >= 3 and inheritable == []
    inherited = {tuple(map(int, line.split()[1:])) for line in child.stdout.splitlines()}
    assert inherited and original not in inherited


def _identity_or_none(fd: int) -> tuple[int, int] | None:
    try:
        return identity(fd)
    except OSError:
        return None


def test_an_invalid_fd2_is_captured_and_left_invalid(capture_stderr):
    saved = os.dup(2)
    try:
        os.close(2)
        with capture_stderr() as seen:
            os.write(2, b"into the void")
        assert seen.text == "into the void"
        with pytest.raises(OSError):
            os.fstat(2)
        with capture_stderr() as again:  # the temporary file did not land on fd 2 and get closed
            os.write(2, b"again")
        assert again.text == "again"
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def test_the_result_is_filled_when_the_block_raises(capture_stderr):
    with pytest.raises(KeyError):
        with capture_stderr(limit=3) as seen:
            os.write(2, b"abcdef")
            raise KeyError("x")
    assert seen.text.endswith("\ndef") and seen.truncated and seen.size == 6
