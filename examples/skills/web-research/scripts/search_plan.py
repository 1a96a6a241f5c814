#!/usr/bin/env python3
"""Print a search plan for a research question (an example the agent can adapt)."""
import sys


def plan(question: str) -> list[str]:
    words = [w for w in question.lower().split() if len(w) > 3]
    core = " ".join(words[:4])
    return [
        core,
        f"{core} official documentation",
        f"{core} comparison benchmark",
        f"{core} criticism problems",
        f"{core} site:arxiv.org OR site:github.com",
    ]


if __name__ == "__main__":
    for query in plan(" ".join(sys.argv[1:]) or "example question"):
        print(query)
