"""From which logged query on each block of a table existed: what ``BoundedRewrite`` needs so
that a unit's regret counts only queries that ran on the unit's blocks (the rent of a
ski-rental restarts when one buys).

A block is born at the version that added it to the layout: a layout rewrite's commit lists the
blocks it added (``blocksAdded``); a create, an overwrite and a relayout of the whole table
(a layout commit that lists none) renew every block. Appends, compactions and absorbed files
write files of blocks that already exist and renew none. A block's birth is then a position in
the workload log: the number of logged queries before the first that read a version in which
the block existed.

>>> log = [(1, "CREATE", {}), (2, "APPEND", {}), (3, "OPTIMIZE", {"strategy": "layout", "blocksAdded": [4, 5]})]
>>> birth_versions(log)
BirthVersions(added={4: 3, 5: 3}, renewed=1)
>>> log_positions(birth_versions(log), blocks=[0, 4, 5], query_versions=[1, 1, 2, 2, 3, 3])
{0: 0, 4: 4, 5: 4}
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

RENEWING_OPERATIONS = ("CREATE", "OVERWRITE")


@dataclass(frozen=True)
class BirthVersions:
    """``added``: the version that added each block since the last renewal; ``renewed``: the
    last version that renewed every block (0 when the log retains none: as old as the log)."""

    added: Mapping[int, int]
    renewed: int

    def of(self, block: int) -> int:
        return self.added.get(block, self.renewed)


def birth_versions(log: Iterable[tuple[int, str, Mapping[str, Any]]]) -> BirthVersions:
    """The births in a table's log: (version, operation, commit info) per retained commit."""
    added: dict[int, int] = {}
    renewed = 0
    for version, operation, info in sorted(log, key=lambda entry: entry[0]):
        whole_layout = info.get("strategy") == "layout" and "blocksAdded" not in info
        if operation in RENEWING_OPERATIONS or whole_layout:
            added, renewed = {}, version
        for block in info.get("blocksAdded") or ():
            added[int(block)] = version
    return BirthVersions(added, renewed)


def log_positions(births: BirthVersions, blocks: Iterable[int], query_versions: Sequence[int]) -> dict[int, int]:
    """Per block, the number of logged queries (``query_versions``: the version each read, in log
    order) before the first that read a version in which the block existed."""
    # versions read only grow in the log but for queries pinned to an older version meanwhile:
    # the running maximum finds the first query at or after the birth
    reached: list[int] = []
    for v in query_versions:
        reached.append(max(v, reached[-1]) if reached else v)
    return {int(b): bisect.bisect_left(reached, births.of(int(b))) for b in blocks}
