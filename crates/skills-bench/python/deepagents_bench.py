"""deepagents' own skills discovery and prompt rendering on a generated library.

Usage: deepagents_bench.py ROOT RUNS
  ROOT  a library from `skills-bench generate` (sources base/, team/, project/)
  RUNS  in-process repetitions; 0 = one discovery and exit (for whole-process timing)

Discovery is `SkillsMiddleware.before_agent` over a `FilesystemBackend` (virtual mode),
exactly what deepagents runs before an agent's first turn; rendering is the body of its
`modify_request` (locations, skills list, load warnings, template). Prints one JSON line.
"""

import json
import sys
import time

started = time.perf_counter()
from deepagents.backends import FilesystemBackend  # noqa: E402
from deepagents.middleware.skills import SkillsMiddleware  # noqa: E402

imported = time.perf_counter()

SOURCES = ["/base/", "/team/", "/project/"]


def discover(middleware):
    return middleware.before_agent({}, None, {})


def render(middleware, update):
    return middleware.system_prompt_template.format(
        skills_locations=middleware._format_skills_locations(),
        skills_load_warnings=middleware._format_skills_load_warnings(update["skills_load_errors"]),
        skills_list=middleware._format_skills_list(update["skills_metadata"]),
    )


def main(root, runs):
    backend = FilesystemBackend(root_dir=root, virtual_mode=True)
    middleware = SkillsMiddleware(backend=backend, sources=SOURCES)
    report = {"import_s": imported - started}
    if runs == 0:
        update = discover(middleware)
        report["skills"] = len(update["skills_metadata"])
        report["errors"] = len(update["skills_load_errors"])
        print(json.dumps(report))
        return
    discovery, rendering = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        update = discover(middleware)
        t1 = time.perf_counter()
        section = render(middleware, update)
        t2 = time.perf_counter()
        discovery.append(t1 - t0)
        rendering.append(t2 - t1)
    report.update(
        skills=len(update["skills_metadata"]),
        errors=len(update["skills_load_errors"]),
        section_chars=len(section),
        discovery_s=discovery,
        render_s=rendering,
    )
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
