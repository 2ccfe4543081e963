"""The rules of the parser's programming interface (registry ``judged_on = "parser"``: nothing on the wire shows
them, so no conformance run judges them on a subject) are seen to fail: the frame features are run
on a broken parser (tests/frames/broken_parsers.py) through ``--hook-parser``, the option by which a parser of
one's own is judged (tests/hook/conftest.py), in a separate pytest process, and the requirements of the failing
cases (the ``requirement`` property each case records in the JUnit XML) are the one the parser breaks (and, where
a case of another rule is given in the input form a parser refuses, that rule: ``MAY_ALSO_FAIL``).
"""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conformance_runs import PYTHON, ROOT, child_env

from simulator.verdicts.requirements import JudgedOn, load_registry

#: broken parser (tests.frames.broken_parsers:NAME) → the one requirement it breaks.
PROVES: dict[str, str] = {
    "objects_refused": "HOOK-FRAME-ENV-INPUT-01",
    "unknown_envelope_keys_dropped": "HOOK-FRAME-ENV-UNKNOWN-KEYS-02",
}
#: broken parser → requirements it may fail too, and why (what the test allows beside the one it proves).
MAY_ALSO_FAIL: dict[str, dict[str, str]] = {
    "objects_refused": {"HOOK-FRAME-ENV-VERSION-02": "its case 'v given as the float 1.0 in an object' is given in "
                                                     "the input form this parser refuses"},
}

pytestmark = pytest.mark.timeout(600)


def _failing_requirements(parser: str, workdir: Path) -> tuple[dict[str, int], int, str]:
    """Run the frame features on ``parser``: the failing cases counted per requirement, how many ran, the output."""
    junit = workdir / f"{parser}.xml"
    proc = subprocess.run(
        [PYTHON, "-m", "pytest", "tests/hook/test_frame_features.py", "-q", "-p", "no:cacheprovider",
         "-p", "no:randomly", f"--hook-parser=tests.frames.broken_parsers:{parser}", f"--junitxml={junit}",
         "-o", "junit_family=xunit1"],  # record_property needs xunit1
        cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=540)
    failing: dict[str, int] = {}
    ran = 0
    for case in ET.parse(junit).getroot().iter("testcase"):
        ran += 1
        if case.find("failure") is None and case.find("error") is None:
            continue
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        rid = props.get("requirement") or f"(no requirement: {case.get('name')})"
        failing[rid] = failing.get(rid, 0) + 1
    return failing, ran, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_the_table_covers_every_parser_rule():
    registry, _ = load_registry(ROOT / "scenarios" / "requirements")
    assert set(PROVES.values()) == {rid for rid, r in registry.items() if r.judged_on is JudgedOn.PARSER}


@pytest.mark.parametrize("parser", sorted(PROVES))
def test_a_broken_parser_fails_exactly_its_requirement(parser: str, tmp_path: Path) -> None:
    failing, ran, output = _failing_requirements(parser, tmp_path)
    assert ran > 1000, output  # the whole frame features ran, not a collection error
    assert PROVES[parser] in failing, (failing, output)
    assert set(failing) - {PROVES[parser]} <= set(MAY_ALSO_FAIL.get(parser, {})), (failing, output)
