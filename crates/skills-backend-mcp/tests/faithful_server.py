"""A small MCP server on stdio that publishes a folder's skills faithfully (SEP-2640):
every folder holding a SKILL.md is a skill at its relative path, with every file in it
(except those of a skill folder inside it), each with its real size and digest.

Usage: faithful_server.py DIR
"""

import base64
import hashlib
import os
import sys

from stdio_jsonrpc import serve

ROOT = os.path.abspath(sys.argv[1])


def skill_folders():
    folders = []
    for here, dirs, files in os.walk(ROOT):
        dirs.sort()
        if "SKILL.md" in files:
            folders.append(os.path.relpath(here, ROOT))
    return folders


def files_of(folder, folders):
    base = os.path.join(ROOT, folder)
    found = []
    for here, dirs, files in os.walk(base):
        rel_here = os.path.relpath(here, ROOT)
        if rel_here != folder and rel_here in folders:
            dirs[:] = []
            continue
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(here, name)
            found.append(os.path.relpath(path, base))
    return sorted(found)


def uri(folder, rel):
    return f"skill://{folder}/{rel}"


def listing():
    folders = skill_folders()
    skills = []
    for folder in folders:
        resources = []
        for rel in files_of(folder, folders):
            with open(os.path.join(ROOT, folder, rel), "rb") as handle:
                data = handle.read()
            digest = "sha256:" + hashlib.sha256(data).hexdigest()
            resources.append({"uri": uri(folder, rel), "digest": digest, "size": len(data)})
        name = os.path.basename(folder)
        skills.append({
            "uri": uri(folder, "SKILL.md"),
            "frontmatter": {"name": name, "description": name},
            "resources": resources,
        })
    return {"skills": skills}


def read(resource):
    rest = resource[len("skill://"):]
    path = os.path.normpath(os.path.join(ROOT, rest))
    if not path.startswith(ROOT + os.sep):
        return None
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        return {"contents": [{"uri": resource, "text": data.decode("utf-8")}]}
    except UnicodeDecodeError:
        return {"contents": [{"uri": resource, "blob": base64.b64encode(data).decode()}]}


def answer(message):
    method = message.get("method")
    params = message.get("params") or {}
    if method == "initialize":
        return {
            "protocolVersion": "2025-11-25",
            "capabilities": {"resources": {}, "extensions": {"io.modelcontextprotocol/skills": {}}},
            "serverInfo": {"name": "faithful", "version": "0"},
        }
    if method == "skills/list":
        return listing()
    if method == "resources/read":
        return read(params["uri"])
    if method == "ping":
        return {}
    return None



serve(answer)
