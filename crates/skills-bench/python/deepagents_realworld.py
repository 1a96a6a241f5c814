"""deepagents' skills discovery on one real skill source, for `cargo xtask realworld`.

Usage: deepagents_realworld.py DIR [DEPTH]
  DIR    a folder of skill folders (each holding a SKILL.md), as `skills --source DIR` reads it
  DEPTH  how many levels down skill folders lie at most (default 1)

Runs `SkillsMiddleware.before_agent` over a `FilesystemBackend` rooted at DIR (virtual
mode), exactly what deepagents does before an agent's first turn, and prints one JSON
line: the skills it loaded, the load errors it recorded and the seconds it took.
deepagents reads one level below each source: for DEPTH > 1 every folder that holds skill
folders is a source of its own (found with the rules `skills --depth` uses: not below a
hidden folder or `node_modules`, not below another skill folder).
"""

import json
import os
import sys
import time

from deepagents.backends import FilesystemBackend
from deepagents.middleware.skills import SkillsMiddleware


def skill_parents(root, depth):
    """Virtual paths of the folders holding skill folders, up to `depth` levels down."""
    parents = set()

    def visit(folder, virtual, level):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            return
        for name in names:
            path = os.path.join(folder, name)
            if not os.path.isdir(path):
                continue
            if os.path.isfile(os.path.join(path, "SKILL.md")):
                parents.add(virtual or "/")
            elif level < depth and not name.startswith(".") and name != "node_modules":
                visit(path, f"{virtual}/{name}", level + 1)

    visit(root, "", 1)
    return sorted(parents)


def main(root, depth):
    sources = ["/"] if depth == 1 else skill_parents(root, depth)
    started = time.perf_counter()
    backend = FilesystemBackend(root_dir=root, virtual_mode=True)
    middleware = SkillsMiddleware(backend=backend, sources=sources)
    update = middleware.before_agent({}, None, {}) or {}
    seconds = time.perf_counter() - started
    skills = update.get("skills_metadata") or []
    errors = update.get("skills_load_errors") or []
    print(json.dumps({"loaded": len(skills), "errors": len(errors), "sources": len(sources), "seconds": seconds}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1)
