"""A file's cell and seam come from its own package, as `cargo metadata` describes the workspace (real
cargo, offline); without cargo's answer, from the nearest manifest and cargo's layout conventions."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from ferrule.project import ProjectRoot
from ferrule.relay.packages import Packages, Placement

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def workspace(tmp_path) -> Path:
    return Path(shutil.copytree(FIXTURES / "workspace", tmp_path / "workspace"))


def move_library(workspace: Path) -> None:
    """The `shapes` library moved to `lib/shapes.rs`, which only its manifest's `[lib] path` says."""
    (workspace / "shapes" / "lib").mkdir()
    os.replace(workspace / "shapes" / "src" / "lib.rs", workspace / "shapes" / "lib" / "shapes.rs")
    os.replace(workspace / "shapes" / "src" / "area.rs", workspace / "shapes" / "lib" / "area.rs")
    with open(workspace / "shapes" / "Cargo.toml", "a", encoding="utf-8") as manifest:
        manifest.write('\n[lib]\npath = "lib/shapes.rs"\n')


def placed(packages: Packages, rel: str) -> Placement:
    return asyncio.run(packages.placement(rel))


@pytest.mark.parametrize(("rel", "cell", "crate_root"), [
    ("shapes/src/lib.rs", "crate", "shapes/src/lib.rs"),
    ("shapes/src/area.rs", "crate::area", "shapes/src/lib.rs"),
    ("app/src/main.rs", "crate", "app/src/main.rs"),
    ("shapes_derive/src/lib.rs", "crate", "shapes_derive/src/lib.rs"),
])
def test_a_member_file_is_placed_in_its_own_package(workspace, rel, cell, crate_root):
    placement = placed(Packages(ProjectRoot(workspace)), rel)
    assert placement.cell == cell
    assert placement.seams[-1] == crate_root  # the crate root is the outermost seam


def test_a_target_set_in_the_manifest_is_its_crate_root(workspace):
    move_library(workspace)
    placement = placed(Packages(ProjectRoot(workspace)), "shapes/lib/area.rs")
    assert placement == Placement("crate::area", ("shapes/lib/shapes.rs",))


def test_a_changed_manifest_is_read_again(workspace):
    packages = Packages(ProjectRoot(workspace))
    assert placed(packages, "shapes/src/area.rs").seams == ("shapes/src/lib.rs",)
    manifest = workspace / "shapes" / "Cargo.toml"
    with open(manifest, "a", encoding="utf-8") as out:
        out.write('\n[lib]\npath = "src/area.rs"\n')
    stat = os.stat(manifest)  # a later mtime even on a file system of coarse timestamps
    os.utime(manifest, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert placed(packages, "shapes/src/area.rs") == Placement("crate", ("shapes/src/area.rs",))


def test_outside_every_package_there_is_no_cell(workspace):
    (workspace / "notes").mkdir()
    (workspace / "notes" / "sketch.rs").write_text("fn main() {}\n", encoding="utf-8")
    assert placed(Packages(ProjectRoot(workspace)), "notes/sketch.rs") == Placement(None, ())


def test_without_cargo_the_nearest_manifest_and_the_conventions_stand_in(workspace, monkeypatch):
    monkeypatch.setenv("PATH", "")  # no cargo to ask
    placement = placed(Packages(ProjectRoot(workspace)), "shapes/src/area.rs")
    assert placement.cell == "crate::area"
    assert "shapes/src/lib.rs" in placement.seams and all(seam.startswith("shapes/") for seam in placement.seams)


def test_a_member_added_under_a_glob_is_found(tmp_path):
    (tmp_path / "Cargo.toml").write_text('[workspace]\nmembers = ["crates/*"]\nresolver = "2"\n', encoding="utf-8")

    def member(name: str) -> None:
        (tmp_path / "crates" / name / "src").mkdir(parents=True)
        (tmp_path / "crates" / name / "Cargo.toml").write_text(
            f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n', encoding="utf-8")
        (tmp_path / "crates" / name / "src" / "lib.rs").write_text("pub mod a;\n", encoding="utf-8")
        (tmp_path / "crates" / name / "src" / "a.rs").write_text("", encoding="utf-8")

    member("first")
    packages = Packages(ProjectRoot(tmp_path))
    assert placed(packages, "crates/first/src/a.rs").cell == "crate::a"
    member("second")  # the root manifest is unchanged: its glob takes the new folder in
    assert placed(packages, "crates/second/src/a.rs") == Placement("crate::a", ("crates/second/src/lib.rs",))


def test_a_cargo_that_did_not_answer_in_time_is_asked_again(workspace):
    move_library(workspace)
    packages = Packages(ProjectRoot(workspace))
    hurried = asyncio.run(packages.placement("shapes/lib/area.rs", timeout=0.001))  # no cargo answers in 1 ms
    assert hurried == Placement(None, ())  # the conventions know no `lib/` folder
    assert placed(packages, "shapes/lib/area.rs") == Placement("crate::area", ("shapes/lib/shapes.rs",))
