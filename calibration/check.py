"""``python -m calibration.check SOURCE``: judge a built checkout of a real implementation with the harness and print
where today's verdicts differ from its calibration table (docs/calibration.md).

SOURCE is the path of the checkout, built as its own repository builds it; nothing is downloaded. The table is the
one whose ``package`` and ``version`` match SOURCE's package.json (or ``--table KEY``, its file's stem). The harness
runs as a separate process from a fresh temporary directory, with the table's target, subject environment and
selection; its report folder is kept with ``--keep DIR``.

Exit codes: 0 every verdict as the table says; 1 differences (each printed); 2 usage (no such checkout, no table);
3 the harness wrote no report.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from .compare import compare
from .tables import CalibrationTable, TableError, load_tables

__all__ = ["find_table", "main"]


def find_table(source: Path, tables: list[CalibrationTable], key: str | None = None) -> CalibrationTable:
    """The table for ``source``: by ``key`` (a table file's stem), else by its package.json name and version.
    ``LookupError`` says why none fits."""
    if key is not None:
        for table in tables:
            if table.key == key:
                return table
        raise LookupError(f"no calibration table {key!r}: the tables are {[t.key for t in tables]}")
    manifest = source / "package.json"
    try:
        package = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LookupError(f"cannot read {manifest} to know the release ({exc}); name the table with --table "
                          f"(one of {[t.key for t in tables]})") from None
    name, version = package.get("name"), package.get("version")
    for table in tables:
        if table.package == name and table.version == version:
            return table
    raise LookupError(f"no calibration table for {name} {version}: the tables are "
                      f"{[f'{t.package} {t.version}' for t in tables]}")


def _run(table: CalibrationTable, source: Path, report_dir: Path) -> tuple[int, str]:
    """Run the harness against ``source``; its exit code and the tail of its output."""
    with tempfile.TemporaryDirectory(prefix="calibration-") as cwd:
        command = [sys.executable, "-m", "simulator", "run", *table.harness_arguments(source),
                   "--report-dir", str(report_dir)]
        proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    return proc.returncode, (proc.stdout + proc.stderr)[-3000:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m calibration.check", description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="the built checkout of the implementation")
    parser.add_argument("--table", metavar="KEY", help="the calibration table (its file's stem), e.g. probekit-v2.0.0")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep the run's report folder there")
    args = parser.parse_args(argv)
    if not args.source.is_dir():
        print(f"calibration.check: {args.source} is not a directory (give the built checkout)", file=sys.stderr)
        return 2
    try:
        table = find_table(args.source, load_tables(), args.table)
    except (LookupError, TableError) as exc:
        print(f"calibration.check: {exc}", file=sys.stderr)
        return 2
    print(f"calibration: {table.name} {table.release} ({table.repository} @ {table.commit[:12]}) from {args.source}")
    with tempfile.TemporaryDirectory(prefix="calibration-report-") as scratch:
        report_dir = args.keep or Path(scratch) / "report"
        code, output = _run(table, args.source, report_dir)
        try:
            report = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            print(f"calibration.check: the harness wrote no report (exit {code}):\n{output}", file=sys.stderr)
            return 3
    differences = compare(table, report)
    judged = len(report.get("requirements", []))
    if not differences:
        print(f"calibration: all {judged} requirements as the table says ({table.path.name})")
        return 0
    print(f"calibration: {len(differences)} of {judged} requirements differ from {table.path.name}:")
    for difference in differences:
        print(f"  {difference.describe()}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
