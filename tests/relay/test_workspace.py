"""A Cargo workspace (two members and a proc-macro crate, path dependencies between them): every command
picks the workspace root for a member's file, so all apply the workspace's policy, and a file's `cell`
and `seam_file` come from its own package. Where the analyzer is blind in it (code `#[cfg]` switches
off, a file no crate includes), the answer says so."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from ferrule.relay.sync import SyncSession
from ferrule.tools.reports import render_validate
from testkit.live import copy_crate, live_session, position_of

pytestmark = pytest.mark.live
LIB = "shapes/src/lib.rs"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, analyzer) -> Path:
    return copy_crate("workspace", tmp_path_factory.mktemp("workspace"))


@pytest.fixture(scope="module")
def session(workspace, private_cache) -> Iterator[SyncSession]:
    with live_session(workspace, quiet_policy=True) as live:
        yield live


def ferrule(*args: str, cwd: Path) -> dict:
    """A one-shot command run as a user runs it, from `cwd`; its JSON answer."""
    done = subprocess.run([sys.executable, "-m", "ferrule", *args], cwd=cwd, capture_output=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, check=False)
    assert done.returncode in (0, 1), done.stderr.decode()
    return orjson.loads(done.stdout)


def findings(records: list[dict]) -> set[tuple[str, int]]:
    return {(record["rule"], record["line"]) for record in records}


@pytest.mark.parametrize(("rel", "cell", "seam_file"), [
    ("shapes/src/area.rs", "crate::area", LIB),
    (LIB, "crate", LIB),
    ("app/src/main.rs", "crate", "app/src/main.rs"),
])
def test_scope_places_a_file_in_its_own_package(session, rel, cell, seam_file):
    result = session.call("scope", {"file": rel, "max": 5})
    assert (result["cell"], result["seam_file"]) == (cell, seam_file)


def test_a_member_is_judged_by_the_workspace_policy_whichever_command_asks(session, workspace):
    served = session.call("validate", {"file": LIB})
    assert ("file-too-long", 1) in findings(served["conform_findings"])  # only the workspace's conform.toml says 25
    member = workspace / "shapes"
    one_shot = ferrule("validate", "src/lib.rs", "--no-compile", "--json", "--quiet", cwd=member)
    assert findings(one_shot["conform_findings"]) == findings(served["conform_findings"])
    gate = ferrule("check", "--format", "json", cwd=member)
    assert gate["root"] == str(workspace)
    assert {(f["rule"], f["line"]) for f in gate["findings"] if f["path"] == LIB} == findings(served["conform_findings"])


def test_the_one_shot_scope_from_a_member_folder_agrees(session, workspace):
    one_shot = ferrule("scope", "src/area.rs", "--json", "--quiet", cwd=workspace / "shapes")
    served = session.call("scope", {"file": "shapes/src/area.rs"})
    assert (one_shot["cell"], one_shot["seam_file"]) == (served["cell"], served["seam_file"]) == ("crate::area", LIB)


def test_a_path_dependency_is_seen_across_members(session, workspace):
    text = (workspace / "app/src/main.rs").read_text(encoding="utf-8")
    result = session.call("type", {"file": "app/src/main.rs", "position": position_of(text, "label(&origin)")})
    assert "fn label(point: &Point) -> &'static str" in result["display"]
    assert "warnings" not in result


@pytest.mark.parametrize(("symbol", "line"), [
    ("shapes::Point", 14), ("shapes::area::area", 5), ("area::area", 5), ("shapes::Point::x", 15)])
def test_a_members_item_is_found_by_the_path_code_names_it_with(session, symbol, line):
    """`use shapes::area::area;` in the app: the member's crate name leads the path, its modules from
    the member's own `src/`, not the workspace root's."""
    [found] = session.call("definition", {"symbol": symbol})["locations"]
    assert (found["file"].split("/")[0], found["line"]) == ("shapes", line), found


def test_type_inside_code_cfg_switches_off_says_why(session, workspace):
    text = (workspace / LIB).read_text(encoding="utf-8")
    result = session.call("type", {"file": LIB, "position": position_of(text, "dx.abs()")})
    assert result["display"] == ""
    # an analyzer older than the toolchain adds its proc-macro warning: the project's, not this spot's
    (warning,) = [w for w in result["warnings"] if w["kind"] != "proc-macros-unexpanded"]
    assert warning["kind"] == "inactive-code" and result["degraded"] is True
    assert 'inactive: feature = "full" is disabled' in warning["message"]
    assert "--features full" in warning["recipe"]


def test_a_file_no_crate_includes_says_so(session, workspace):
    text = (workspace / "shapes/src/orphan.rs").read_text(encoding="utf-8")
    typed = session.call("type", {"file": "shapes/src/orphan.rs", "position": position_of(text, "forgotten")})
    validated = session.call("validate", {"file": "shapes/src/orphan.rs"})
    for result in (typed, validated):
        (warning,) = result["warnings"]
        assert warning["kind"] == "unlinked-file" and result["degraded"] is True
        assert "not part of any crate" in warning["message"] and "mod orphan;" in warning["recipe"]
    headline = next(line for line in render_validate(validated, {"file": "shapes/src/orphan.rs"}).splitlines()
                    if line.startswith("shapes/src/orphan.rs: "))
    assert headline.startswith("shapes/src/orphan.rs: unchecked: no crate includes this file"), headline


def test_an_active_file_carries_no_warning(session):
    result = session.call("validate", {"file": "shapes/src/area.rs"})
    assert "warnings" not in result and result["degraded"] is False
