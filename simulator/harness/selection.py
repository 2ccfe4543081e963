"""What a run selected: the record of its selection (``RunRecord.selection``), the scenario keys
``--only-scenarios`` lists, whether the command line names paths of its own, and the runs that judged nothing
(an empty selection, features that cannot be collected) with the exit code both front doors give them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from .state import EXIT_INFRA, EXIT_USAGE, Harness, usage_error
from ..verdicts.results import RunRecord

__all__ = ["selection_record", "listed_keys", "paths_selected", "judged_nothing"]


def selection_record(config: pytest.Config, harness: Harness, patterns: list[str]) -> dict[str, Any]:
    """What the run selected and what judges it besides the subject (``RunRecord.selection``): the feature paths
    the command line names, the ``--req`` patterns, ``-m``, ``-k``, ``--only-scenarios``, ``--spec-revision``, the
    baseline and the reviewed decisions (files as given)."""
    root = Path(str(config.rootpath)).resolve()
    paths = []
    if paths_selected(config):
        for arg in config.args:
            path = Path(arg.split("::")[0]).resolve()
            rest = arg[len(arg.split("::")[0]):]
            paths.append((str(path.relative_to(root)) if path.is_relative_to(root) else arg.split("::")[0]) + rest)
    out: dict[str, Any] = {
        "paths": paths,
        "req": list(dict.fromkeys(patterns)),
        "markers": config.option.markexpr or None,
        "keyword": config.option.keyword or None,
        "onlyScenarios": config.getoption("--only-scenarios") or None,
        "specRevision": list(config.getoption("--spec-revision")) or None,
        "baseline": str(harness.config.baseline) if harness.config.baseline else None,
        "reviews": str(harness.config.reviews) if harness.config.reviews else None,
    }
    return {k: v for k, v in out.items() if v}


def listed_keys(path: Path) -> set[str]:
    """The scenario keys ``--only-scenarios`` names (one per line)."""
    try:
        return {line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}
    except (OSError, UnicodeDecodeError) as exc:
        usage_error(f"--only-scenarios {path}: cannot read it: {exc}")


def paths_selected(config: pytest.Config) -> bool:
    """The command line names test paths other than the whole ``features/`` folder (or the project): a selection
    of its own, which the named targets do not narrow."""
    if config.args_source is not pytest.Config.ArgsSource.ARGS:
        return False
    root = Path(str(config.rootpath)).resolve()
    whole = {root, root / "features"}
    return any(Path(arg.split("::")[0]).resolve() not in whole for arg in config.args)


def _judges_features(config: pytest.Config) -> bool:
    """The run collects conformance features only (every path it names is under ``features/``, or it names none
    and selects by ``--req``): an empty selection is then a usage error, not pytest's "no tests ran"."""
    root = Path(str(config.rootpath)).resolve() / "features"
    if config.args_source is not pytest.Config.ArgsSource.ARGS:
        return bool(config.getoption("--req"))
    return all(Path(arg.split("::")[0]).resolve().is_relative_to(root) for arg in config.args)


def judged_nothing(session: pytest.Session, harness: Harness) -> bool:
    """The runs that judged nothing, with the exit code both front doors give them: a selection that matches no
    scenario is a usage error (``EXIT_USAGE``, pytest's own would be 5, silently); feature files or steps that cannot
    be collected are the harness's failure (``EXIT_INFRA``, pytest's own would be 2, the usage error's code here);
    a usage error already ended the run with its code. True when the run ends here."""
    status = int(session.exitstatus)
    if harness.usage_error is not None:
        return True
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")

    def say(line: str) -> None:
        if reporter is not None:
            reporter.write_line(line, red=True, bold=True)
        else:
            print(line, file=sys.stderr)

    if harness.collection_failed is not None:
        say(f"conformance: ERROR (exit {EXIT_INFRA}): {harness.collection_failed}: the feature files or their steps "
            f"cannot be collected, nothing was judged")
        session.exitstatus = EXIT_INFRA
        return True
    if status == pytest.ExitCode.NO_TESTS_COLLECTED and _judges_features(session.config):
        selection = RunRecord(harness_version="", spec_revisions={}, subjects=[], started_at="", finished_at="",
                              strict=False, selection=selection_record(session.config, harness, harness.selection
                                                                       or list(session.config.getoption("--req"))
                                                                       + list(harness.config.req)))
        harness.usage_error = f"the selection matched no scenario ({selection.selection_text()})"
        say(f"conformance: usage error: {harness.usage_error}")
        session.exitstatus = EXIT_USAGE
        return True
    return False
