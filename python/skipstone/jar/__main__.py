"""``python -m skipstone.jar``: the path of Skipstone's jar for this pyspark, for ``--jars``."""
from __future__ import annotations

from skipstone.jar import jar_path

if __name__ == "__main__":
    print(jar_path())
