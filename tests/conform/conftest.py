"""Fixtures for the policy layer: fixture crates live under tests/conform/crates/."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from testkit.conform import CRATES


@pytest.fixture
def crate(tmp_path: Path):
    """A writable copy of a fixture crate: `crate("name")` -> its root."""

    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(CRATES / name, target)
        return target

    return copy


@pytest.fixture
def project(tmp_path: Path):
    """An empty project root with Cargo.toml; `project.write(rel, text)` adds files."""

    class Project:
        root = tmp_path

        def write(self, rel: str, text: str) -> Path:
            path = tmp_path / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            return path

    (tmp_path / "Cargo.toml").write_text('[package]\nname = "p"\nversion = "0.1.0"\nedition = "2021"\n')
    return Project()
