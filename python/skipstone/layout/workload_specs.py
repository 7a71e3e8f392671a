"""Layout specs built from a known workload: ``QdTree`` and ``Paw``.

``queries`` are predicates in the JSON form of ``skipstone.layout.predicates`` (what a
table's ``workload()`` logs) or ``Predicate`` values; they are read against the sample's
columns when the tree is built.

>>> import numpy as np
>>> from skipstone.layout import LayoutData, Paw
>>> sample = LayoutData.from_columns({"x": np.arange(8000.0), "y": np.arange(8000.0) % 100})
>>> spec = Paw(queries=[{"column": "x", "op": "<", "value": 1000}, {"column": "x", "op": "<", "value": 1100}],
...            block_rows=500)
>>> tree = spec.build(sample, block_rows=500, total_rows=8000)
>>> tree.cost(spec.history(sample.schema)[0]) <= 2000
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence, TypeVar

import numpy as np

from skipstone.layout.builders.data_aware import kd_refine
from skipstone.layout.builders.median import sample_scale
from skipstone.layout.builders.paw import PawOptions, build_paw_tree
from skipstone.layout.builders.paw_delta import template_deltas
from skipstone.layout.builders.qdtree import build_qd_tree
from skipstone.layout.predicates import Predicate
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData, Schema
from skipstone.layout.spec_registry import layout_spec
from skipstone.layout.specs import BlockSized
from skipstone.layout.tree import Leaf, Node, PartitionTree, renumber

W = TypeVar("W", bound="WorkloadSpec")


@dataclass(frozen=True)
class WorkloadSpec(BlockSized):
    """A spec built from ``queries``: it cuts where they cut, on any layout column, so it takes no
    ``columns`` (its ``columns`` is None: every column the layout can order)."""

    queries: Sequence[Mapping[str, Any] | Predicate] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.queries:
            raise ValueError(f"{type(self).__name__} is built from a workload: give queries=[...] "
                             "(predicate JSON, e.g. from a table's workload())")
        as_json = tuple(q.to_json() if isinstance(q, Predicate) else dict(q) for q in self.queries)
        object.__setattr__(self, "queries", as_json)

    @property
    def columns(self) -> None:
        """The columns it orders by, as ``LayoutSpec`` has them: None, whichever the queries cut."""
        return None

    @classmethod
    def from_json(cls: type[W], data: Mapping[str, Any]) -> W:
        """The spec ``to_json`` wrote, or one a table stored when it still wrote ``"columns": null``."""
        if data.get("columns") is not None:
            raise ValueError(f"{cls.__name__} cuts where the queries cut; it takes no columns")
        return super().from_json({k: v for k, v in data.items() if k != "columns"})

    def history(self, schema: Schema) -> list[Query]:
        """The queries as boxes over ``schema``'s columns, in the order given."""
        return [Query.from_json(q, schema) for q in self.queries]


@layout_spec
@dataclass(frozen=True)
class QdTree(WorkloadSpec):
    """The greedy Qd-tree (Yang et al.): cuts at the queries' boundaries, where they let the
    queries skip most. Leaves the queries do not cut are split by a k-d tree until every block
    is within [block_rows, 2 x block_rows), as files must be.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> from skipstone.layout import QdTree
    >>> spec = QdTree(block_rows=1000, queries=[{"column": "a", "op": "<", "value": 1000}])
    >>> spec.build(data, 1000, 8000).block_count
    5
    """

    def build(self, sample: LayoutData, block_rows: float, total_rows: float) -> PartitionTree:
        """The greedy Qd-tree for the spec's queries over ``sample``."""
        tree = build_qd_tree(sample, self.history(sample.schema), block_rows, total_rows)
        return refine_large_leaves(tree, sample, block_rows, total_rows)


@layout_spec
@dataclass(frozen=True)
class Paw(WorkloadSpec):
    """PAW (Li, Yiu, Chan): partitions for every workload within ``delta`` of ``queries``;
    ``delta`` None estimates it from the queries as PAW §IV-E does (an older and a newer half,
    the smallest δ for which they are δ-similar), for each template on its own. ``alpha`` is
    Ψ's multi-group threshold.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> from skipstone.layout import Paw
    >>> spec = Paw(block_rows=1000, queries=[{"column": "a", "op": "<", "value": 1000}])
    >>> spec.build(data, 1000, 8000).block_count
    5
    """

    delta: float | None = None
    alpha: float = 4.0

    def build(self, sample: LayoutData, block_rows: float, total_rows: float) -> PartitionTree:
        """The PAW tree for the spec's queries (and ``delta``) over ``sample``."""
        history = self.history(sample.schema)
        delta = self.delta if self.delta is not None else estimated_delta(sample, history)
        return build_paw_tree(sample, history, block_rows, delta, total_rows, PawOptions(self.alpha))


def estimated_delta(sample: LayoutData, history: Sequence[Query]) -> np.ndarray:
    """PAW's δ from the history, per template (`template_deltas`): an absolute δ per column."""
    return template_deltas(sample, [q for q in history if not q.boxes.is_empty])


def refine_large_leaves(tree: PartitionTree, sample: LayoutData, block_rows: float, total_rows: float) -> PartitionTree:
    """The tree with every leaf of 2 x block_rows or more split by a k-d tree over its sample rows."""
    scale = sample_scale(sample.rows, total_rows)
    position_of = tree.route(sample)
    order = list(range(sample.schema.width))
    positions = {leaf.block: p for p, leaf in enumerate(tree.leaves)}

    def refine(leaf: Leaf) -> Node:
        if leaf.rows < 2 * block_rows:
            return leaf
        rows = np.flatnonzero(position_of == positions[leaf.block])
        return kd_refine(sample.values, rows, scale, block_rows, order)

    return PartitionTree(tree.schema, renumber(tree.with_leaves(refine).root))
