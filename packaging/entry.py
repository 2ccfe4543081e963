"""The script PyInstaller freezes as the executable's entry (packaging/hook-conformance.spec): the command line is
the harness's, or the interpreter's ``-c`` / ``-m`` when the executable starts itself
(simulator/subjects/frozen_entry.py)."""

import multiprocessing
import sys

from simulator.subjects.frozen_entry import main


def harness(argv: list[str]) -> int:
    """The harness's command line. Imported here, not at the top: a ``-m simulator`` start runs
    ``simulator.__main__`` as ``__main__`` and must not find it imported already."""
    from simulator.__main__ import main as harness_main

    return harness_main(argv)


if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main(sys.argv[1:], harness))
