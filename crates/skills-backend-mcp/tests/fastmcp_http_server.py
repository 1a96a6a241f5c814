"""FastMCP's SkillsDirectoryProvider over streamable HTTP on 127.0.0.1.

Usage: fastmcp_http_server.py SKILLS_DIR PORT
"""

import sys

from fastmcp import FastMCP
from fastmcp.skills.provider import SkillsDirectoryProvider

server = FastMCP("fastmcp-skills")
server.add_provider(SkillsDirectoryProvider(sys.argv[1], reload=True))
server.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False)
