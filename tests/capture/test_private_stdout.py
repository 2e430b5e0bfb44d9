"""private_stdout: fd 1 kept for protocol frames; run in a child, since it changes fd 1 for good."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = r"""
import os, subprocess, sys
from ferrule.capture import capture_stderr, private_stdout

print("printed before", flush=True)
fd = private_stdout()
assert fd >= 3 and not os.get_inheritable(fd), fd
assert private_stdout() == fd  # idempotent
print("stray print")
sys.stdout.flush()
subprocess.run([sys.executable, "-c", "print('child stdout')"], check=True)
os.write(fd, b"frame 1\n")
with capture_stderr() as seen:  # fd 1 now belongs to stderr, so a capture sees it too
    print("print inside a capture", flush=True)
    subprocess.run([sys.executable, "-c", "print('child inside a capture')"], check=True)
os.write(fd, b"frame 2\n")
print("after the capture", flush=True)
os.write(fd, ("captured: " + repr(seen.text) + "\n").encode())
"""


def test_prints_and_children_go_to_stderr_and_frames_to_the_original_stdout():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "printed before",
        "frame 1",
        "frame 2",
        "captured: 'print inside a capture\\nchild inside a capture\\n'",
    ]
    assert done.stderr.splitlines() == ["stray print", "child stdout", "after the capture"]


def test_private_stdout_under_the_python_twin():
    env_script = "import os; os.environ['FERRULE_NO_EXTENSIONS'] = '1'\n" + SCRIPT
    done = subprocess.run([sys.executable, "-c", env_script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "captured: 'print inside a capture\\nchild inside a capture\\n'"
