"""The relay's project folders in the user's cache: stamped on use, removed once unused for long
(they hold a copy of the project and two cargo target directories), never while a process holds one."""

from __future__ import annotations

import fcntl
import os
import time

import pytest

from ferrule.project import ProjectRoot
from ferrule.relay import cache


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "ferrule" / "projects"


def _folder(home, name, *, used_days_ago, stamp=True):
    folder = home / name
    (folder / "mirror" / "target").mkdir(parents=True)
    (folder / "mirror" / "target" / "big.rlib").write_bytes(b"x" * 1024)
    when = time.time() - used_days_ago * 24 * 3600
    if stamp:
        (folder / cache.USED).touch()
        os.utime(folder / cache.USED, (when, when))
    os.utime(folder, (when, when))
    return folder


def test_mark_used_makes_and_stamps_the_projects_folder(tmp_path, home):
    project = tmp_path / "crate"
    project.mkdir()
    folder = cache.mark_used(ProjectRoot(project))
    assert folder == cache.project_home(ProjectRoot(project)) and folder.parent == home
    assert time.time() - (folder / cache.USED).stat().st_mtime < 60


def test_folders_unused_for_a_month_are_removed_and_the_rest_kept(home):
    stale = _folder(home, "old-1", used_days_ago=31)
    unstamped = _folder(home, "older-2", used_days_ago=40, stamp=False)  # made before stamps: its mtime
    recent = _folder(home, "new-3", used_days_ago=29)
    assert sorted(cache.prune_stale()) == sorted([stale, unstamped])
    assert not stale.exists() and not unstamped.exists() and recent.exists()


def test_a_folder_whose_lock_a_process_holds_is_kept_however_old(home):
    busy = _folder(home, "busy-1", used_days_ago=90)
    fd = os.open(busy / cache.LOCK, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another open file: flock refuses the pruner as it would a process
        assert cache.prune_stale() == [] and busy.exists()
    finally:
        os.close(fd)
    assert cache.prune_stale() == [busy] and not busy.exists()


def test_only_folders_are_pruned_and_links_are_not_followed(tmp_path, home):
    home.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    os.symlink(outside, home / "link-1")
    (home / "stray.txt").write_text("x")
    for path in (outside, home / "stray.txt"):
        os.utime(path, (0, 0))
    assert cache.prune_stale() == []
    assert (outside / "keep.txt").read_text() == "mine" and (home / "stray.txt").exists()


def test_no_cache_yet_is_nothing_to_prune(home):
    assert cache.prune_stale() == []
