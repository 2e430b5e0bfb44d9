"""The policy layer: conform.toml, facts from a Rust parser, rules, the baseline ratchet, the gate.

    policy = Policy.load(root)                 # reads conform.toml once (ConfigError when bad)
    policy.enrich("src/lib.rs", text)          # {"facts", "conform_findings", "advice"}
    policy.is_test_path("tests/it.rs")         # True
    branded_newtypes(text)                     # [{"name", "line"}]: pub tuple structs, one private field
    in_test_code(text, line, column)           # True inside #[cfg(test)] / #[test] code
    ParsedFile().update(text)                  # (ferrule.conform.document) one file across edits:
                                               # incremental re-parse, facts per changed chunk

`ferrule check` (ferrule.conform.cli) runs the same rules over a whole project.
"""

from ferrule.conform.baseline import BaselineError
from ferrule.conform.config import Config, ConfigError
from ferrule.conform.facts import Branded, Fact, FileFacts, branded_newtypes, extract, in_test_code
from ferrule.conform.policy import Enrichment, Policy
from ferrule.conform.rules import RULES, Finding, FindingRecord

__all__ = ["Policy", "Config", "ConfigError", "BaselineError", "Branded", "Enrichment", "Fact", "FileFacts",
           "Finding", "FindingRecord", "RULES", "branded_newtypes", "extract", "in_test_code"]
