"""What the relay and the policy gate share: the project root with its path sandbox, and the error
kinds with their recipes. It depends on nothing else of ferrule.
"""

from ferrule.project.errors import (
    KINDS,
    AnalyzerMissing,
    BadRequest,
    ErrorRecord,
    FerruleError,
    OpTimeout,
    OracleCrashed,
    WorkspaceUnloadable,
)
from ferrule.project.sandbox import ProjectFile, ProjectRoot
from ferrule.project.workspace import project_root

__all__ = [
    "KINDS",
    "AnalyzerMissing",
    "BadRequest",
    "ErrorRecord",
    "FerruleError",
    "OpTimeout",
    "OracleCrashed",
    "ProjectFile",
    "ProjectRoot",
    "WorkspaceUnloadable",
    "project_root",
]
