"""Drives `skills serve` with the `mcp` Python SDK's client and prints what it saw as JSON.

Usage: client.py MODE LIBRARY SERVER...
  MODE     legacy (initialize handshake, spontaneous notifications) or
           modern (server/discover, notifications through subscriptions/listen)
  LIBRARY  the skills folder the server reads; a skill named `gamma` is added to it
           mid-session to provoke a list-changed notification
  SERVER   an http://.../mcp URL, or the command line that starts the server on stdio

The Rust test (tests/mcp.rs) makes every assertion; this script only reports, so a
failure shows the whole transcript.
"""

import asyncio
import json
import os
import shutil
import sys
import tempfile
from typing import Any, Literal

from mcp import Client, types
from mcp.client.stdio import StdioServerParameters
from pydantic import TypeAdapter

NOTIFICATION_TIMEOUT = 30.0
ADDED = "gamma"


class ListSkillsRequest(types.PaginatedRequest[Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"


class GetSkillParams(types.RequestParams):
    uri: str


class GetSkillRequest(types.Request[GetSkillParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: GetSkillParams


class DirectoryReadParams(types.RequestParams):
    uri: str


class DirectoryReadRequest(types.Request[DirectoryReadParams, Literal["resources/directory/read"]]):
    method: Literal["resources/directory/read"] = "resources/directory/read"
    params: DirectoryReadParams


class ListPromptsRawRequest(types.PaginatedRequest[Literal["prompts/list"]]):
    method: Literal["prompts/list"] = "prompts/list"


RAW = TypeAdapter(dict[str, Any])


def tool_result(result: Any) -> dict[str, Any]:
    blocks = []
    for block in result.content:
        blocks.append(block.model_dump(mode="json", by_alias=True, exclude_none=True))
    return {"is_error": bool(result.is_error), "content": blocks, "structured": result.structured_content}


async def error_of(call) -> dict[str, Any]:
    try:
        value = await call
    except Exception as error:  # the SDK raises MCPError for JSON-RPC errors
        detail = getattr(error, "error", None)
        code = getattr(detail, "code", None)
        data = getattr(detail, "data", None)
        return {"raised": True, "code": code, "message": str(error), "data": data}
    return {"raised": False, "value": str(value)}


def add_skill(library: str, name: str) -> None:
    """Writes a whole skill folder next to the library, then renames it in."""
    staging = tempfile.mkdtemp(dir=os.path.dirname(library.rstrip("/")))
    folder = os.path.join(staging, name)
    os.mkdir(folder)
    with open(os.path.join(folder, "SKILL.md"), "w") as f:
        f.write(f"---\nname: {name}\ndescription: Added while a client was connected.\n---\n# {name}\n")
    os.rename(folder, os.path.join(library, name))
    shutil.rmtree(staging)


async def change_after_adding(
    client: Any, library: str, legacy: bool, notified: asyncio.Event, report: dict[str, Any], key: str, **listen: bool
) -> bool:
    """Adds a skill and waits for the change notification: spontaneous on a legacy
    session (`notified` is set by the message handler), through a subscription on a
    2026 session (the event's type goes to `report[key]`)."""
    if legacy:
        add_skill(library, ADDED)
        try:
            await asyncio.wait_for(notified.wait(), NOTIFICATION_TIMEOUT)
            return True
        except TimeoutError:
            return False
    async with client.listen(**listen) as subscription:
        report["listen_honored"] = str(subscription.honored)
        add_skill(library, ADDED)
        try:
            async with asyncio.timeout(NOTIFICATION_TIMEOUT):
                async for event in subscription:
                    report[key] = type(event).__name__
                    return True
        except TimeoutError:
            return False
    return False


async def main(mode: str, library: str, server: list[str]) -> None:
    report: dict[str, Any] = {"mode": mode}
    changed = asyncio.Event()
    prompts_changed = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceListChangedNotification):
            changed.set()
        if isinstance(message, types.PromptListChangedNotification):
            prompts_changed.set()

    if server[0].startswith("http://"):
        target: Any = server[0]
    else:
        target = StdioServerParameters(command=server[0], args=server[1:])
    client_mode = "legacy" if mode == "legacy" or mode.endswith("-legacy") else "auto"
    async with Client(target, mode=client_mode, message_handler=on_message, cache=None) as client:
        report["protocol"] = client.protocol_version
        if mode == "pages":
            # Every page of skills/list, following the cursor.
            session = client.session

            async def all_pages(request: Any, key: str, field: str) -> tuple[int, list[str]]:
                items, pages, cursor = [], 0, None
                while True:
                    params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                    page = await session.send_request(request(params=params), RAW)
                    pages += 1
                    items += [item[field] for item in page[key]]
                    cursor = page.get("nextCursor")
                    if not cursor or pages > 100:
                        return pages, items

            report["pages"], report["uris"] = await all_pages(ListSkillsRequest, "skills", "uri")
            # Every page of prompts/list the same way.
            report["prompt_pages"], report["prompts"] = await all_pages(ListPromptsRawRequest, "prompts", "name")
            print(json.dumps(report))
            return
        if mode == "budget":
            # A library too large for its list: the budgeted list, and search.
            report["instructions"] = client.instructions
            report["list_skills"] = tool_result(await client.call_tool("list_skills", {}))
            report["search_skills"] = tool_result(
                await client.call_tool("search_skills", {"query": "make an invoice with taxes", "limit": 3})
            )
            listing = await client.session.send_request(ListSkillsRequest(), RAW)
            report["skills_list_count"] = len(listing["skills"])
            print(json.dumps(report))
            return
        if mode == "extensions":
            # Skills for people only and arguments, as a model-facing client sees them.
            report["instructions"] = client.instructions
            report["list_skills"] = tool_result(await client.call_tool("list_skills", {}))
            report["search_manual"] = tool_result(await client.call_tool("search_skills", {"query": "deploy the app"}))
            report["load_manual"] = tool_result(await client.call_tool("load_skill", {"name": "deploy"}))
            report["load_titled"] = tool_result(await client.call_tool("load_skill", {"name": "Daily Log"}))
            report["load_arguments"] = tool_result(
                await client.call_tool("load_skill", {"name": "greet", "arguments": "'Ada Lovelace' today"})
            )
            listing = await client.session.send_request(ListSkillsRequest(), RAW)
            report["skills_list"] = listing
            print(json.dumps(report))
            return
        if mode == "view":
            # A server of one view, and the tools skills need: what every face offers.
            session = client.session
            report["instructions"] = client.instructions
            report["list_skills"] = tool_result(await client.call_tool("list_skills", {}))
            report["search"] = tool_result(await client.call_tool("search_skills", {"query": "open a pull request"}))
            report["load_outside"] = tool_result(await client.call_tool("load_skill", {"name": "sql"}))
            report["load_inside"] = tool_result(await client.call_tool("load_skill", {"name": "ship-pr"}))
            report["skills_list"] = await session.send_request(ListSkillsRequest(), RAW)
            report["prompts_list"] = await session.send_request(ListPromptsRawRequest(), RAW)
            resources = await session.list_resources()
            report["resources"] = [str(r.uri) for r in resources.resources]
            print(json.dumps(report))
            return
        if mode == "limits":
            # Only the skills extension: what is published, and skills/get of each skill.
            session = client.session
            report["skills_list"] = await session.send_request(ListSkillsRequest(), RAW)
            for name in ["deep", "many", "large", "fits", "wordy", "colon"]:
                uri = f"skill://{name}/SKILL.md"
                report[name] = await error_of(
                    session.send_request(GetSkillRequest(params=GetSkillParams(uri=uri)), RAW)
                )
            print(json.dumps(report))
            return
        if mode in ("instructions", "instructions-legacy"):
            report["instructions"] = client.instructions
            print(json.dumps(report))
            return
        if mode in ("prompts", "prompts-legacy"):
            # Skills as prompts: the list, gets with and without good arguments, and the
            # list-changed notification after a skill is added.
            session = client.session
            report["prompts_list"] = await session.send_request(ListPromptsRawRequest(), RAW)

            async def get(name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
                try:
                    result = await client.get_prompt(name, arguments)
                except Exception as error:
                    detail = getattr(error, "error", None)
                    return {"raised": True, "code": getattr(detail, "code", None), "message": str(error)}
                return {"raised": False, "result": result.model_dump(mode="json", by_alias=True, exclude_none=True)}

            report["deploy"] = await get("deploy", {"env": "staging", "version": "2.1"})
            report["deploy_missing"] = await get("deploy", {"env": "staging"})
            report["deploy_extra"] = await get("deploy", {"env": "a", "version": "b", "force": "yes"})
            report["unknown"] = await get("nope", None)
            report["model_only"] = await get("greet", None)
            report["plain"] = await get("plain", {"arguments": "one 'two three'"})
            report["titled"] = await get("daily", None)
            report["too_long"] = await get("plain", {"arguments": "x" * 17000})
            report["load_manual"] = tool_result(await client.call_tool("load_skill", {"name": "deploy"}))
            report["load_titled"] = tool_result(await client.call_tool("load_skill", {"name": "Daily Log"}))
            report["prompts_changed"] = await change_after_adding(
                client, library, mode == "prompts-legacy", prompts_changed, report, "prompts_event",
                prompts_list_changed=True,
            )
            after = await session.send_request(ListPromptsRawRequest(), RAW)
            report["prompts_after"] = [p["name"] for p in after["prompts"]]
            print(json.dumps(report))
            return
        if mode == "skill-file":
            # A skill whose file is a lowercase skill.md: served as SKILL.md, as SEP-2640 names it.
            session = client.session
            report["skills_list"] = await session.send_request(ListSkillsRequest(), RAW)
            named = GetSkillRequest(params=GetSkillParams(uri="skill://lower/SKILL.md"))
            report["skills_get"] = await session.send_request(named, RAW)
            read = await client.read_resource("skill://lower/SKILL.md")
            report["read"] = read.contents[0].text
            read = await client.read_resource("skill://lower/skill.md")
            report["read_lowercase"] = read.contents[0].text
            print(json.dumps(report))
            return
        caps = client.server_capabilities
        report["capabilities"] = caps.model_dump(mode="json", by_alias=True, exclude_none=True)

        resources = await client.list_resources()
        report["resources"] = [r.uri for r in resources.resources]
        templates = await client.list_resource_templates()
        report["templates"] = [t.uri_template for t in templates.resource_templates]
        tools = await client.list_tools()
        report["tools"] = [t.name for t in tools.tools]

        session = client.session
        listing = await session.send_request(ListSkillsRequest(), RAW)
        report["skills_list"] = listing
        got = await session.send_request(GetSkillRequest(params=GetSkillParams(uri="skill://alpha/SKILL.md")), RAW)
        report["skills_get"] = got
        report["skills_get_unknown"] = await error_of(
            session.send_request(GetSkillRequest(params=GetSkillParams(uri="skill://nobody/SKILL.md")), RAW)
        )

        skill_md = await client.read_resource("skill://alpha/SKILL.md")
        report["skill_md"] = skill_md.contents[0].text
        index = await client.read_resource("skill://index.json")
        report["index"] = json.loads(index.contents[0].text)
        reference = await client.read_resource("skill://alpha/references/guide.md")
        report["reference"] = reference.contents[0].text
        report["read_traversal"] = await error_of(client.read_resource("skill://alpha/..%2Fbeta%2FSKILL.md"))
        report["read_unknown"] = await error_of(client.read_resource("skill://nobody/SKILL.md"))
        report["directory_unknown"] = await error_of(
            session.send_request(DirectoryReadRequest(params=DirectoryReadParams(uri="skill://nobody/")), RAW)
        )
        prompts = await session.send_request(ListPromptsRawRequest(), RAW)
        report["prompts_list"] = [p["name"] for p in prompts["prompts"]]
        report["read_link_out"] = await error_of(client.read_resource("skill://alpha/references/secret.md"))

        report["instructions"] = client.instructions
        report["list_skills"] = tool_result(await client.call_tool("list_skills", {}))
        report["search_skills"] = tool_result(await client.call_tool("search_skills", {"query": "first"}))
        report["search_empty"] = tool_result(await client.call_tool("search_skills", {"query": " "}))
        report["load_skill"] = tool_result(await client.call_tool("load_skill", {"name": "alpha"}))
        report["load_unknown"] = tool_result(await client.call_tool("load_skill", {"name": "nobody"}))
        report["read_tool"] = tool_result(
            await client.call_tool("read_skill_resource", {"name": "alpha", "path": "scripts/run.py"})
        )
        report["read_tool_binary"] = tool_result(
            await client.call_tool("read_skill_resource", {"name": "alpha", "path": "assets/logo.bin"})
        )
        report["read_tool_traversal"] = tool_result(
            await client.call_tool("read_skill_resource", {"name": "alpha", "path": "../beta/SKILL.md"})
        )
        report["read_tool_absolute"] = tool_result(
            await client.call_tool("read_skill_resource", {"name": "alpha", "path": "/etc/passwd"})
        )
        report["read_tool_link_out"] = tool_result(
            await client.call_tool("read_skill_resource", {"name": "alpha", "path": "references/secret.md"})
        )

        report["list_changed"] = await change_after_adding(
            client, library, mode == "legacy", changed, report, "listen_event", resources_list_changed=True
        )
        after = await client.list_resources()
        report["resources_after"] = [r.uri for r in after.resources]

    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
