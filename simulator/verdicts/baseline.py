"""The expected-failures baseline: known gaps that do not fail a run, and that fail it once they are fixed.

A TOML file of entries, each naming a requirement id or a scenario (its pytest node id or its name) and the
verdict expected of it (``verdict``, default ``"fail"``; one of fail, warn, not-testable, timeout, error):

    [[expected]]
    requirement = "HOOK-SERVER-REOPEN-CLEANUP-01"
    verdict = "fail"
    reason = "clean-up without the generation check; fixed in 2.4"

    [[expected]]
    scenario = "features/hook/test_hook_server.py::test_reopen_after_reconnect"
    verdict = "timeout"

A scenario matched by an entry **with the expected verdict** is reported as baselined (it does not fail the run);
any other failing verdict on it is not hidden (an entry written for a fail never hides a later error or timeout).
An entry whose requirement (all its scenarios that ran) or scenario now passes is **stale** and fails the run, so
a fixed gap cannot hide a later regression. An entry naming a requirement that is not in the registry or a
scenario that was not collected is a usage error (``unknown``). ``--write-baseline FILE`` writes one entry per
failing requirement, with its verdict.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .results import FAILING, ScenarioResult, Verdict

__all__ = ["Baseline", "BaselineEntry", "load_baseline", "render_baseline"]


#: The verdicts an entry may expect (those that fail a run; warn only fails one under --strict).
EXPECTABLE = frozenset({Verdict.FAIL, Verdict.WARN, Verdict.NOT_TESTABLE, Verdict.TIMEOUT, Verdict.ERROR})


@dataclass(frozen=True, slots=True)
class BaselineEntry:
    requirement: str | None
    scenario: str | None
    reason: str
    verdict: Verdict = Verdict.FAIL

    @property
    def key(self) -> str:
        return f"requirement {self.requirement}" if self.requirement else f"scenario {self.scenario}"


@dataclass
class Baseline:
    entries: list[BaselineEntry] = field(default_factory=list)
    source: str | None = None

    def matches(self, result: ScenarioResult) -> BaselineEntry | None:
        """The entry that names ``result`` and expects exactly its verdict, else None."""
        return self.expected(result.requirement, result.nodeid, result.name, result.verdict)

    def expected(self, requirement: str | None, nodeid: str, name: str, verdict: Verdict) -> BaselineEntry | None:
        """The entry that names the scenario (by its requirement, node id or name) and expects exactly ``verdict``,
        else None."""
        for entry in self.entries:
            named = (entry.requirement and entry.requirement == requirement) or (
                entry.scenario and entry.scenario in (nodeid, name))
            if named and entry.verdict is verdict:
                return entry
        return None

    def unknown(self, requirements: set[str], scenarios: set[str]) -> list[BaselineEntry]:
        """Entries that name a requirement not in ``requirements`` or a scenario (node id or name) not in
        ``scenarios``: a usage error, since such an entry can never match."""
        return [e for e in self.entries
                if (e.requirement and e.requirement not in requirements)
                or (e.scenario and e.scenario not in scenarios)]

    def stale(self, results: list[ScenarioResult], *, strict: bool = False) -> list[BaselineEntry]:
        """Entries whose requirement or scenario ran and no longer fails."""
        failing = set(FAILING) | ({Verdict.WARN} if strict else set())
        out = []
        for entry in self.entries:
            hit = [r for r in results
                   if (entry.requirement and r.requirement == entry.requirement)
                   or (entry.scenario and entry.scenario in (r.nodeid, r.name))]
            ran = [r for r in hit if r.verdict is not Verdict.NOT_APPLICABLE]
            if ran and not any(r.verdict in failing for r in ran):
                out.append(entry)
        return out


def read_entry_tables(path: Path, option: str, table: str) -> list[dict[str, Any]]:
    """The ``[[table]]`` entries of a TOML file given with ``option``; a missing or unreadable file, another key,
    or an entry that is not a table is a ``ConfigError`` naming the file (and the entry)."""
    if not path.is_file():
        raise ConfigError(f"{option} {path}: no such file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{option} {path}: not a readable TOML file: {exc}") from None
    unknown = sorted(set(data) - {table})
    if unknown:
        raise ConfigError(f"{option} {path}: unknown key {unknown[0]!r} (only [[{table}]] tables)")
    items: list[dict[str, Any]] = data.get(table, [])  # checked just below: each entry is a table
    for i, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise ConfigError(f"{option} {path}: entry #{i} is not a table")
    return items


def load_baseline(path: Path) -> Baseline:
    entries = []
    for i, item in enumerate(read_entry_tables(path, "--baseline", "expected"), 1):
        extra = sorted(set(item) - {"requirement", "scenario", "reason", "verdict"})
        if extra:
            raise ConfigError(f"--baseline {path}: entry #{i}: unknown key {extra[0]!r}")
        req, scen = item.get("requirement"), item.get("scenario")
        if (req is None) == (scen is None) or not isinstance(req or scen, str):
            raise ConfigError(f"--baseline {path}: entry #{i} needs exactly one of requirement or scenario")
        raw_verdict = item.get("verdict", Verdict.FAIL.value)
        try:
            verdict = Verdict(raw_verdict)
        except ValueError:
            verdict = None
        if verdict not in EXPECTABLE:
            allowed = ", ".join(sorted(v.value for v in EXPECTABLE))
            raise ConfigError(f"--baseline {path}: entry #{i}: verdict {raw_verdict!r} is not one of {allowed}")
        entries.append(BaselineEntry(req, scen, str(item.get("reason", "")), verdict))
    return Baseline(entries, str(path))


def _toml_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def render_baseline(results: list[ScenarioResult], *, strict: bool = False) -> str:
    """A baseline listing every requirement (or, without one, scenario) that failed in ``results``."""
    failing = set(FAILING) | ({Verdict.WARN} if strict else set())
    lines = ["# Expected failures (written by --write-baseline). Entries that pass again fail the run as stale.", ""]
    seen: set[tuple[str, str]] = set()
    for r in results:
        if r.verdict not in failing:
            continue
        key = (r.requirement or r.nodeid, r.verdict.value)
        if key in seen:
            continue
        seen.add(key)
        lines.append("[[expected]]")
        lines.append(f"requirement = {_toml_str(r.requirement)}" if r.requirement else f"scenario = {_toml_str(r.nodeid)}")
        lines.append(f"verdict = {_toml_str(r.verdict.value)}")
        lines.append(f"reason = {_toml_str(f'{r.verdict.value}: {r.reason}'[:300])}")
        lines.append("")
    return "\n".join(lines)
