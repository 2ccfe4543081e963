"""Command line of the conformance harness.

    python -m simulator run    [--target NAME=SPEC] [--control NAME=URL] [--report-dir DIR] [--formats LIST]
                               [--baseline F] [--reviews F] [--spec-revision KEY=REVISION …]
                               [--write-baseline F] [--strict] [--config FILE] [--progress names|features|dots]
                               [selection …] [-- pytest options]
    python -m simulator list   [selection …] [--scenarios] [--falsifiability] [--revisions]
    python -m simulator report REPORT.json [--format html|md|junit|cucumber|json] [--output FILE] [--force]
    python -m simulator report merge A/report.json B/report.json … --out DIR [--label TEXT …]
    python -m simulator report matrix RUN_DIR_OR_REPORT.json … --out DIR [--name NAME …]
    python -m simulator serve  SUBJECT [options]
    python -m simulator judge  RECORDING [--json OUT] [--report-dir DIR]
    python -m simulator replay RECORDING [--target NAME=SPEC] [--control NAME=URL] [--all] [--req ID] [--report-dir DIR]
    python -m simulator load   [--target hook-server=ws://…] [--control hook-server=http://…] --users N
                               --spawn-rate R --run-time T [--tasks-per-user K] [--json OUT] … (docs/load.md)

A selection is a requirement id or glob (``HOOK-FRAME-ACK-*``) or a path under ``features/``.
Exit codes: 0 conformant, 1 findings, 2 usage error, 3 infrastructure error, 130 / 143 interrupted by SIGINT /
SIGTERM (a partial report is written; docs/targets.md).
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .subjects.options import RUN_OPTIONS, to_pytest_argv

if TYPE_CHECKING:
    from .verdicts.requirements import Requirement, ScenarioRef

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INFRA = 0, 1, 2, 3
#: An interrupted run (simulator.harness.interruption): 128 + the signal number, SIGINT 130, SIGTERM 143.
EXIT_INTERRUPTED = (130, 143)

#: What ``serve`` can start, filled in as the reference implementations arrive: name → "module:function".
SERVABLE: dict[str, str] = {
    "ccweb-mcp": "simulator.reference.ccweb.cli:main",
    "probekit-mcp": "simulator.reference.probekit.cli:main",
    "desktop": "simulator.reference.desktop.cli:main",
    "hook-server": "simulator.reference.hookserver.cli:main",
}


def _need_root() -> Path:
    from .suite import SuiteNotFound, suite_root

    try:
        return suite_root()
    except SuiteNotFound as exc:
        raise SystemExit(_usage(str(exc))) from None


def _usage(message: str) -> int:
    print(f"simulator: {message}", file=sys.stderr)
    return EXIT_USAGE


# -- run -------------------------------------------------------------------------------------------------------


#: pytest options after ``--`` that need its cache (the last run's failures).
_CACHE_OPTIONS = ("--lf", "--last-failed", "--ff", "--failed-first", "--nf", "--new-first", "--sw", "--stepwise",
                  "--cache-clear", "--cache-show", "--lfnf", "--last-failed-no-failures")


def _cache_args(extra: list[str]) -> list[str]:
    """pytest's cache stays off (an installed suite's root may be read-only) unless an option after ``--`` needs it
    (``--lf``, ``--ff``, …); then it lives in ``.pytest_cache`` of the directory the run starts from."""
    if any(a.split("=", 1)[0] in _CACHE_OPTIONS for a in extra):
        return ["-o", f"cache_dir={Path.cwd() / '.pytest_cache'}"]
    return ["-p", "no:cacheprovider"]


#: How the command line names itself in usage and help: the single-file executable (docs/executable.md) by its own
#: name, else the module.
PROG = "hook-conformance" if getattr(sys, "frozen", False) else "python -m simulator"


def _run(args: argparse.Namespace, extra: list[str]) -> int:
    import pytest

    root = _need_root()
    if args.spec_revision:  # checked here too, so that a mistyped revision is told before pytest starts
        from .verdicts.revisions import RevisionChoiceError, SpecTableError, load_spec_table, resolve_choices

        try:
            resolve_choices(load_spec_table(root / "scenarios" / "specs.toml"), args.spec_revision)
        except (RevisionChoiceError, SpecTableError) as exc:
            return _usage(str(exc))
    paths, reqs = [], list(args.req)
    for sel in args.selection:
        candidate = Path(sel)
        if candidate.exists() or (root / sel).exists():
            paths.append(str(candidate if candidate.exists() else root / sel))
        else:
            reqs.append(sel)
    # Options as --name=value: pytest takes every bare argument that names an existing path into account when it
    # looks for its configuration file, and a report directory is such a path. Hypothesis's pytest plugin serves
    # @given test functions, and the conformance features have none (the robustness profile calls Hypothesis inside
    # its steps); left on, it imports Hypothesis at the end of every run through pytest's assertion rewriting, ~1 s
    # of CPU per process (the run's and each xdist worker's).
    argv = [f"--rootdir={root}", f"--config-file={root / 'pytest.ini'}", *_cache_args(extra),
            "-p", "no:hypothesispytest", *(paths or [str(root / "features")])]
    argv += to_pytest_argv(argparse.Namespace(**{**vars(args), "req": reqs}))
    if args.markers:
        argv += ["-m", args.markers]
    code = int(pytest.main(argv + extra))
    if code in EXIT_INTERRUPTED:
        return code
    # The plugin gives the harness's codes (2 usage error, 3 infrastructure, the same under pytest features/);
    # 4 is a usage error pytest found itself (an unknown option), 5 a run the plugin did not judge (no features).
    return {0: EXIT_OK, 1: EXIT_FINDINGS, 2: EXIT_USAGE, 3: EXIT_INFRA, 4: EXIT_USAGE, 5: EXIT_USAGE}.get(code, EXIT_INFRA)


# -- list ------------------------------------------------------------------------------------------------------


def _list(args: argparse.Namespace, extra: list[str]) -> int:
    from .harness.feature_files import load_scenarios
    from .verdicts.requirements import load_registry

    if extra:
        return _usage(f"list: unexpected arguments {' '.join(extra)}")
    root = _need_root()
    registry, problems = load_registry(root / "scenarios" / "requirements")
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    if args.falsifiability:
        return _falsifiability(root, registry, args.selection or ["*"])
    if args.revisions:
        return _revisions(root, registry)
    scenarios = load_scenarios(root / "features")
    by_req: dict[str, list[ScenarioRef]] = {}
    for s in scenarios:
        for rid in s.req_ids:
            by_req.setdefault(rid, []).append(s)
    collected = _collected_per_requirement(root)
    if collected is None:
        return EXIT_USAGE
    runs, profiles = collected
    patterns = args.selection or ["*"]
    shown = [rid for rid in sorted(set(registry) | set(by_req)) if any(fnmatch.fnmatchcase(rid, p) for p in patterns)]
    if not shown:
        return _usage("the selection matched no requirement")
    width = max(len(r) for r in shown)
    for rid in shown:
        req = registry.get(rid)
        level = req.level.value if req else "?"
        count = runs.get(rid, 0)
        section = req.section if req else "(not in the registry)"
        profile = f" (-m {profiles[rid]})" if rid in profiles else ""
        print(f"{rid:<{width}}  {level:<6}  {count:>4} scenario{'s' if count != 1 else ' '}  {section}{profile}")
        if args.scenarios:
            for s in by_req.get(rid, []):
                print(f"{'':<{width}}    - {s.feature_file}:{s.line} {s.name}")
    in_profiles = sum(runs.get(r, 0) for r in shown if r in profiles)
    print(f"{len(shown)} requirements, {sum(runs.get(r, 0) for r in shown)} scenarios (as a run counts them: "
          f"each example row and each subject a frame case is sent to"
          + (f"; {in_profiles} of them in a profile, run only when -m names it" if in_profiles else "") + ")",
          file=sys.stderr)
    return EXIT_OK


def _revisions(root: Path, registry: dict[str, Requirement]) -> int:
    from .verdicts.revisions import SpecTableError, load_spec_table, render_history, revision_history

    try:
        table = load_spec_table(root / "scenarios" / "specs.toml")
    except SpecTableError as exc:
        return _usage(f"list --revisions: {exc}")
    print(render_history(revision_history(table, registry)), end="")
    return EXIT_OK


def _falsifiability(root: Path, registry: dict[str, Requirement], patterns: list[str]) -> int:
    from .verdicts.falsifiability import figure, load_falsifiers, render_figure

    levels = {rid: req.level.value for rid, req in registry.items()
              if any(fnmatch.fnmatchcase(rid, p) for p in patterns)}
    if not levels:
        return _usage("the selection matched no requirement")
    falsifiers = load_falsifiers(root / "scenarios" / "falsifiers.toml")
    print(render_figure(figure(levels, falsifiers, "scenarios/falsifiers.toml"), list_unproven=True))
    return EXIT_OK


#: The profiles off by default (docs/targets.md), named in the -m of the collection that counts every scenario.
_PROFILES = ("robustness", "faults")


def _collected_per_requirement(root: Path) -> tuple[dict[str, int], dict[str, str]] | None:
    """How many scenarios a run of every target would run per requirement: pytest's own collection of the
    features (outline rows, frame cases per hook subject, the deselected object-form cases left out), the profiles
    included; and the profile of each requirement that belongs to one (its scenarios run only when -m names it)."""
    import contextlib
    import io

    import pytest

    counts: dict[str, int] = {}
    profiles: dict[str, str] = {}

    class Count:
        @pytest.hookimpl(trylast=True)
        def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
            for item in items:
                marker = item.get_closest_marker("req")
                if marker is not None:
                    rid = str(marker.kwargs.get("id"))
                    counts[rid] = counts.get(rid, 0) + 1
                    for profile in _PROFILES:
                        if item.get_closest_marker(profile):
                            profiles[rid] = profile

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        every = " or ".join((*_PROFILES, f"not ({' or '.join(_PROFILES)})"))  # names each profile: none is left off
        code = int(pytest.main([f"--rootdir={root}", f"--config-file={root / 'pytest.ini'}", "-p",
                                "no:cacheprovider", "--collect-only", "-q", "-m", every, str(root / "features")],
                               plugins=[Count()]))
    if code != 0:
        print(f"simulator: list: the features could not be collected:\n{out.getvalue()[-3000:]}", file=sys.stderr)
        return None
    return counts, profiles


# -- report ----------------------------------------------------------------------------------------------------


def _report(args: argparse.Namespace, extra: list[str]) -> int:
    if extra:
        return _usage(f"report: unexpected arguments {' '.join(extra)}")
    from reports import FILENAMES, FORMATS
    from reports.json_report import ReportError, load_report

    try:
        record = load_report(Path(args.report))
    except ReportError as exc:
        return _usage(str(exc))
    text = FORMATS[args.format](record)
    own = Path(args.report).with_name(FILENAMES[args.format])
    output = Path(args.output) if args.output else own.with_name(f"{own.stem}.rerendered{own.suffix}")
    run_files = {Path(args.report).with_name(name).resolve() for name in FILENAMES.values()}
    if args.output != "-" and output.resolve() in run_files and output.exists() and not args.force:
        return _usage(f"report: {output} was written by the run; give another --output, or --force to replace it")
    if args.output == "-":
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        print(output)
    return EXIT_OK


def _merge_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{PROG} report merge",
        description="Merge the report.json of several runs of one release (one subject under several environments, "
                    "or the parts of a split run) into one report: a scenario takes the verdict of the runs that "
                    "judged it (the worst of them), with one evidence line per run. Writes report.json, junit.xml, "
                    "summary.md and report.html (`report --format cucumber` renders Cucumber JSON from the merged "
                    "report.json).")
    parser.add_argument("reports", nargs="+", metavar="REPORT.json", help="the report.json files to merge")
    parser.add_argument("--out", required=True, metavar="DIR", help="where to write the merged reports")
    parser.add_argument("--label", action="append", default=[], metavar="TEXT",
                        help="what to call each input in the evidence, in order (default: its folder's name)")
    return parser


def _labels(paths: list[Path], given: list[str]) -> list[str]:
    if given:
        return given
    names = [p.parent.name or str(p) for p in paths]
    return names if len(set(names)) == len(names) else [str(p) for p in paths]


def _merge(argv: list[str]) -> int:
    try:
        args = _merge_parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) and EXIT_USAGE
    from reports import write_all
    from reports.json_report import ReportError, load_report

    from .errors import ConfigError
    from .verdicts.merge import LabelledRun, merge_runs

    paths = [Path(p) for p in args.reports]
    if args.label and len(args.label) != len(paths):
        return _usage(f"report merge: {len(args.label)} --label for {len(paths)} reports")
    try:
        runs = [LabelledRun(label, load_report(path)) for label, path in zip(_labels(paths, args.label), paths, strict=True)]
        merged = merge_runs(runs)
    except (ReportError, ConfigError) as exc:
        return _usage(str(exc))
    out = Path(args.out)
    if any(out.resolve() == p.resolve().parent for p in paths):
        return _usage(f"report merge: --out {out} is the folder of an input; choose a folder of its own")
    written = write_all(merged, out)
    print(f"merged {len(runs)} runs: {merged.overall()}")
    print(next(iter(written.values())).parent)
    return merged.exit_code if merged.exit_code in (EXIT_OK, EXIT_FINDINGS, EXIT_INFRA) else EXIT_INFRA


def _matrix_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{PROG} report matrix",
        description="Put several runs side by side: an implementation per column (named from each run's subjects, "
                    "or --name), a requirement per row (by spec, family and level), each cell the run's verdict "
                    "linked to it in that run's report.html. Writes matrix.html, matrix.json and matrix.md "
                    "(docs/matrix.md). Exit 0 when written, 2 for an input that is not a report.")
    parser.add_argument("runs", nargs="+", metavar="RUN_DIR_OR_REPORT.json",
                        help="run folders holding report.json, or report.json files")
    parser.add_argument("--out", required=True, metavar="DIR", help="where to write the matrix")
    parser.add_argument("--name", action="append", default=[], metavar="NAME",
                        help="what to call each input's column, once per input in order (default: what its "
                             "subjects say about themselves)")
    return parser


def _matrix(argv: list[str]) -> int:
    try:
        args = _matrix_parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) and EXIT_USAGE
    from reports.json_report import ReportError
    from reports.matrix_files import write_matrix

    from .verdicts.grades import FamiliesTableError

    if args.name and len(args.name) != len(args.runs):
        return _usage(f"report matrix: {len(args.name)} --name for {len(args.runs)} inputs (one per input, in order)")
    try:
        matrix, written = write_matrix([Path(p) for p in args.runs], Path(args.out), args.name)
    except (ReportError, FamiliesTableError) as exc:
        return _usage(f"report matrix: {exc}")
    except OSError as exc:  # the output folder cannot be made or written
        return _usage(f"report matrix: cannot write into {args.out}: {exc.strerror or exc}")
    print(f"matrix: {len(matrix.implementations)} implementations × {len(matrix.rows)} requirements, "
          f"{len(matrix.differing())} differing")
    print(written["html"])
    return EXIT_OK


# -- serve -----------------------------------------------------------------------------------------------------


def _serve(args: argparse.Namespace, extra: list[str]) -> int:
    target = SERVABLE.get(args.subject)
    if target is None:
        known = ", ".join(sorted(SERVABLE)) or "none yet"
        return _usage(f"serve: no reference implementation named {args.subject!r} (available: {known})")
    import importlib

    module, _, function = target.partition(":")
    return int(getattr(importlib.import_module(module), function)(extra) or 0)


# -- parser ----------------------------------------------------------------------------------------------------


def _judge(args: argparse.Namespace, extra: list[str]) -> int:
    """Judge a recording again (simulator/replay/judging.py)."""
    from .replay.judging import judge_main

    args.pytest_args = extra
    return judge_main(args, main, _need_root())


def _replay(args: argparse.Namespace, extra: list[str]) -> int:
    from .replay.replaying import replay_main

    args.pytest_args = extra
    return replay_main(args, main)


def _report_formats() -> tuple[str, ...]:
    """The formats ``report`` re-renders a report.json in: the renderers of ``reports`` (``run --formats`` names the
    same, and the recording)."""
    from reports import FORMATS

    return tuple(FORMATS)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Conformance harness and simulator.",
                                     epilog="Exit codes: 0 conformant, 1 findings, 2 usage error, 3 infrastructure error "
                                            "(an unreachable target included), 130/143 interrupted.")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run the conformance features (options after -- go to pytest)")
    run.add_argument("selection", nargs="*",
                     help="what to run: requirement ids or globs (HOOK-SERVER-*) and/or feature paths "
                          "(features/ccweb); default: every requirement of the roles named by --target, or of all "
                          "roles when none is named")
    for option in RUN_OPTIONS:
        run.add_argument(option.flag, **option.kwargs())
    run.add_argument("-m", dest="markers", default=None, metavar="EXPR",
                     help="a pytest marker expression over the levels, e.g. must or 'must or should'")
    run.set_defaults(handler=_run)

    ls = sub.add_parser("list", help="list requirements (and scenarios) without running them")
    ls.add_argument("selection", nargs="*", help="requirement ids or globs")
    ls.add_argument("--scenarios", action="store_true", help="also list each requirement's scenarios")
    ls.add_argument("--falsifiability", action="store_true",
                    help="per family and level, how many requirements a committed falsifying case proves able to "
                         "fail (scenarios/falsifiers.toml), and which are not proven yet")
    ls.add_argument("--revisions", action="store_true",
                    help="each spec's revisions (scenarios/specs.toml), with the size of the requirement set at each "
                         "and the requirements each added, changed and withdrew (run --spec-revision KEY=REVISION "
                         "judges one)")
    ls.set_defaults(handler=_list)

    rep = sub.add_parser("report", help="re-render a saved report.json (or: report merge A B … --out DIR; report "
                                        "matrix A B … --out DIR)",
                         description="Re-render a saved report.json in one format. `report merge --help` tells how "
                                     "to merge several runs into one report; `report matrix --help` how to put "
                                     "several runs side by side.")
    rep.add_argument("report", help="a report.json written by a run")
    rep.add_argument("--format", default="html", choices=list(_report_formats()),
                     help="the format to write (default html)")
    rep.add_argument("--output", default=None,
                     help="where to write (default: beside report.json as report.rerendered.<ext>, never over the "
                          "run's own files; - for stdout)")
    rep.add_argument("--force", action="store_true", help="allow --output to replace a file the run wrote")
    rep.set_defaults(handler=_report)

    srv = sub.add_parser("serve", help="run a reference implementation on its own",
                         description="Run a reference implementation as a process. Everything after SUBJECT goes to "
                                     "the subject: `serve hook-server --help` shows the hook server's own options.")
    srv.add_argument("subject", help=", ".join(sorted(SERVABLE)))
    srv.set_defaults(handler=_serve)

    jdg = sub.add_parser("judge", help="judge a recording (recording.jsonl.gz beside a report) again, without the "
                                       "subject",
                         description="Judge a run's recording again with this harness, without the subject: the "
                                     "scenarios whose roles have a playback run again against the recorded subject's "
                                     "side, the frames the subjects sent are judged again, and every verdict is "
                                     "compared with the recorded one (exit 0 all reproduced, 1 some differ, 2 not a "
                                     "recording). Options after -- go to the playback's pytest.")
    jdg.add_argument("recording", help="a recording.jsonl.gz written by a run (or an older run's recording.jsonl)")
    jdg.add_argument("--json", default=None, metavar="OUT", help="also write the comparison as JSON")
    jdg.add_argument("--report-dir", default=None, metavar="DIR",
                     help="keep the playback run's report and recording there (default: a temporary folder)")
    jdg.add_argument("--no-playback", action="store_true",
                     help="judge again only what needs no playback (the frames the subjects sent)")
    jdg.set_defaults(handler=_judge)

    rpl = sub.add_parser("replay", help="run a recording's scenarios again at a subject and compare the verdicts",
                         description="Run the scenarios of a recording again (default: its failing ones) at the "
                                     "target given (default: the recording's targets) and compare each verdict and "
                                     "the harness's side of the traffic with the recording. Options after -- go to "
                                     "pytest. The exit code is the run's.")
    rpl.add_argument("recording", help="a recording.jsonl.gz written by a run (or an older run's recording.jsonl)")
    rpl.add_argument("--target", action="append", default=[], metavar="NAME=SPEC", help="as for run")
    rpl.add_argument("--control", action="append", default=[], metavar="NAME=URL", help="as for run")
    rpl.add_argument("--subject-env", action="append", default=[], metavar="ROLE=NAME=VALUE", help="as for run")
    rpl.add_argument("--all", action="store_true", help="replay every scenario, not only the failing ones")
    rpl.add_argument("--req", action="append", default=[], metavar="ID", help="only these requirement ids or globs")
    rpl.add_argument("--report-dir", default=None, metavar="DIR", help="where the replay's report and recording go")
    rpl.set_defaults(handler=_replay)

    sub.add_parser("load", help="the load profile on Locust (`load --help`; docs/load.md)", add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    if argv[:2] == ["report", "merge"]:
        return _merge(argv[2:] + extra)
    if argv[:2] == ["report", "matrix"]:
        return _matrix(argv[2:] + extra)
    if argv[:1] == ["load"]:
        # The load profile parses its own options; it runs Locust (gevent) in subprocesses only.
        from .profiles.load.cli import main as load_main

        return load_main(argv[1:] + extra)
    if len(argv) >= 2 and argv[0] == "serve" and argv[1] in SERVABLE:
        # Everything after the subject is the subject's own command line (its --help included).
        return _serve(argparse.Namespace(subject=argv[1]), argv[2:] + extra)
    parser = build_parser()
    try:
        args, unknown = parser.parse_known_args(argv)
    except SystemExit as exc:  # argparse's own usage errors exit 2 already
        return int(exc.code or 0) and EXIT_USAGE
    if unknown and args.command != "serve":
        return _usage(f"{args.command}: unknown options {' '.join(unknown)} (put pytest options after --)")
    handler: Callable[[argparse.Namespace, list[str]], int] = args.handler  # each subcommand's, set by build_parser
    return handler(args, extra + (unknown if args.command == "serve" else []))


if __name__ == "__main__":
    sys.exit(main())
