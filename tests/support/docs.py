"""The documentation as the tests read it: README.md and the pages of docs/, a section
found by its heading wherever it lives, its code blocks by language."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```(\w*)\s*$")


def pages() -> list[Path]:
    """README.md, then every page of the site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def headings(text: str) -> list[tuple[int, int, str]]:
    """`(line index, level, title)` of each heading of level 1 or 2 outside code blocks
    (a shell comment `# ...` in a block is no heading)."""
    found, fenced = [], False
    for number, line in enumerate(text.splitlines()):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and (heading := re.match(r"(#{1,2}) (.+?)\s*$", line)):
            found.append((number, len(heading.group(1)), heading.group(2)))
    return found


def section(title: str) -> str:
    """The text under the heading `# title` or `## title`, in README.md or a page of
    docs/, up to the next heading of level 1 or 2."""
    for page in pages():
        text = page.read_text()
        lines = text.splitlines(keepends=True)
        marks = headings(text)
        for at, (number, _, name) in enumerate(marks):
            if name == title:
                end = marks[at + 1][0] if at + 1 < len(marks) else len(lines)
                return "".join(lines[number + 1 : end])
    raise LookupError(f"no section {title!r} in README.md or docs/")


def blocks(text: str, language: str | None = None) -> list[str]:
    """The fenced code blocks of `text` (of `language` only, when given)."""
    found = re.findall(r"^```(\w*)\n(.*?)^```", text, re.S | re.M)
    return [body for lang, body in found if language is None or lang == language]


def all_text() -> str:
    """Every page, README first."""
    return "\n".join(page.read_text() for page in pages())
