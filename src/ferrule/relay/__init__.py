"""The rust-analyzer relay: the TCG oracle protocol over one warm analyzer for one Rust project.

`ferrule.relay.session.Session` runs the ops; `ferrule.relay.errors` is the error taxonomy;
`ferrule.relay.paths` keeps every request inside the project root.
"""

from ferrule.relay.errors import (
    ORACLE_PROTOCOL,
    AnalyzerMissing,
    OpTimeout,
    OracleCrashed,
    ProtocolError,
    RelayError,
    WorkspaceUnloadable,
)

OPS = ("init", "update", "validate", "scope", "complete", "type", "shutdown")

__all__ = [
    "OPS",
    "ORACLE_PROTOCOL",
    "AnalyzerMissing",
    "OpTimeout",
    "OracleCrashed",
    "ProtocolError",
    "RelayError",
    "WorkspaceUnloadable",
]
