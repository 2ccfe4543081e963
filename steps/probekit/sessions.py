"""Probe-kit sessions: the driver fixture, the session a scenario opens, the client's answers, the design's schemas
a feature names, and the contrast call of a toolset scenario (``simulator.drivers.probekit``)."""

from __future__ import annotations

import pytest
import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.probekit import HarnessSubject, ProbeKitDriver
from simulator.subjects.targets import Role

from .values import json_value


@pytest.fixture
def probekit(request: pytest.FixtureRequest, harness_config, subjects, wire_log, harness,
             evidence) -> ProbeKitDriver:
    """The scenario's probe-kit driver, reaching the subject through the harness's fixtures."""
    subject = HarnessSubject(subjects=subjects, wire_log=wire_log, step_timeout=harness_config.step_timeout,
                             target=harness_config.target(Role.PROBEKIT).raw, note_subject=harness.note_subject,
                             add_finalizer=request.addfinalizer, evidence=evidence,
                             options=harness_config.subject_options.get(Role.PROBEKIT, {}))
    return ProbeKitDriver(subject, step_timeout=harness_config.step_timeout)


@bdd.given(parsers.parse('a probe-kit MCP session with MCP_TOOLSET "{toolset}"'))
def given_session(probekit: ProbeKitDriver, toolset: str) -> None:
    probekit.open_session(toolset)


@bdd.given(parsers.parse('a probe-kit MCP session over stdio with MCP_TOOLSET "{toolset}"'))
def given_session_stdio(probekit: ProbeKitDriver, toolset: str) -> None:
    probekit.open_session(toolset, stdio=True)


@bdd.given(parsers.parse('a probe-kit MCP session with MCP_TOOLSET "{toolset}" and MCP_SHOW_ALL "{show}"'))
def given_session_show_all(probekit: ProbeKitDriver, toolset: str, show: str) -> None:
    probekit.open_session(toolset, show_all=show)


@bdd.given(parsers.parse('a probe-kit MCP session with MCP_TOOLSET "{toolset}" whose client declares elicitation '
                         '"{mode}"'))
def given_session_elicit(probekit: ProbeKitDriver, toolset: str, mode: str) -> None:
    probekit.open_session(toolset, elicitation=mode)


@bdd.given("a probe-kit MCP session with no MCP_TOOLSET")
def given_session_default(probekit: ProbeKitDriver) -> None:
    probekit.open_default_session()


@bdd.given(parsers.parse('the client answers every form elicitation by filling its fields with "{text}"'))
def given_answers(probekit: ProbeKitDriver, text: str) -> None:
    probekit.answer_forms_with(text)


@bdd.given(parsers.parse('the design\'s schema for "{glob}":'))
def given_design_schema(probekit: ProbeKitDriver, glob: str, docstring: str) -> None:
    probekit.design.add(glob, json_value(docstring))


_CONTRAST_JSON = (r'the call of "(?P<tool>[^"]+)" with (?P<args>\{.*\}) succeeds on a probe-kit subject with '
                  r'MCP_TOOLSET "(?P<toolset>[^"]+)"$')
_CONTRAST_VALID = (r'the call of "(?P<tool>[^"]+)" with arguments valid against its input schema, strings set to '
                   r'"(?P<text>[^"]*)", succeeds on a probe-kit subject with MCP_TOOLSET "(?P<toolset>[^"]+)"$')


@bdd.given(parsers.re(_CONTRAST_JSON))
def given_contrast_json(probekit: ProbeKitDriver, tool: str, args: str, toolset: str) -> None:
    probekit.prepare_contrast(tool, toolset, arguments=json_value(args))


@bdd.given(parsers.re(_CONTRAST_VALID))
def given_contrast_valid(probekit: ProbeKitDriver, tool: str, text: str, toolset: str) -> None:
    probekit.prepare_contrast(tool, toolset, text=text)
