"""scenarios/falsifiers.toml (simulator/falsifiability.py) agrees with the tests that prove its cases:
every case names a test that exists and asserts exactly the requirements the case says it proves, every broken
variant those tests run is listed, and every requirement a case proves is in the registry."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from conformance_runs import load_module

from simulator.falsifiability import figure, load_falsifiers, render_figure
from simulator.requirements import load_registry

ROOT = Path(__file__).resolve().parents[1]
CASES = load_falsifiers(ROOT / "scenarios" / "falsifiers.toml")


def _module(relative: str) -> ModuleType:
    return load_module(ROOT / relative, "falsifier_table_" + relative.replace("/", "_").removesuffix(".py"))


def _expected() -> dict[str, frozenset[str]]:
    """test node id → the requirements it asserts the subject fails, read from the tests' own tables."""
    out: dict[str, frozenset[str]] = {}
    path = "tests/ccweb/test_ccweb_variants.py"
    ccweb = _module(path)
    out |= {f"{path}::test_broken_variant_is_caught[{v}]": frozenset(c) for v, (c, _) in ccweb.VARIANTS.items()}
    out |= {f"{path}::test_ref_variant_is_caught_with_a_fail_verdict[{v}]": frozenset(t[0])
            for v, t in ccweb.REF_VARIANTS.items()}
    out |= {f"{path}::test_machine_variant_fails_the_requirement_it_breaks[{v}]": frozenset(t[0])
            for v, t in ccweb.FALSIFIERS.items()}
    path = "tests/probekit/test_probekit_variants.py"
    out |= {f"{path}::test_broken_variant_is_caught[{n}]": frozenset(c.caught_by)
            for n, c in _module(path).CASES.items() if c.variant}
    for path, test in (("tests/hook_server/test_server_variants.py", "test_each_broken_variant_is_caught_by_its_requirement"),
                       ("tests/hook_desktop/test_desktop_variants.py", "test_each_broken_variant_is_caught_by_its_requirement")):
        out |= {f"{path}::{test}[{v}]": frozenset(c) for v, (c, _) in _module(path).VARIANTS.items()}
    path = "tests/hook_server/test_server_variants.py"
    out |= {f"{path}::test_each_variant_of_a_server_without_features_is_caught_by_its_requirement[{v}]": frozenset(c)
            for v, (c, _) in _module(path).BARE_VARIANTS.items()}
    path = "tests/hook_desktop/test_desktop_variants.py"
    out |= {f"{path}::test_each_variant_of_a_desktop_without_features_is_caught_by_its_requirement[{v}]": frozenset(c)
            for v, (c, _) in _module(path).BARE_VARIANTS.items()}
    path = "tests/hook_desktop/test_desktop_rules_variants.py"
    out |= {f"{path}::test_each_variant_fails_exactly_its_rule[{v}]": frozenset({rid})
            for v, rid in _module(path).VARIANTS.items()}
    path = "tests/frames/test_frame_requirements_judge_subjects.py"
    out |= {f"{path}::test_a_fake_breaking_one_rule_of_accepting_frames_fails_exactly_that_requirement[{m}]":
            frozenset({rid}) for m, rid in _module(path).PROVES.items()}
    path = "tests/robustness/test_robustness_falsified.py"
    robust = _module(path)
    out |= {f"{path}::test_a_hook_server_that_mishandles_garbage_fails_its_requirement[{m}]": frozenset({rid})
            for m, (rid, _) in robust.SERVER_FAKES.items()}
    out |= {f"{path}::test_a_hook_server_that_loses_a_task_beside_garbage_fails_its_requirement[{v}]": frozenset({rid})
            for v, (rid, _) in robust.SERVER_VARIANTS.items()}
    out |= {f"{path}::test_a_desktop_that_mishandles_garbage_fails_its_requirement[{v}]": frozenset({rid})
            for v, (rid, _) in robust.DESKTOP_VARIANTS.items()}
    path = "tests/faults/test_faults_desktop_falsified.py"
    out |= {f"{path}::test_a_desktop_that_mishandles_a_dropped_connection_fails_its_requirement[{v}]": frozenset(c)
            for v, (c, _) in _module(path).VARIANTS.items()}
    path = "tests/faults/test_faults_falsified.py"
    out |= {f"{path}::test_a_hook_server_that_loses_or_duplicates_across_drops_fails_its_requirement[{v}]":
            frozenset(caught) for v, (caught, _) in _module(path).VARIANTS.items()}
    path = "tests/robustness/test_robustness_mcp_falsified.py"
    robust_mcp = _module(path)
    out |= {f"{path}::test_an_mcp_reference_variant_that_mishandles_garbage_fails_its_requirement[{n}]":
            frozenset({t[3]}) for n, t in robust_mcp.VARIANTS.items()}
    out |= {f"{path}::test_an_mcp_fake_that_shapes_its_errors_wrongly_fails_its_requirement[{n}]": frozenset({t[2]})
            for n, t in robust_mcp.FAKES.items()}
    path = "tests/frames/test_parser_requirements_falsified.py"
    out |= {f"{path}::test_a_broken_parser_fails_exactly_its_requirement[{p}]": frozenset({rid})
            for p, rid in _module(path).PROVES.items()}
    path = "tests/frames/test_frame_requirements_falsified.py"
    out |= {f"{path}::test_the_hidden_drops_fail_exactly_their_requirements[{n}]": frozenset(h)
            for n, h in _module(path).PROVES.items()}
    path = "tests/faults/test_faults_kill_falsified.py"
    out |= {f"{path}::test_a_hook_server_that_breaks_durability_across_a_kill_fails_its_requirement[{v}]":
            frozenset({rid}) for v, (rid, _) in _module(path).VARIANTS.items()}
    return out


def test_every_case_is_a_test_that_asserts_what_the_case_proves_and_every_such_test_is_a_case():
    listed = {case.test: frozenset(case.proves) for case in CASES}
    assert len(listed) == len(CASES), "a test is listed twice"
    expected = _expected()
    assert listed == expected, {
        "listed but not asserted by that test": {t: sorted(p) for t, p in listed.items() if expected.get(t) != p},
        "asserted by a test but not listed": {t: sorted(p) for t, p in expected.items() if listed.get(t) != p},
    }


def test_every_proven_requirement_is_in_the_registry_and_the_figure_counts_it():
    registry, _ = load_registry(ROOT / "scenarios" / "requirements")
    proven = {rid for case in CASES for rid in case.proves}
    assert proven <= set(registry), sorted(proven - set(registry))
    fig = figure({rid: req.level.value for rid, req in registry.items()}, CASES, "scenarios/falsifiers.toml")
    assert fig["proven"] == len(proven) and fig["total"] == len(registry)
    assert sum(row["total"] for row in fig["rows"]) == len(registry)
    unproven = {rid for row in fig["rows"] for rid in row["unproven"]}
    assert unproven == set(registry) - proven
    assert ("not proven: " in render_figure(fig, list_unproven=True)) == bool(unproven)
    missing = figure({rid: req.level.value for rid, req in registry.items()}, CASES[1:], "scenarios/falsifiers.toml")
    shown = render_figure(missing, list_unproven=True)
    assert all(f"not proven: {rid}" in shown for rid in set(CASES[0].proves) - {r for c in CASES[1:] for r in c.proves})


def test_the_figure_ignores_cases_for_requirements_outside_the_run():
    case = CASES[0]
    fig = figure({"X-ONLY-01": "must"}, [case], "here")
    assert (fig["proven"], fig["total"], fig["rows"][0]["unproven"]) == (0, 1, ["X-ONLY-01"])
