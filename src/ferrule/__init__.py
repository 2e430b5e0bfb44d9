"""ferrule: a fast MCP stdio transport and a rust-analyzer relay for AI coding agents."""

__version__ = "0.1.0"
