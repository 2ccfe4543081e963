"""gencommit's answer: a Conventional Commits message.

mcp-probe-kit-v2-design.md §3.2 CommitMessage Schema: ``type`` (feat | fix | docs | style | refactor | test | chore
| perf | build | ci | revert), ``subject``, ``finalMessage`` "完整的提交消息（可直接复制）"; 迁移步骤: gencommit
answers okStructured with a textFallback. The type list, scope, breaking and footers are those of Conventional
Commits 1.0.0, whose header is ``<type>[(<scope>)][!]: <description>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from simulator.roles.mcp_values import tool_text

from .calls import Call, malformed_content
from .expect import expect
from .structured import structured_of

__all__ = ["CONVENTIONAL", "CommitHeader", "check_conventional_header", "check_text_carries_final_message",
           "parse_header"]

#: A Conventional Commits 1.0.0 header: ``type(scope)!: description`` (scope and ``!`` optional; a lowercase type,
#: one colon and one space before a non-blank description).
CONVENTIONAL = re.compile(r"^(?P<type>[a-z]+)(\((?P<scope>[^()\r\n]+)\))?(?P<bang>!)?: (?P<subject>\S.*)$")


@dataclass(frozen=True, slots=True)
class CommitHeader:
    """The first line of a commit message, read as a Conventional Commits header."""

    type: str
    scope: str | None
    breaking: bool
    subject: str


def parse_header(line: str) -> CommitHeader | None:
    """The header ``line`` spells, or None when it is not a Conventional Commits header."""
    match = CONVENTIONAL.match(line)
    if match is None:
        return None
    return CommitHeader(match["type"], match["scope"], match["bang"] is not None, match["subject"])


def check_conventional_header(call: Call, kind: str) -> None:
    """``finalMessage`` opens with a Conventional Commits header of type ``kind``, the same type as
    ``structuredContent.type`` (§3.2)."""
    structured = structured_of(call.result)
    if structured is None:
        raise AssertionError(f"no structuredContent object: {call.describe()}")
    final = structured.get("finalMessage")
    if not (isinstance(final, str) and final.strip()):
        raise AssertionError(f"no finalMessage: {call.describe()}")
    first = final.strip().splitlines()[0]
    header = parse_header(first)
    if header is None:
        raise AssertionError(f"the first line of finalMessage is not a Conventional Commits header: {first!r}")
    expect(header.type == kind, f"the header's type is {header.type!r}, expected {kind!r}: {first!r}")
    expect(header.type == structured.get("type"),
           f"the header's type {header.type!r} differs from structuredContent.type {structured.get('type')!r}")


def check_text_carries_final_message(call: Call) -> None:
    """The text of the result carries ``finalMessage`` (迁移步骤: the textFallback of gencommit)."""
    final = (structured_of(call.result) or {}).get("finalMessage")
    text = tool_text(call.result)
    if not (isinstance(final, str) and final.strip()):
        raise AssertionError(f"no finalMessage to look for: {call.describe()}")
    expect(final.strip() in text,
           f"the text does not carry finalMessage {final!r}: {text[:800]!r}{malformed_content(call.result)}")
