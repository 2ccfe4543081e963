"""How a report says to rerun a requirement (simulator/replay/reproduce.py): the run's own command, without secrets."""

from __future__ import annotations

from simulator.subjects.config import build_config
from simulator.replay.reproduce import run_command
from simulator.verdicts.results import RunRecord


def test_the_command_names_what_the_run_named_and_never_the_token():
    config = build_config({}, cli_targets=["hook-server=ws://127.0.0.1:9000/", "probekit=http://h:1/mcp"],
                          cli_controls=["hook-server=http://127.0.0.1:9001"],
                          cli_subject_env=["probekit=MCP_TOOLSET=core"], hook_token="s3cret", step_timeout=2.0)
    argv = run_command(config)
    assert argv == ["hook-conformance", "run", "--target", "hook-server=ws://127.0.0.1:9000/", "--control",
                    "hook-server=http://127.0.0.1:9001", "--target", "probekit=http://h:1/mcp", "--subject-env",
                    "probekit=MCP_TOOLSET=core", "--hook-token", "$HOOK_CONFORMANCE_TOKEN", "--step-timeout", "2"]
    assert "s3cret" not in " ".join(argv)
    record = RunRecord(harness_version="0", spec_revisions={}, subjects=[], started_at="", finished_at="",
                       strict=False, command=argv)
    text = record.rerun_text("HOOK-SERVER-AUTH-01")
    assert text.endswith("--hook-token \"$HOOK_CONFORMANCE_TOKEN\" --step-timeout 2 --req HOOK-SERVER-AUTH-01")


def test_a_picked_control_address_is_written_as_auto():
    config = build_config({}, cli_targets=["ccweb=stdio:srv --control {control}"], cli_controls=["ccweb=auto"],
                          pick_port=lambda: 4321)
    assert run_command(config) == ["hook-conformance", "run", "--target", "ccweb=stdio:srv --control {control}",
                                   "--control", "ccweb=auto"]


def test_a_run_of_the_references_is_the_bare_command():
    assert run_command(build_config({})) == ["hook-conformance", "run"]


def test_an_explicit_control_url_beside_a_placeholder_stays_explicit():
    config = build_config({}, cli_targets=["ccweb=stdio:srv --port {port}"],
                          cli_controls=["ccweb=http://127.0.0.1:5000"], pick_port=lambda: 4321)
    assert run_command(config)[-2:] == ["--control", "ccweb=http://127.0.0.1:5000"]


def test_a_chosen_subject_directory_is_part_of_the_command(tmp_path):
    """What a subject finds in its working directory may change what it does: a rerun starts it there too."""
    config = build_config({}, cli_targets=["ccweb=stdio:srv"], subject_cwd="work", base_dir=tmp_path)
    assert run_command(config)[-2:] == ["--subject-cwd", str(tmp_path / "work")]
