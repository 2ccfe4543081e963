"""Where the conformance suite's files are: the features, their steps, the scenario data and the JSON schemas.

In a checkout (or an editable install) they are the project's own top-level folders, beside ``simulator/``. In an
installed wheel they are the package data ``hook_conformance_suite/`` (``features/``, ``steps/``, ``scenarios/``,
``docs/*.json``, the suite's ``conftest.py`` and ``pytest.ini``), so ``hook-conformance run`` works from any
directory without a clone. In the single-file executable (PyInstaller: ``sys.frozen`` is set and the bundle is
unpacked at ``sys._MEIPASS``) they are the same ``hook_conformance_suite/`` folder inside the bundle
(packaging/hook-conformance.spec). ``suite_root()`` answers the first that exists, the bundle first; the harness
reads every file of the suite through it, never through a path relative to a module of ``simulator/``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

__all__ = ["SUITE_PACKAGE", "SuiteNotFound", "bundled_suite", "is_suite", "suite_root", "schema_path"]

#: The name the wheel ships the suite under (setup.py maps the project's folders into it).
SUITE_PACKAGE = "hook_conformance_suite"


class SuiteNotFound(LookupError):
    """Neither a checkout nor an installed suite holds the features."""


def is_suite(folder: Path) -> bool:
    """``folder`` holds a conformance suite: the features, their steps and the requirement registry."""
    return (folder / "features").is_dir() and (folder / "steps").is_dir() and (
        folder / "scenarios" / "requirements").is_dir()


def bundled_suite(frozen: bool, bundle: str | None) -> Path | None:
    """The suite inside a frozen executable: ``hook_conformance_suite/`` of the folder the bundle is unpacked to
    (``bundle``, PyInstaller's ``sys._MEIPASS``); None when not frozen or when that folder holds no suite.

    Frozen, the modules of ``simulator/`` come from the executable's archive, so a path relative to this module
    names no file: the bundle's folder is the one place the suite's files are."""
    if not frozen or not bundle:
        return None
    folder = Path(bundle) / SUITE_PACKAGE
    return folder if is_suite(folder) else None


def _installed() -> Path | None:
    try:
        spec = importlib.util.find_spec(SUITE_PACKAGE)
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or []) if spec else []:
        if is_suite(Path(location)):
            return Path(location)
    return None


def suite_root() -> Path:
    """The folder holding ``features/``, ``steps/`` and ``scenarios/``: the checkout this ``simulator`` package
    belongs to, else the installed ``hook_conformance_suite`` (in the single-file executable: the bundled one)."""
    bundled = bundled_suite(bool(getattr(sys, "frozen", False)), getattr(sys, "_MEIPASS", None))
    if bundled is not None:
        return bundled
    checkout = Path(__file__).resolve().parent.parent
    if is_suite(checkout):
        return checkout
    installed = _installed()
    if installed is not None:
        return installed
    raise SuiteNotFound(f"no conformance suite found: neither {checkout} (a checkout) nor an installed "
                        f"{SUITE_PACKAGE} holds features/, steps/ and scenarios/requirements/; reinstall the package")


def schema_path(name: str) -> Path:
    """A JSON schema of the suite's documentation (``docs/<name>``: report-schema.json, control-api.schema.json,
    desktop-control-api.schema.json)."""
    return suite_root() / "docs" / name
