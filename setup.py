"""The package list of the wheel (the metadata is in pyproject.toml).

Besides the importable packages (``simulator``, ``reports``), the wheel ships the conformance suite as the package
data ``hook_conformance_suite`` (simulator/suite.py): the project's ``features/``, ``steps/``, ``scenarios/``, the
JSON schemas of ``docs/``, the root ``conftest.py`` and ``pytest.ini``, so that an installed harness runs the
features from any directory without a clone. ``steps`` is never installed as a top-level package: it is imported
from the suite's folder, which pytest puts on ``sys.path`` (the suite's rootdir conftest).
"""

from __future__ import annotations

from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SUITE = "hook_conformance_suite"
#: The suite's folders and the data files they hold besides Python modules.
SUITE_FOLDERS = {"features": ("*.feature",), "steps": (), "scenarios": ("*.toml", "*.json"), "docs": ("*.json",)}
#: Files of the project's root that belong to the suite.
SUITE_ROOT_FILES = ("conftest.py", "pytest.ini")


def _suite_packages() -> dict[str, tuple[str, ...]]:
    """Every folder of the suite as a (namespace) package of the wheel → its data patterns."""
    out: dict[str, tuple[str, ...]] = {SUITE: ()}
    for top, patterns in SUITE_FOLDERS.items():
        folders = [ROOT / top, *sorted(p for p in (ROOT / top).rglob("*") if p.is_dir() and p.name != "__pycache__")]
        for folder in folders:
            out[".".join((SUITE, *folder.relative_to(ROOT).parts))] = patterns
    return out


class SuiteBuildPy(build_py):
    """Copies the suite: its folders' modules and data, and only the listed files of the project's root (the root
    folder also holds setup.py, which is not part of the suite)."""

    def find_package_modules(self, package: str, package_dir: str) -> list[tuple[str, str, str]]:
        modules = super().find_package_modules(package, package_dir)
        if package == SUITE:
            modules = [m for m in modules if Path(m[2]).name in SUITE_ROOT_FILES]
        elif package.startswith(SUITE + ".docs"):
            modules = []
        return modules


SUITE_PACKAGES = _suite_packages()
PACKAGE_DATA = {name: list(patterns) for name, patterns in SUITE_PACKAGES.items() if patterns}
PACKAGE_DATA[SUITE] = ["pytest.ini"]

setup(
    packages=[*find_packages(include=["simulator", "simulator.*", "reports", "reports.*"]), *SUITE_PACKAGES],
    package_dir={SUITE: "."},
    package_data=PACKAGE_DATA,
    include_package_data=False,
    cmdclass={"build_py": SuiteBuildPy},
)
