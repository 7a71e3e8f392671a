"""``python -m skipstone <command>``: the same commands as the ``skipstone`` console script
(``python -m skipstone demo`` is what ``make demo`` runs)."""
from __future__ import annotations

import sys

from skipstone.cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
