"""A small MCP server on stdio that publishes skills (SEP-2640) and lies, for tests.

Usage: hostile_server.py MODE [LOG]

Modes:
  wrong-digest  `liar` is served with bytes that do not match its manifest; `honest` is right
  escape        file URIs outside their skill, a skill URI with `..`
  endless       skills/list always has a next page
  huge          a file whose manifest size is over any limit (never to be read)
  slow          resources/read never answers in time
  dies          exits after answering skills/list once
  dynamic       `honest` and a skill whose resources are "dynamic"
  twins         two skills named `deploy`, at skill://a/deploy and skill://b/deploy
  ttl           `honest`, the list fresh for a minute (ttlMs); each skills/list logged
  huge-page     a skills/list answer of 20 MiB on one line

Every resources/read is appended to LOG (one URI per line) when given.
"""

import hashlib
import sys
import time

from stdio_jsonrpc import serve

MODE = sys.argv[1]
LOG = sys.argv[2] if len(sys.argv) > 2 else None


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def md(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n"


FILES = {
    "skill://honest/SKILL.md": md("honest", "Tells the truth"),
    "skill://liar/SKILL.md": md("liar", "Lies about its bytes"),
    "skill://escape/SKILL.md": md("escape", "Points outside itself"),
    "skill://big/SKILL.md": md("big", "Has a huge file"),
    "skill://big/assets/huge.bin": "x",
    "skill://live/SKILL.md": md("live", "Generated on request"),
    "skill://live/templates/report.md": "# Report\n",
}

# What resources/directory/read answers in the dynamic mode.
DIRECTORIES = {
    "skill://live/": [("skill://live/SKILL.md", False), ("skill://live/templates/", True), ("skill://honest/SKILL.md", False)],
    "skill://live/templates/": [("skill://live/templates/report.md", False)],
}


def entry(uri: str, text: str, size=None, dig=None) -> dict:
    return {"uri": uri, "digest": dig or digest(text), "size": len(text.encode()) if size is None else size}


def skill(name: str, files: list) -> dict:
    return {
        "uri": f"skill://{name}/SKILL.md",
        "frontmatter": {"name": name, "description": name},
        "resources": files,
    }


def listing(cursor):
    honest = skill("honest", [entry("skill://honest/SKILL.md", FILES["skill://honest/SKILL.md"])])
    if MODE == "wrong-digest":
        liar_md = FILES["skill://liar/SKILL.md"]
        liar = skill("liar", [entry("skill://liar/SKILL.md", liar_md, dig=digest(liar_md + "tampered"))])
        return {"skills": [honest, liar]}
    if MODE == "escape":
        files = [
            entry("skill://escape/SKILL.md", FILES["skill://escape/SKILL.md"]),
            entry("skill://honest/stolen.txt", "x"),
            entry("skill://escape/../honest/SKILL.md", "x"),
        ]
        up = {"uri": "skill://../up/SKILL.md", "frontmatter": {"name": "up", "description": "up"}, "resources": []}
        return {"skills": [honest, skill("escape", files), up]}
    if MODE == "endless":
        n = int(cursor or "0")
        page = [skill(f"s{n}", [entry(f"skill://s{n}/SKILL.md", md(f"s{n}", "one of many"))])]
        return {"skills": page, "nextCursor": str(n + 1)}
    if MODE == "huge-page":
        padding = "x" * (20 * 1024 * 1024)
        return {"skills": [honest], "_meta": {"padding": padding}}
    if MODE == "ttl":
        if LOG:
            with open(LOG, "a") as log:
                log.write("skills/list\n")
        return {"skills": [honest], "ttlMs": 60000}
    if MODE == "twins":
        return {"skills": [
            {"uri": f"skill://{g}/deploy/SKILL.md", "frontmatter": {"name": "deploy", "description": g},
             "resources": [entry(f"skill://{g}/deploy/SKILL.md", text_of(f"skill://{g}/deploy/SKILL.md"))]}
            for g in ("a", "b")
        ]}
    if MODE == "dynamic":
        live = {"uri": "skill://live/SKILL.md", "frontmatter": {"name": "live", "description": "live"}, "resources": "dynamic"}
        return {"skills": [honest, live]}
    if MODE == "huge":
        files = [
            entry("skill://big/SKILL.md", FILES["skill://big/SKILL.md"]),
            entry("skill://big/assets/huge.bin", "x", size=15 * 1024 * 1024),
        ]
        return {"skills": [honest, skill("big", files)]}
    return {"skills": [honest]}


def text_of(uri: str) -> str:
    if uri.endswith("/deploy/SKILL.md"):
        group = uri[len("skill://"):].split("/")[0]
        return md("deploy", f"Deploy, the {group} way")
    if uri.startswith("skill://s") and uri.endswith("/SKILL.md"):
        name = uri[len("skill://"):-len("/SKILL.md")]
        return md(name, "one of many")
    return FILES.get(uri, "")


def answer(message: dict):
    method = message.get("method")
    params = message.get("params") or {}
    if method == "initialize":
        return {
            "protocolVersion": "2025-11-25",
            "capabilities": {
                "resources": {"listChanged": True},
                "extensions": {"io.modelcontextprotocol/skills": {"directoryRead": MODE == "dynamic"}},
            },
            "serverInfo": {"name": "hostile", "version": "0"},
        }
    if method == "skills/list":
        return listing(params.get("cursor"))
    if method == "resources/read":
        uri = params["uri"]
        if LOG:
            with open(LOG, "a") as log:
                log.write(uri + "\n")
        if MODE == "slow":
            time.sleep(30)
        return {"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text_of(uri)}]}
    if method == "resources/directory/read" and MODE == "dynamic":
        children = DIRECTORIES.get(params["uri"], [])
        resources = []
        for child, is_dir in children:
            entry = {"uri": child, "name": child.rstrip("/").rsplit("/", 1)[-1]}
            if is_dir:
                entry["mimeType"] = "inode/directory"
            else:
                entry["size"] = len(text_of(child).encode())
            resources.append(entry)
        return {"resources": resources}
    if method == "ping":
        return {}
    return None




def after(message):
    if MODE == "dies" and message.get("method") == "skills/list":
        sys.exit(0)


serve(answer, after)
