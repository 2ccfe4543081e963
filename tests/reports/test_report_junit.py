"""JUnit XML: well-formed XML 1.0 whatever the wire log held, one suite per feature, one case per scenario,
the properties (of the run on the first suite, of a scenario on its case when it did not pass), and the verdict →
outcome mapping."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from reports.junit import RUN_SUITE, case_classname, case_name, render_junit
from simulator.verdicts.results import Verdict


def _parse(record):
    return ET.fromstring(render_junit(record).encode("utf-8"))


def _cases(root):
    return {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}


def _props(case):
    return {p.get("name"): p.get("value") for p in case.find("properties")}


def test_parses_with_one_suite_per_feature_and_one_case_per_scenario(record):
    text = render_junit(record)
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')
    root = ET.fromstring(text.encode("utf-8"))
    features = list(dict.fromkeys(s.feature for s in record.scenarios))
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == features + [RUN_SUITE]
    for suite in suites[:-1]:
        cases = suite.findall("testcase")
        assert {c.get("classname") for c in cases} == {case_classname(suite.get("name"))}
        assert [c.get("name") for c in cases] == [case_name(s) for s in record.scenarios
                                                  if s.feature == suite.get("name")]
    assert sum(int(s.get("tests")) for s in suites) == int(root.get("tests")) == len(record.scenarios) + 2


def test_every_case_not_passing_has_requirement_level_verdict_and_nodeid(record):
    cases = _cases(_parse(record))
    for s in record.scenarios:
        case = cases[(case_classname(s.feature), case_name(s))]
        if s.verdict is Verdict.PASS:  # what CI views show of a pass: its classname, name and time
            assert case.find("properties") is None and set(case.attrib) == {"classname", "name", "time"}
            continue
        props = _props(case)
        assert props["requirement"] == s.requirement
        assert props["level"] == s.level
        assert props["verdict"] == s.verdict.value
        assert props["nodeid"] == s.nodeid


def test_the_run_properties_are_on_the_first_suite_only(record):
    suites = _parse(record).findall("testsuite")
    props = {p.get("name"): p.get("value") for p in suites[0].find("properties")}
    assert props["harness.version"] == "0.1.0" and props["run.exitCode"] == str(record.exit_code)
    assert {k for k in props if k.startswith("spec.")} == {f"spec.{d}" for d in record.spec_revisions}
    assert all(suite.find("properties") is None for suite in suites[1:])


def test_verdicts_map_to_junit_outcomes(record):
    cases = _cases(_parse(record))
    by_verdict = {}
    for s in record.scenarios:
        by_verdict.setdefault((s.verdict, s.baselined), []).append(cases[(case_classname(s.feature), case_name(s))])
    for case in by_verdict[(Verdict.PASS, False)]:
        assert [c.tag for c in case] == []
    for verdict in (Verdict.FAIL, Verdict.NOT_TESTABLE, Verdict.TIMEOUT):
        case = by_verdict[(verdict, False)][0]
        assert case.find("failure").get("type") == verdict.value
        assert case.find("error") is None
    error = by_verdict[(Verdict.ERROR, False)][0].find("error")
    assert error.get("message") == "TargetError: the reference server exited with status 70"
    assert "Traceback" in error.text
    skipped = by_verdict[(Verdict.NOT_APPLICABLE, False)][0].find("skipped")
    assert skipped.get("message") == 'the subject did not declare the capability "sampling"'
    warn = by_verdict[(Verdict.WARN, False)][0]
    assert warn.find("failure") is None and warn.find("skipped") is None
    assert "warning" in warn.find("system-out").text
    baselined = by_verdict[(Verdict.FAIL, True)][0]
    assert baselined.find("failure") is None
    assert baselined.find("skipped").get("message") == "baseline: the subject accepted an unknown bindingId"


def test_warn_fails_only_under_strict(record):
    record.strict = True
    cases = _cases(_parse(record))
    warn = next(s for s in record.scenarios if s.verdict is Verdict.WARN)
    failure = cases[(case_classname(warn.feature), case_name(warn))].find("failure")
    assert failure is not None and failure.get("type") == "warn"


def test_failure_carries_reason_evidence_and_the_wire_log(record):
    failing = record.scenarios[3]
    failure = _cases(_parse(record))[(case_classname(failing.feature), case_name(failing))].find("failure")
    # A multi-line reason: the message is its first line, the body has it whole.
    first_line = "expected the frame to be rejected at /payload/reason, but the subject accepted it"
    assert failure.get("message") == first_line + " …"
    assert "(it answered with task.ack | status=ok)" in failure.text
    assert "assert verdict == 'rejected' <got 'accepted'>" in failure.text
    assert "wire log (6 events):" in failure.text
    # The hostile frame: XML-forbidden characters are visible escapes, everything else is as sent.
    assert 'bad \\udc80 byte</script><!-- | a<b & c' in failure.text
    assert "second line 第二行 ✓ 😀\r\n" in failure.text  # the CR survives (written as &#13;)
    assert "third\tline\\u001b[31m\\u0085\u2028end" in failure.text
    assert "[/payload/reason LINKAGE: reason must not contain control characters]" in failure.text


def test_counts_on_suites_match_their_cases(record):
    root = _parse(record)
    for suite in [root, *root.findall("testsuite")]:
        cases = list(suite.iter("testcase"))
        assert int(suite.get("tests")) == len(cases)
        assert int(suite.get("failures")) == sum(c.find("failure") is not None for c in cases)
        assert int(suite.get("errors")) == sum(c.find("error") is not None for c in cases)
        assert int(suite.get("skipped")) == sum(c.find("skipped") is not None for c in cases)


def test_run_level_failures_are_testcases(record):
    run = _parse(record).find(f"testsuite[@name='{RUN_SUITE}']")
    names = [c.get("name") for c in run.findall("testcase")]
    assert names == ["uncovered requirement: PROBEKIT-TOOLS-LIST-01", "stale baseline entry: HOOK-FRAME-PREFS-SET-02"]
    record.stale_baseline = []
    record.requirements = [r for r in record.requirements if r.id != "PROBEKIT-TOOLS-LIST-01"]
    assert _parse(record).find(f"testsuite[@name='{RUN_SUITE}']") is None


def test_every_character_xml_forbids_is_escaped(record):
    forbidden = "".join(map(chr, [*range(0, 9), 0x0B, 0x0C, *range(0x0E, 0x20), 0xD800, 0xDFFF, 0xFFFE, 0xFFFF]))
    record.scenarios[0].name = "name " + forbidden
    record.scenarios[3].reason = "reason " + forbidden
    record.subjects[0] = type(record.subjects[0])("hook-server", "ws://x/" + forbidden, {})
    text = render_junit(record)
    text.encode("utf-8")
    root = ET.fromstring(text.encode("utf-8"))
    assert any("name \\u0000\\u0001" in c.get("name") for c in root.iter("testcase"))


def test_ci_views_see_the_spec_family_and_the_requirement_id():
    """``classname`` = the spec family / feature, ``name`` = ``<REQ-ID> <scenario title>``."""
    assert case_classname("features/hook/server/delivery.feature") == "hook.server.delivery"
    assert case_classname("features/ccweb/calls.feature") == "ccweb.calls"
    assert case_classname("features\\probekit\\tasks.feature") == "probekit.tasks"
    assert case_classname("tests/x/test_y.py") == "tests.x.test_y"


def test_case_names_lead_with_the_requirement(record):
    root = _parse(record)
    names = [c.get("name") for c in root.iter("testcase") if c.get("classname") != RUN_SUITE]
    with_req = [s for s in record.scenarios if s.requirement]
    assert with_req, "the sample record has scenarios with a requirement"
    for s in with_req:
        assert f"{s.requirement} {s.name}" in names
    for s in record.scenarios:
        if not s.requirement:
            assert s.name in names
