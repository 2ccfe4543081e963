"""The command that runs a requirement again, as a report shows it ("how to reproduce").

``run_command(config)`` is the harness command of the run, as a user would type it: the targets the run named,
their control APIs (``auto`` where the user asked the run to pick the address), the declared subject
environments, the subjects' working directory when the run chose one (``--subject-cwd``: what a subject finds
there may change what it does), ``--strict`` and the time limits when they differ from the defaults. A hook token
is never written: the command reads it from ``HOOK_CONFORMANCE_TOKEN``. A report appends ``--req <ID>`` to rerun
one requirement (``RunRecord.rerun_text``).
"""

from __future__ import annotations

from ..subjects.config import CONTROL_AUTO, DEFAULT_SCENARIO_TIMEOUT, DEFAULT_STEP_TIMEOUT, HarnessConfig
from ..verdicts.results import TOKEN_VARIABLE
from ..subjects.targets import Role

__all__ = ["PROGRAM", "run_command"]

#: The installed command (``python -m simulator`` is the same).
PROGRAM = ("hook-conformance", "run")


def _control_of(config: HarnessConfig, role: Role) -> str | None:
    """The control option as the user gave it: ``auto`` where the run picked the address."""
    return CONTROL_AUTO if role in config.auto_controls else config.control(role)


def run_command(config: HarnessConfig) -> list[str]:
    """The run's command line (argv), without secrets."""
    argv = list(PROGRAM)
    for role in sorted(config.named_roles, key=lambda r: r.value):
        argv += ["--target", f"{role.value}={config.target(role).raw}"]
        control = _control_of(config, role)
        if control is not None:
            argv += ["--control", f"{role.value}={control}"]
        for name, value in sorted(config.subject_env.get(role, {}).items()):
            argv += ["--subject-env", f"{role.value}={name}={value}"]
        for name, value in sorted(config.subject_options.get(role, {}).items()):
            argv += ["--subject-option", f"{role.value}.{name}={value}"]
    if config.subject_cwd is not None:
        argv += ["--subject-cwd", str(config.subject_cwd)]
    if config.hook_token:
        argv += ["--hook-token", TOKEN_VARIABLE]
    if config.strict:
        argv.append("--strict")
    if config.step_timeout != DEFAULT_STEP_TIMEOUT:
        argv += ["--step-timeout", f"{config.step_timeout:g}"]
    if config.scenario_timeout != DEFAULT_SCENARIO_TIMEOUT:
        argv += ["--scenario-timeout", f"{config.scenario_timeout:g}"]
    return argv
