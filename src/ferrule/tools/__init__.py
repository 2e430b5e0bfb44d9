"""The Rust MCP server: the relay's operations and the policy gate mounted as MCP tools.

`descriptors` holds what an agent reads (names, descriptions, schemas), `reports` turns relay results
into reports, `relay_link` keeps the server's one lazily started relay session, `relay_tools` and
`gate_tool` are the tools, and `cli` is `ferrule mcp`.
"""
