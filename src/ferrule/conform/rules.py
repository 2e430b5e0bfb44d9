"""The policy's rules: each turns a file's facts into findings, at the level conform.toml gives it.

A rule is skipped at level "off"; "warn" findings are reported but never fail the gate nor enter
the baseline. Each finding carries a `scope` and a `snippet` that, with the path and the rule, form
its baseline key: nothing in the key depends on line numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from ferrule.conform.config import Config, PathRoles
from ferrule.conform.facts import FileFacts

# Module-level items whose public form is a seam that needs an example. Constants and statics are
# data, not behaviour, and `use`/`mod`/`impl` carry no doc of their own to test.
SEAM_KINDS = frozenset({"fn", "struct", "enum", "union", "trait", "type", "macro_rules"})


@dataclass(frozen=True)
class Rule:
    id: str
    req: str        # the docs/GUIDE.md requirement the advice cites
    section: str    # that requirement's section in GUIDE.md
    fix: str


RULES: dict[str, Rule] = {r.id: r for r in (
    Rule("unwrap-outside-tests", "REQ-6.1", "§6 Errors are values",
         "return the failure to the caller with `?` or handle the None/Err case; if the panic is "
         "deliberate, put #[expect(clippy::unwrap_used, reason = \"...\")] (expect_used for .expect) "
         "on the item (REQ-6.2)"),
    Rule("seam-doctest", "REQ-3.1", "§3 Public seams carry runnable examples",
         "add an `# Examples` section with a Rust code block that uses the item (rustdoc runs it as a "
         "test), or narrow it to pub(crate) if it is not part of the crate's seam"),
    Rule("env-outside-roots", "REQ-4.1", "§4 The environment is read at the roots",
         "read the value once in an env root (main.rs, build.rs, src/bin/) and pass it in as a "
         "parameter or a config value; if this file is the configuration seam, add it to env_roots "
         "in conform.toml"),
    Rule("file-too-long", "REQ-2.1", "§2 Small files with one job",
         "split the file into modules with one job each; move tests out to tests/ or a tests.rs module"),
)}


class FindingRecord(TypedDict):
    """A finding on the wire: validate's `conform_findings`, the gate's JSON."""

    rule: str
    message: str
    line: int
    baselined: bool


@dataclass(frozen=True)
class Finding:
    rule: str
    level: str       # "deny" or "warn"
    line: int
    message: str
    scope: str       # enclosing item path; part of the baseline key
    snippet: str     # what the finding is about, as written; part of the baseline key

    def to_json(self, baselined: bool) -> FindingRecord:
        return {"rule": self.rule, "message": self.message, "line": self.line, "baselined": baselined}


def check(facts: FileFacts, rel_path: str, config: Config, roles: PathRoles) -> list[Finding]:
    """Every finding for one file, in line order."""
    found: list[Finding] = []
    is_test_path = rel_path in roles.tests
    level = config.level("unwrap-outside-tests")
    if level != "off" and not is_test_path:
        for u in facts.unwraps:
            if u["test"] or u["allowed"]:
                continue
            if u["form"] == "path" or not u["receiver"]:
                what = f"`{u['text']}`"
            else:
                what = f"`.{u['method']}()` on `{u['receiver']}`"
            found.append(Finding("unwrap-outside-tests", level, u["line"],
                                 f"{what} can panic outside tests", u["scope"], u["text"]))
    level = config.level("seam-doctest")
    if level != "off" and not is_test_path and rel_path in roles.seams:
        for item in facts.items:
            if item["public"] and item["kind"] in SEAM_KINDS and item["parent"] in (None, "mod") \
                    and not (item["doctest"] or item["test"] or item["hidden"]):
                found.append(Finding("seam-doctest", level, item["line"],
                                     f"pub {item['kind']} `{item['name']}` of a seam file has no doctest",
                                     item["scope"], f"{item['kind']} {item['name']}"))
    level = config.level("env-outside-roots")
    if level != "off" and not is_test_path and rel_path not in roles.env_roots:
        for env in facts.env_reads:
            if not env["test"]:
                found.append(Finding("env-outside-roots", level, env["line"],
                                     f"`{env['text']}` reads ambient process state ({env['function']}) "
                                     "outside env_roots", env["scope"], env["text"]))
    level = config.level("file-too-long")
    if level != "off" and facts.lines > config.max_file_lines:
        found.append(Finding("file-too-long", level, 1,
                             f"{facts.lines} lines, over max_file_lines = {config.max_file_lines}", "", ""))
    found.sort(key=lambda f: f.line)
    return found
