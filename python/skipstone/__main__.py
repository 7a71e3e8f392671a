"""``python -m skipstone <command>`` and the ``skipstone`` console script: the command line of
skipstone.cli (``python -m skipstone demo`` is what ``make demo`` runs).

The command line's libraries come with the ``cli`` extra, which executors do not need; without
them this says, in one line, what to install instead of failing on an import.
"""
from __future__ import annotations

import importlib.util
import sys

# What skipstone.cli needs beyond the core package: the `cli` extra of setup.py
CLI_LIBRARIES = ("typer", "rich", "matplotlib")


def missing_cli_libraries() -> list[str]:
    """The command line's libraries that are not installed, in setup.py's order."""
    return [name for name in CLI_LIBRARIES if not _installed(name)]


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:  # a finder that refuses it: as good as absent
        return False


def main(argv: list[str] | None = None) -> int:
    """Run the ``skipstone`` command line with ``argv`` (default: the process's arguments)."""
    missing = missing_cli_libraries()
    if missing:
        print(f"skipstone: the command line needs {', '.join(missing)}: pip install 'skipstone[cli]'",
              file=sys.stderr)
        return 1
    from skipstone.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
