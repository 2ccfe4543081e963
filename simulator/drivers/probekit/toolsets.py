"""What ``tools/list`` offers under a toolset.

mcp-probe-kit-v2-design.md §1 工具集管理器: ``MCP_TOOLSET`` (full | core | ui | workflow, default full) filters the
list to the toolset's members (TOOLSET_DEFINITIONS); ``MCP_SHOW_ALL=1`` ignores the filter (§配置管理). The members
and counts are the feature's, written from the design; these checks only compare. A tool listed twice is a problem
of its own: the counts are of distinct tools.
"""

from __future__ import annotations

from collections.abc import Sequence

from .expect import expect

__all__ = ["check_listed_exactly", "check_listed_including", "check_not_listed", "listed_twice"]


def listed_twice(names: Sequence[str]) -> list[str]:
    """The names ``tools/list`` holds more than once, sorted."""
    return sorted({n for n in names if names.count(n) > 1})


def check_listed_exactly(names: Sequence[str], expected: Sequence[str], count: int, toolset: str | None) -> None:
    """``names`` (what ``tools/list`` answered under ``toolset``) are exactly the ``count`` tools ``expected``,
    each once. ``expected`` not holding ``count`` distinct names is a feature bug (``AssertionError`` too)."""
    expect(len(expected) == count == len(set(expected)),
           f"feature bug: {len(expected)} names ({len(set(expected))} distinct) listed for {count}")
    dupes = listed_twice(names)
    missing = sorted(set(expected) - set(names))
    extra = sorted(set(names) - set(expected))
    expect(not (missing or extra or dupes), (
        f"tools/list under MCP_TOOLSET={toolset} lists {len(names)} tools, expected {count}: "
        f"missing {missing}, not expected {extra}, listed twice {dupes}"))


def check_listed_including(names: Sequence[str], expected: Sequence[str], count: int, toolset: str | None) -> None:
    """``names`` are ``count`` distinct tools, among them every one of ``expected`` (the design names only some
    members of full: the others are counted, never named)."""
    dupes = listed_twice(names)
    missing = sorted(set(expected) - set(names))
    expect(not missing and not dupes and len(names) == count, (
        f"tools/list under MCP_TOOLSET={toolset} lists {len(names)} tools ({len(set(names))} distinct), "
        f"expected {count} distinct: missing {missing}, listed twice {dupes}"))


def check_not_listed(names: Sequence[str], name: str, toolset: str | None) -> None:
    """``tools/list`` under ``toolset`` does not offer ``name``."""
    expect(name not in names, f"tools/list under MCP_TOOLSET={toolset} lists {name!r}")
