"""The rust-analyzer relay: the oracle protocol (docs/PROTOCOL.md) over one warm analyzer for one Rust
project.

`ferrule.relay.ops` is the one table of operations; `ferrule.relay.session.Session` runs them over the
analyzer (`analyzer`) and the documents it sees (`documents`); `envelope` and `serve` are the NDJSON
wire. The error kinds and the path sandbox live below, in `ferrule.project`.
"""

from ferrule.relay.envelope import ORACLE_PROTOCOL
from ferrule.relay.ops import OP_NAMES

__all__ = ["OP_NAMES", "ORACLE_PROTOCOL"]
