"""Targets and configuration: every spec form, clear errors naming the bad part, file < command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulator.subjects.config import build_config, default_formats, load_file_config, report_formats
from simulator.errors import ConfigError
from simulator.subjects.targets import Role, TargetKind, parse_target, parse_target_assignment


@pytest.mark.parametrize(
    "text, role, kind, attrs",
    [
        ("hook-server=ref", Role.HOOK_SERVER, TargetKind.REF, {}),
        ("hook-server=ws://127.0.0.1:9000/hook", Role.HOOK_SERVER, TargetKind.WS, {"url": "ws://127.0.0.1:9000/hook"}),
        ("hook-server=wss://example.test/hook", Role.HOOK_SERVER, TargetKind.WS, {}),
        ("desktop=listen:127.0.0.1:9100", Role.DESKTOP, TargetKind.LISTEN, {"host": "127.0.0.1", "port": 9100}),
        ("desktop=listen:[::1]:0", Role.DESKTOP, TargetKind.LISTEN, {"host": "::1", "port": 0}),
        ("ccweb=stdio:node 'my server.js' --flag", Role.CCWEB, TargetKind.STDIO,
         {"command": ("node", "my server.js", "--flag")}),
        ("probekit=http://127.0.0.1:3000/mcp", Role.PROBEKIT, TargetKind.HTTP, {"url": "http://127.0.0.1:3000/mcp"}),
    ],
)
def test_target_forms(text, role, kind, attrs):
    t = parse_target_assignment(text)
    assert (t.role, t.kind) == (role, kind)
    for key, value in attrs.items():
        assert getattr(t, key) == value
    assert t.raw == text.split("=", 1)[1]


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("hook-server", "expected NAME=SPEC"),
        ("printer=ref", "unknown target role 'printer'"),
        ("hook-server=stdio:node x.js", "does not fit this role"),
        ("desktop=ws://x/hook", "does not fit this role"),
        ("ccweb=listen:1.2.3.4:80", "does not fit this role"),
        ("desktop=listen:nohostport", "not listen:HOST:PORT"),
        ("desktop=listen:h:99999", "not listen:HOST:PORT"),
        ("ccweb=stdio:", "names no command"),
        ("ccweb=stdio:node 'unclosed", "cannot split"),
        ("hook-server=ws://", "has no host"),
        ("hook-server=ftp://x", "is not one of"),
        ("hook-server=", "empty spec"),
    ],
)
def test_target_errors_name_the_problem(text, fragment):
    with pytest.raises(ConfigError) as info:
        parse_target_assignment(text)
    assert fragment in str(info.value)


def test_defaults_are_the_embedded_references():
    cfg = build_config({})
    assert all(cfg.target(role).is_reference for role in Role)
    assert cfg.step_timeout == 5.0 and not cfg.strict and cfg.controls == {}


def test_file_then_command_line(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.simulator]\nstrict = true\nbaseline = "bl.toml"\nreport_dir = "out"\n'
        '[tool.simulator.targets]\nhook-server = "ws://127.0.0.1:9000/hook"\nccweb = "stdio:node s.js"\n'
        '[tool.simulator.controls]\nhook-server = "http://127.0.0.1:9001"\n'
        '[tool.simulator.timeouts]\nstep = 2.5\nscenario = 30\n'
        '[tool.simulator.select]\nmarkers = "must"\nreq = ["HOOK-*"]\n',
        encoding="utf-8",
    )
    table, source = load_file_config(None, search_dir=tmp_path)
    assert source and source.endswith("[tool.simulator]")
    cfg = build_config(table, source=source, cli_targets=["hook-server=ws://10.0.0.1:1/h"], step_timeout=1.0,
                       base_dir=tmp_path)
    assert cfg.target("hook-server").url == "ws://10.0.0.1:1/h"  # the command line wins
    assert cfg.target("ccweb").command == ("node", "s.js")
    assert cfg.control("hook-server") == "http://127.0.0.1:9001"
    assert (cfg.step_timeout, cfg.scenario_timeout, cfg.strict) == (1.0, 30.0, True)
    assert cfg.baseline == tmp_path / "bl.toml" and cfg.report_dir == tmp_path / "out"
    assert cfg.markers == "must" and cfg.req == ("HOOK-*",)


@pytest.mark.parametrize(
    "toml, fragment",
    [
        ("colour = 1", "unknown key 'colour'"),
        ("[timeouts]\nstep = 1\nstpe = 2", "unknown key 'stpe'"),
        ("[select]\nmarker = 'must'", "unknown key 'marker'"),
        ("[timeouts]\nstep = -1", "positive number of seconds"),
        ("[targets]\nhook-server = 5", "targets.hook-server must be a string"),
        ("[controls]\nhook-server = 'ftp://x'", "http(s) URL"),
        ("strict = 'yes'", "strict must be true or false"),
        ("formats = ['json', 'pdf']", "formats: unknown report format 'pdf' (known: json, junit, md, html, "
                                      "cucumber, recording)"),
        ("formats = []", "formats: names no report format"),
        ("formats = 3", "formats: expected a list of report format names"),
    ],
)
def test_config_file_errors_name_the_key(tmp_path: Path, toml, fragment):
    path = tmp_path / "sim.toml"
    path.write_text(toml, encoding="utf-8")
    table, source = load_file_config(path)
    with pytest.raises(ConfigError) as info:
        build_config(table, source=source)
    assert fragment in str(info.value)


def test_report_formats_from_file_and_command_line(tmp_path: Path):
    """``formats`` (a list, or a comma-separated string like ``--formats``): what a run writes, each once, in the
    order of ``report_formats``; the command line wins; by default every format but cucumber."""
    assert build_config({}).formats == default_formats() == ("json", "junit", "md", "html", "recording")
    assert report_formats() == ("json", "junit", "md", "html", "cucumber", "recording")
    path = tmp_path / "sim.toml"
    path.write_text('formats = ["recording", "html", "html"]\n', encoding="utf-8")
    table, source = load_file_config(path)
    assert build_config(table, source=source).formats == ("html", "recording")
    assert build_config(table, source=source, formats=" cucumber, json").formats == ("json", "cucumber")
    assert build_config({"formats": "md"}).formats == ("md",)
    with pytest.raises(ConfigError, match=r"^--formats 'json,,xml': unknown report format 'xml' \(known: json, "):
        build_config(table, source=source, formats="json,,xml")


def test_missing_and_broken_config_files(tmp_path: Path):
    with pytest.raises(ConfigError, match="no such file"):
        load_file_config(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[unclosed", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_file_config(bad)


def test_token_from_environment(monkeypatch):
    monkeypatch.setenv("HOOK_CONFORMANCE_TOKEN", "from-env")
    assert build_config({}).hook_token == "from-env"
    assert build_config({}, hook_token="cli").hook_token == "cli"


def test_listen_and_ws_parse_directly():
    assert parse_target("desktop", "listen:0.0.0.0:0").port == 0


def test_subject_env_from_file_and_command_line(tmp_path: Path):
    path = tmp_path / "sim.toml"
    path.write_text('[subject_env.probekit]\nMCP_TOOLSET = "core"\nMCP_DEBUG = "1"\n', encoding="utf-8")
    table, source = load_file_config(path)
    cfg = build_config(table, source=source, cli_subject_env=["probekit=MCP_TOOLSET=ui"])
    assert cfg.subject_env[Role.PROBEKIT] == {"MCP_TOOLSET": "ui", "MCP_DEBUG": "1"}


@pytest.mark.parametrize("text, fragment", [("probekit", "ROLE=NAME=VALUE"), ("probekit=X", "ROLE=NAME=VALUE"),
                                             ("printer=A=B", "unknown role")])
def test_subject_env_errors(text, fragment):
    with pytest.raises(ConfigError) as info:
        build_config({}, cli_subject_env=[text])
    assert fragment in str(info.value)


def test_subject_options_from_file_and_command_line(tmp_path: Path):
    path = tmp_path / "sim.toml"
    path.write_text('[subject_options.probekit]\nelicit-tool = "start_ui"\nother = "x"\n', encoding="utf-8")
    table, source = load_file_config(path)
    cfg = build_config(table, source=source, cli_subject_options=["probekit.elicit-tool=start_feature"])
    assert cfg.subject_options[Role.PROBEKIT] == {"elicit-tool": "start_feature", "other": "x"}


@pytest.mark.parametrize("text, fragment", [("probekit", "ROLE.NAME=VALUE"), ("probekit=x", "ROLE.NAME=VALUE"),
                                             ("printer.a=b", "unknown role")])
def test_subject_option_errors(text, fragment):
    with pytest.raises(ConfigError) as info:
        build_config({}, cli_subject_options=[text])
    assert fragment in str(info.value)


def test_http_subject_with_another_environment_is_not_testable():
    """The environment of an HTTP subject is the run's configuration (--subject-env), not something the subject
    declared: a scenario needing another one is not testable in this run (docs/targets.md "Verdicts")."""
    from simulator.errors import NotTestable
    from simulator.harness.subjects import Subjects

    class Client:
        def connect_http(self, url):  # pragma: no cover - must not be reached
            raise AssertionError("connected despite the environment mismatch")

    cfg = build_config({}, cli_targets=["probekit=http://127.0.0.1:1/mcp"], cli_subject_env=["probekit=MCP_TOOLSET=ui"])
    with pytest.raises(NotTestable) as info:
        Subjects(cfg).connect_mcp("probekit", Client(), env={"MCP_TOOLSET": "core"})
    assert "MCP_TOOLSET=ui" in str(info.value) and "MCP_TOOLSET=core" in str(info.value)
    seen = []

    class Recorder:
        def connect_http(self, url):
            seen.append(url)

    Subjects(cfg).connect_mcp("probekit", Recorder(), env={"MCP_TOOLSET": "ui"})
    assert seen == ["http://127.0.0.1:1/mcp"]


# -- stdio subjects with a control API ----------------------------------------------------------------------------


def test_a_stdio_command_gets_the_address_the_harness_picked_and_auto_control_uses_it():
    config = build_config({}, cli_targets=["ccweb=stdio:my-server --control {control} --port={port}"],
                          cli_controls=["ccweb=auto"], pick_port=lambda: 43210)
    target = config.target("ccweb")
    assert target.command == ("my-server", "--control", "127.0.0.1:43210", "--port=43210")
    assert target.raw == "stdio:my-server --control {control} --port={port}"  # reports show what the user wrote
    assert config.control("ccweb") == "http://127.0.0.1:43210"


def test_a_placeholder_without_auto_keeps_an_explicit_control_url():
    config = build_config({}, cli_targets=["ccweb=stdio:srv {port}"], cli_controls=["ccweb=http://10.0.0.1:9"],
                          pick_port=lambda: 5000)
    assert config.target("ccweb").command == ("srv", "5000")
    assert config.control("ccweb") == "http://10.0.0.1:9"


def test_no_port_is_picked_without_a_placeholder():
    def never() -> int:
        raise AssertionError("a port was picked for a command without a placeholder")

    config = build_config({}, cli_targets=["ccweb=stdio:srv --x"], pick_port=never)
    assert config.target("ccweb").command == ("srv", "--x")


@pytest.mark.parametrize("target", ["ccweb=stdio:srv --x", "ccweb=http://127.0.0.1:1/mcp", "ccweb=ref"])
def test_auto_control_needs_a_placeholder(target):
    with pytest.raises(ConfigError, match=r"\{control\} or \{port\} placeholder"):
        build_config({}, cli_targets=[target], cli_controls=["ccweb=auto"], pick_port=lambda: 1)


def test_initialize_waits_the_step_limit_plus_a_start_up_allowance_only_for_a_spawned_subject():
    from simulator.subjects.targets import MCP_STARTUP_ALLOWANCE_S, mcp_initialize_timeout

    assert mcp_initialize_timeout(TargetKind.HTTP, 2.0) == 2.0
    assert mcp_initialize_timeout(TargetKind.STDIO, 2.0) == 2.0 + MCP_STARTUP_ALLOWANCE_S
    assert mcp_initialize_timeout(TargetKind.REF, 2.0) == 2.0
    assert mcp_initialize_timeout(TargetKind.REF, 2.0, spawned=True) == 2.0 + MCP_STARTUP_ALLOWANCE_S


def test_http_subject_without_a_declared_environment_is_not_testable_and_says_how_to_declare_it():
    """Nothing is assumed about an HTTP subject's environment (no MCP_TOOLSET=full by default)."""
    from simulator.errors import NotTestable
    from simulator.harness.subjects import Subjects

    class Client:
        connect_timeout = 0.0

        def connect_http(self, url):  # pragma: no cover - must not be reached
            raise AssertionError("connected although the run does not know the subject's environment")

    cfg = build_config({}, cli_targets=["probekit=http://127.0.0.1:1/mcp"])
    with pytest.raises(NotTestable) as info:
        Subjects(cfg).connect_mcp("probekit", Client(), env={"MCP_TOOLSET": "full"})
    message = str(info.value)
    assert "--subject-env probekit=MCP_TOOLSET=<value>" in message and "None" not in message, message
