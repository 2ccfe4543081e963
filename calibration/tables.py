"""A calibration table: one implementation and release, how to start it, and the verdict expected per requirement.

The TOML form (one file per release under ``calibration/tables/``)::

    [implementation]
    name = "mcp-probe-kit"                     # shown in reports and docs
    release = "v2.0.0"
    repository = "github:mybolide/mcp-probe-kit"
    commit = "f85903e38632399cc75afa4c2ef5289efa762608"
    package = "mcp-probe-kit"                  # package.json name and version identify a checkout
    version = "2.0.0"
    role = "probekit"                          # the harness role it plays
    target = "stdio:node {source}/build/index.js"   # {source}: the checkout's path
    subject_env = { MCP_ENABLE_GITNEXUS_BRIDGE = "0" }
    select = ["PROBE-*"]                       # the requirements the run judges

    [[expect]]
    id = "PROBE-TOOLSET-FULL-01"
    verdict = "fail"
    why = "tools/list under full lists 39 tools, not 49"
    upstream = "src/lib/toolset-manager.ts:14 (full: 所有 39 个工具)"
    judged = "upstream"                        # what the verdict rests on: upstream code, or a stub of the adapter

The spec sentence behind each requirement is the registry's (scenarios/requirements), never copied here: each
fact is written once.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["TABLES_DIR", "VERDICTS", "CalibrationTable", "Expectation", "TableError", "load_table", "load_tables"]

TABLES_DIR = Path(__file__).resolve().parent / "tables"
#: The verdicts a table may expect (docs/targets.md "Verdicts").
VERDICTS = frozenset({"pass", "fail", "warn", "review", "not-applicable", "not-testable", "error", "timeout"})
#: What a verdict rests on: the implementation's own code, or a stand-in the calibration adapter provides.
JUDGED = frozenset({"upstream", "stub"})


class TableError(ValueError):
    """A calibration table that cannot be read: the file and the entry are named."""


@dataclass(frozen=True, slots=True)
class Expectation:
    """The verdict a requirement must get, why, and (for every verdict but pass) the upstream evidence."""

    id: str
    verdict: str
    why: str = ""
    upstream: str = ""
    judged: str = "upstream"


@dataclass(frozen=True)
class CalibrationTable:
    path: Path
    name: str
    release: str
    repository: str
    commit: str
    package: str
    version: str
    role: str
    target: str
    subject_env: dict[str, str] = field(default_factory=dict)
    select: tuple[str, ...] = ()
    expectations: tuple[Expectation, ...] = ()

    @property
    def key(self) -> str:
        """The table's name on the command line: its file's stem (``probekit-v2.0.0``)."""
        return self.path.stem

    def expected(self) -> dict[str, Expectation]:
        return {e.id: e for e in self.expectations}

    def target_for(self, source: Path) -> str:
        """The ``--target`` value that starts the release built in ``source``."""
        return self.target.replace("{source}", str(source.resolve()))

    def harness_arguments(self, source: Path) -> list[str]:
        """The options of ``python -m simulator run`` that judge the release built in ``source``."""
        args = ["--target", f"{self.role}={self.target_for(source)}"]
        for name, value in sorted(self.subject_env.items()):
            args += ["--subject-env", f"{self.role}={name}={value}"]
        for pattern in self.select:
            args += ["--req", pattern]
        return args


def _text(table: dict[str, Any], key: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value:
        raise TableError(f"{where}: {key} must be a non-empty string")
    return value


def load_table(path: Path) -> CalibrationTable:
    """Read one table; ``TableError`` names what is wrong and where."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise TableError(f"{path}: {exc}") from exc
    impl = data.get("implementation")
    if not isinstance(impl, dict):
        raise TableError(f"{path}: no [implementation] table")
    where = f"{path} [implementation]"
    env = impl.get("subject_env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise TableError(f"{where}: subject_env must map names to strings")
    select = impl.get("select", [])
    if not isinstance(select, list) or not all(isinstance(s, str) for s in select):
        raise TableError(f"{where}: select must be a list of requirement ids or globs")
    expectations = []
    seen: set[str] = set()
    for i, entry in enumerate(data.get("expect", [])):
        at = f"{path} [[expect]] #{i + 1}"
        if not isinstance(entry, dict):
            raise TableError(f"{at}: not a table")
        rid, verdict = _text(entry, "id", at), _text(entry, "verdict", at)
        if verdict not in VERDICTS:
            raise TableError(f"{at} ({rid}): verdict {verdict!r} is not one of {sorted(VERDICTS)}")
        if rid in seen:
            raise TableError(f"{at}: {rid} is expected twice")
        seen.add(rid)
        judged = entry.get("judged", "upstream")
        if judged not in JUDGED:
            raise TableError(f"{at} ({rid}): judged must be one of {sorted(JUDGED)}")
        expectation = Expectation(rid, verdict, str(entry.get("why", "")), str(entry.get("upstream", "")), judged)
        if verdict != "pass" and not (expectation.why and expectation.upstream):
            raise TableError(f"{at} ({rid}): a {verdict} needs why and upstream (the evidence behind it)")
        expectations.append(expectation)
    return CalibrationTable(
        path=path, name=_text(impl, "name", where), release=_text(impl, "release", where),
        repository=_text(impl, "repository", where), commit=_text(impl, "commit", where),
        package=_text(impl, "package", where), version=_text(impl, "version", where), role=_text(impl, "role", where),
        target=_text(impl, "target", where), subject_env=dict(env), select=tuple(select),
        expectations=tuple(expectations))


def load_tables(directory: Path = TABLES_DIR) -> list[CalibrationTable]:
    """Every table of ``directory``, by file name."""
    return [load_table(p) for p in sorted(directory.glob("*.toml"))]
