"""Command line: ``python -m simulator run [pytest options]`` runs the conformance features.

The full harness command line (targets, reports, baselines, ``list``, ``report``, ``serve``) grows on top of
this entry point; today ``run`` runs every feature under ``features/`` against the embedded reference and
passes any further options to pytest (``-m must``, ``--req 'HOOK-FRAME-*'``, ``-k …``).

Exit codes: 0 conformant, 1 findings, 2 usage error, 3 infrastructure error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INFRA = 0, 1, 2, 3


def project_root() -> Path | None:
    """The checkout holding ``features/`` (the package is installed editable from it, or run in place)."""
    for base in (Path.cwd(), Path(__file__).resolve().parent.parent):
        if (base / "features").is_dir() and (base / "steps").is_dir():
            return base
    return None


def _run(args: argparse.Namespace, rest: list[str]) -> int:
    import pytest

    root = project_root()
    if root is None:
        print("simulator: no features/ and steps/ found; run from a checkout of the project", file=sys.stderr)
        return EXIT_USAGE
    code = pytest.main(["--rootdir", str(root), "-p", "no:cacheprovider", str(root / "features"), *rest])
    return {0: EXIT_OK, 1: EXIT_FINDINGS, 4: EXIT_USAGE, 5: EXIT_USAGE}.get(int(code), EXIT_INFRA)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simulator", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the conformance features (extra options go to pytest)")
    run.set_defaults(handler=_run)
    args, rest = parser.parse_known_args(argv)
    return args.handler(args, rest)


if __name__ == "__main__":
    sys.exit(main())
