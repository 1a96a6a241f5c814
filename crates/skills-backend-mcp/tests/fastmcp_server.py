"""A skills server nobody here wrote: FastMCP's SkillsDirectoryProvider serving a folder
over stdio (the Python package `fastmcp`, installed by `cargo xtask test-tools`).

Usage: fastmcp_server.py SKILLS_DIR
"""

import sys

from fastmcp import FastMCP
from fastmcp.skills.provider import SkillsDirectoryProvider

server = FastMCP("fastmcp-skills")
server.add_provider(SkillsDirectoryProvider(sys.argv[1], reload=True))
server.run(show_banner=False)
