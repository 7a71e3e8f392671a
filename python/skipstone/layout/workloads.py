"""Only ``query_distance``, for ``builders/paw_delta.py``, until it imports it from
``skipstone.layout.query_distance``: the workload generators moved to
``benchmarks/layout_sim/workloads.py`` with the rest of the simulator. Delete this file then."""

from __future__ import annotations

from skipstone.layout.query_distance import query_distance

__all__ = ["query_distance"]
