"""Calibration: the harness judged against real implementations nobody here wrote, release by release.

Each table under ``calibration/tables/`` names one implementation and release (its repository and commit, how the
harness starts it from a built checkout) and, per requirement, the verdict the harness must give it and why: the
spec or design sentence (from the requirement registry) and, for every verdict but pass, the upstream line that
shows the deviation or the reason the harness cannot judge. ``python -m calibration.check SOURCE`` runs the harness
against a built checkout and prints where today's verdicts differ from the table; ``python -m calibration.render``
prints the tables as docs/calibration.md shows them (docs/calibration.md, "The procedure").

| module | holds |
|---|---|
| ``tables`` | ``CalibrationTable`` and ``Expectation``: a table read from TOML, checked against the registry |
| ``compare`` | where a run's verdicts differ from a table (pure) |
| ``check`` | the command: find the table, run the harness, compare, print |
| ``render`` | the tables as Markdown, for docs/calibration.md |
"""

from __future__ import annotations

from .compare import Difference, compare
from .tables import TABLES_DIR, CalibrationTable, Expectation, load_table, load_tables

__all__ = ["TABLES_DIR", "CalibrationTable", "Difference", "Expectation", "compare", "load_table", "load_tables"]
