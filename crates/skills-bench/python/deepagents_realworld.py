"""deepagents' skills discovery on one real skill source, for `cargo xtask realworld`.

Usage: deepagents_realworld.py DIR
  DIR  a folder of skill folders (each holding a SKILL.md), as `skills --source DIR` reads it

Runs `SkillsMiddleware.before_agent` over a `FilesystemBackend` rooted at DIR (virtual
mode, source `/`), exactly what deepagents does before an agent's first turn, and prints
one JSON line: the skills it loaded and the load errors it recorded.
"""

import json
import sys

from deepagents.backends import FilesystemBackend
from deepagents.middleware.skills import SkillsMiddleware


def main(root):
    backend = FilesystemBackend(root_dir=root, virtual_mode=True)
    middleware = SkillsMiddleware(backend=backend, sources=["/"])
    update = middleware.before_agent({}, None, {}) or {}
    skills = update.get("skills_metadata") or []
    errors = update.get("skills_load_errors") or []
    print(json.dumps({"loaded": len(skills), "errors": len(errors)}))


if __name__ == "__main__":
    main(sys.argv[1])
