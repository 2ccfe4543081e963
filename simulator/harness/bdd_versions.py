"""The supported pytest-bdd versions (pyproject.toml): 9 with pytest 9, 8.1+ with pytest 8.

* pytest-bdd 8.x reads a private attribute pytest 9 no longer has (every scenario would error): said once, as a
  usage error.
* pytest-bdd 8.x doubles every backslash of an Examples or data-table cell (``gherkin_parser._to_raw_string``), so
  a cell ``"\\ud800"`` would reach the steps as ``"\\\\ud800"``: a different frame than the feature wrote. Gherkin
  itself (and pytest-bdd 9) keeps the cell's text; under 8.x that function is made the identity again, so both
  versions run the same cases (CI runs the features on both).
"""

from __future__ import annotations

from importlib.metadata import version

from .state import usage_error

__all__ = ["check_pytest_bdd"]


def check_pytest_bdd() -> None:
    """A usage error for pytest-bdd 8 under pytest 9; under pytest-bdd 8, Examples cells keep their backslashes."""
    bdd, core = version("pytest-bdd"), version("pytest")
    major = int(bdd.split(".")[0])
    if major < 9 and int(core.split(".")[0]) >= 9:
        usage_error(f"pytest-bdd {bdd} does not work with pytest {core}: install pytest-bdd 9 "
                    f"(pip install 'pytest-bdd>=9'), or pytest 8 with pytest-bdd 8")
    if major < 9:
        from pytest_bdd import gherkin_parser

        if hasattr(gherkin_parser, "_to_raw_string"):
            gherkin_parser._to_raw_string = lambda text: text
