"""Command line: `python -m skipstone demo`."""
from __future__ import annotations

import sys

COMMANDS = {"demo": "skipstone.demo"}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: python -m skipstone {{{','.join(COMMANDS)}}} [options]", file=sys.stderr)
        return 2
    import importlib

    return int(importlib.import_module(COMMANDS[argv[0]]).main(argv[1:]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
