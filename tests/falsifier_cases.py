"""The falsifying cases, generated: ``scenarios/falsifiers.toml`` and ``docs/falsifiers.md`` are written from the
tests that prove them, never by hand.

A case is one parametrized test that runs some requirements' scenarios against a committed broken subject and
asserts those requirements fail. The broken variants of the references are registered once, on the class that
breaks the rule (``simulator.reference.broken.registry``); the tests' variant tables are read from those
registrations. The other broken subjects (fake servers, broken parsers, a drop-hiding proxy) are named by the
tables of the tests that run them. This module reads every such table, so a case exists exactly when its test does.

    python tests/falsifier_cases.py --write    # rewrite both files after adding or changing a case

``tests/test_falsifiers.py`` fails when either file is not what this module writes.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from conformance_runs import load_module  # noqa: E402

TOML = ROOT / "scenarios" / "falsifiers.toml"
DOC = ROOT / "docs" / "falsifiers.md"

_SERVE = "python -m simulator serve"


@dataclass(frozen=True)
class Case:
    """One falsifying case as ``scenarios/falsifiers.toml`` writes it."""

    name: str
    kind: str
    subject: str
    proves: frozenset[str]
    test: str


def _module(relative: str) -> ModuleType:
    return load_module(ROOT / relative, "falsifier_table_" + relative.replace("/", "_").removesuffix(".py"))


def _node(path: str, test: str, param: str) -> str:
    return f"{path}::{test}[{param}]"


def _cases() -> Iterator[Case]:  # noqa: C901 - one stanza per proving test, read top to bottom
    """Every case, from the tables the proving tests parametrize over."""
    path = "tests/ccweb/test_ccweb_variants.py"
    ccweb = _module(path)
    for v, (caught, _) in ccweb.VARIANTS.items():
        yield Case(f"ccweb reference, variant {v}", "variant", f"{_SERVE} ccweb-mcp --variant {v}", frozenset(caught),
                   _node(path, "test_broken_variant_is_caught", v))
    for v, row in ccweb.REF_VARIANTS.items():
        yield Case(f"ccweb reference, variant {v}", "variant",
                   f"the embedded ccweb reference with CCWEB_REFERENCE_VARIANT={v}", frozenset(row[0]),
                   _node(path, "test_ref_variant_is_caught_with_a_fail_verdict", v))
    for v, row in ccweb.FALSIFIERS.items():
        yield Case(f"ccweb reference, variant {v} (ref)", "variant",
                   f"the embedded ccweb reference with CCWEB_REFERENCE_VARIANT={v}", frozenset(row[0]),
                   _node(path, "test_machine_variant_fails_the_requirement_it_breaks", v))

    path = "tests/probekit/test_probekit_variants.py"
    for n, case in _module(path).CASES.items():
        if case.variant:
            yield Case(f"probe-kit reference, case {n} (variant {case.variant} over {case.transport})", "variant",
                       f"{_SERVE} probekit-mcp --variant {case.variant} ({case.transport})",
                       frozenset(case.caught_by), _node(path, "test_broken_variant_is_caught", n))

    for path, test, bare_test, role, bare in (
            ("tests/hook_server/test_server_variants.py", "test_each_broken_variant_is_caught_by_its_requirement",
             "test_each_variant_of_a_server_without_features_is_caught_by_its_requirement", "hook-server",
             "without welcome features"),
            ("tests/hook_desktop/test_desktop_variants.py", "test_each_broken_variant_is_caught_by_its_requirement",
             "test_each_variant_of_a_desktop_without_features_is_caught_by_its_requirement", "desktop",
             "without its optional features")):
        module = _module(path)
        for v, (caught, _) in module.VARIANTS.items():
            yield Case(f"{role} reference, variant {v}", "variant", f"{_SERVE} {role} --variant {v}",
                       frozenset(caught), _node(path, test, v))
        for v, (caught, _) in module.BARE_VARIANTS.items():
            yield Case(f"{role} reference {bare}, variant {v}", "variant", f"{_SERVE} {role} --variant {v} ({bare})",
                       frozenset(caught), _node(path, bare_test, v))

    path = "tests/hook_desktop/test_desktop_rules_variants.py"
    for v, rid in _module(path).VARIANTS.items():
        yield Case(f"desktop reference, variant {v}", "variant", f"{_SERVE} desktop --variant {v}", frozenset({rid}),
                   _node(path, "test_each_variant_fails_exactly_its_rule", v))

    path = "tests/frames/test_frame_requirements_judge_subjects.py"
    for mode, rid in _module(path).PROVES.items():
        yield Case(f"fake hook server, mode {mode}", "fake", f"python tests/frames/fake_hook_server.py {mode}",
                   frozenset({rid}), _node(path, "test_a_fake_breaking_one_rule_of_accepting_frames_fails_exactly_"
                                              "that_requirement", mode))

    path = "tests/robustness/test_robustness_falsified.py"
    robust = _module(path)
    for mode, (rid, _) in robust.SERVER_FAKES.items():
        yield Case(f"fake hook server, mode {mode} (robustness)", "fake",
                   f"python tests/frames/fake_hook_server.py {mode}", frozenset({rid}),
                   _node(path, "test_a_hook_server_that_mishandles_garbage_fails_its_requirement", mode))
    for v, (rid, _) in robust.SERVER_VARIANTS.items():
        yield Case(f"hook-server reference, variant {v} (robustness)", "variant", f"{_SERVE} hook-server --variant {v}",
                   frozenset({rid}),
                   _node(path, "test_a_hook_server_that_loses_a_task_beside_garbage_fails_its_requirement", v))
    for v, (rid, _) in robust.DESKTOP_VARIANTS.items():
        yield Case(f"desktop reference, variant {v} (robustness)", "variant", f"{_SERVE} desktop --variant {v}",
                   frozenset({rid}), _node(path, "test_a_desktop_that_mishandles_garbage_fails_its_requirement", v))

    path = "tests/faults/test_faults_desktop_falsified.py"
    for v, (caught, _) in _module(path).VARIANTS.items():
        yield Case(f"desktop reference, variant {v} (fault profile)", "variant", f"{_SERVE} desktop --variant {v}",
                   frozenset(caught),
                   _node(path, "test_a_desktop_that_mishandles_a_dropped_connection_fails_its_requirement", v))
    path = "tests/faults/test_faults_falsified.py"
    for v, (caught, _) in _module(path).VARIANTS.items():
        yield Case(f"hook-server reference, variant {v} (fault profile)", "variant",
                   f"{_SERVE} hook-server --variant {v}", frozenset(caught),
                   _node(path, "test_a_hook_server_that_loses_or_duplicates_across_drops_fails_its_requirement", v))
    path = "tests/faults/test_faults_kill_falsified.py"
    for v, (rid, _) in _module(path).VARIANTS.items():
        yield Case(f"hook-server reference, variant {v}, SIGKILLed and restarted", "variant",
                   f"{_SERVE} hook-server --variant {v} (as --target hook-server=cmd:…)", frozenset({rid}),
                   _node(path, "test_a_hook_server_that_breaks_durability_across_a_kill_fails_its_requirement", v))

    path = "tests/robustness/test_robustness_mcp_falsified.py"
    robust_mcp = _module(path)
    labels = {"ccweb": ("ccweb", "ccweb-mcp"), "probekit": ("probe-kit", "probekit-mcp")}
    for n, (role, v, transport, rid, _) in robust_mcp.VARIANTS.items():
        label, serve = labels[role]
        yield Case(f"{label} reference, variant {v} (robustness, over {transport})", "variant",
                   f"{_SERVE} {serve} --variant {v}", frozenset({rid}),
                   _node(path, "test_an_mcp_reference_variant_that_mishandles_garbage_fails_its_requirement", n))
    for n, row in robust_mcp.FAKES.items():
        yield Case(f"fake MCP server, case {n} (robustness)", "fake", "python tests/robustness/fake_mcp_server.py",
                   frozenset({row[2]}),
                   _node(path, "test_an_mcp_fake_that_shapes_its_errors_wrongly_fails_its_requirement", n))

    path = "tests/frames/test_parser_requirements_falsified.py"
    for parser, rid in _module(path).PROVES.items():
        yield Case(f"broken parser {parser}", "parser",
                   f"pytest tests/hook/test_frame_features.py --hook-parser tests.frames.broken_parsers:{parser}",
                   frozenset({rid}), _node(path, "test_a_broken_parser_fails_exactly_its_requirement", parser))
    path = "tests/frames/test_frame_requirements_falsified.py"
    for n, hidden in _module(path).PROVES.items():
        yield Case(f"hook-server reference behind the drop-hiding control proxy, {n}", "proxy",
                   f"{_SERVE} hook-server, its control API behind tests/frames/drop_hiding_proxy.py --hide <{n}>",
                   frozenset(hidden), _node(path, "test_the_hidden_drops_fail_exactly_their_requirements", n))


def cases() -> list[Case]:
    """Every case, ordered by its test node id."""
    return sorted(_cases(), key=lambda c: c.test)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_toml(all_cases: list[Case]) -> str:
    """``scenarios/falsifiers.toml``: one ``[[case]]`` per case."""
    lines = [
        "# Falsifying cases: committed subjects that break a requirement, each proven by a test that runs the",
        "# requirement's scenarios against it and sees that requirement fail. `python -m simulator list",
        "# --falsifiability` and every report count, per spec family and level, the requirements with a case here.",
        "# GENERATED by `python tests/falsifier_cases.py --write` from the tests' tables and the broken variants'",
        "# registrations (simulator/reference/broken); do not edit by hand.",
    ]
    for case in all_cases:
        lines += ["", "[[case]]", f"name = {_quote(case.name)}", f"kind = {_quote(case.kind)}",
                  f"subject = {_quote(case.subject)}",
                  "proves = [" + ", ".join(_quote(p) for p in sorted(case.proves)) + "]", f"test = {_quote(case.test)}"]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_doc() -> str:
    """``docs/falsifiers.md``: every registered broken variant of every reference, by subject."""
    from simulator.reference.broken import SUBJECTS, cases as registered

    lines = [
        "# Broken variants of the references",
        "",
        "GENERATED by `python tests/falsifier_cases.py --write` from the registrations in",
        "`simulator/reference/broken/`; do not edit by hand.",
        "",
        "Each variant is the correct reference with one rule broken, run with `python -m simulator serve SUBJECT",
        "--variant NAME`. *Breaks*: the requirements that must fail against it; *also*: those that may fail with",
        "them because the one broken rule shows there too; *run*: how the proving test runs it (`features`: the",
        "subject's conformance features; `bare`: the same without the subject's optional features; other names:",
        "one profile or test). Every variant is run by a test that asserts exactly this (`scenarios/falsifiers.toml`).",
    ]
    for subject in SUBJECTS:
        rows = registered(subject)
        lines += ["", f"## {subject} ({len(rows)})", "", "| variant | run | breaks | also | clause |", "|---|---|---|---|---|"]
        for c in rows:
            lines.append(f"| `{c.name}` | {c.run} | {', '.join(sorted(c.breaks))} | {', '.join(sorted(c.also))} | "
                         f"{_cell(c.clause)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if argv != ["--write"]:
        print("usage: python tests/falsifier_cases.py --write", file=sys.stderr)
        return 2
    TOML.write_text(render_toml(cases()), encoding="utf-8")
    DOC.write_text(render_doc(), encoding="utf-8")
    print(f"wrote {TOML.relative_to(ROOT)} and {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
