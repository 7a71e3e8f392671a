"""Layout specs: what a managed table is laid out by, as a user names it.

A spec chooses the layout columns, the target block size and the builder; the table turns
``block_bytes`` into rows with its own estimate of bytes per row (or takes ``block_rows`` as
given) and calls :meth:`LayoutSpec.build` on a sample of its rows. ``SizedSpec`` is the base
of the specs that order by columns (and of yours, docs/layout.md): the size options, the
columns, their checks, and the JSON form; ``BlockSized``, its base, has no columns, for specs
that cut where a workload cuts. ``@layout_spec`` registers a spec so that a table's stored
spec reads back.

>>> import numpy as np
>>> from skipstone.layout import Amoeba, LayoutData
>>> sample = LayoutData.from_columns({"a": np.arange(1000), "b": np.arange(1000) % 7})
>>> Amoeba(block_rows=100).build(sample, block_rows=100, total_rows=1000).block_count
8
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Mapping, Sequence, TypeVar

from skipstone.layout.builders.amoeba_upfront import build_amoeba_tree
from skipstone.layout.builders.data_aware import build_kd_tree, build_range_tree
from skipstone.layout.protocols import LayoutSpec
from skipstone.layout.schema import LayoutData
from skipstone.layout.spec_registry import layout_spec
from skipstone.layout.tree import PartitionTree

__all__ = ["DEFAULT_BLOCK_BYTES", "Amoeba", "BlockSized", "KdTree", "LayoutSpec", "Range", "SizedSpec"]

DEFAULT_BLOCK_BYTES = 128 << 20

Spec = TypeVar("Spec", bound="BlockSized")


@dataclass(frozen=True)
class BlockSized:
    """The block size every spec has (``block_rows`` wins over ``block_bytes``), its checks, and
    the JSON form: ``to_json``/``from_json`` cover every dataclass field. The base of a spec
    that does not order by columns a user names (``QdTree``, ``Paw`` cut where queries cut).

    >>> from skipstone.layout import BlockSized
    >>> BlockSized(block_rows=500).to_json()
    {'kind': 'BlockSized', 'block_bytes': 134217728, 'block_rows': 500}
    """

    block_bytes: int | None = DEFAULT_BLOCK_BYTES
    block_rows: int | None = None

    def __post_init__(self) -> None:
        if self.block_rows is not None and self.block_rows <= 0:
            raise ValueError(f"{type(self).__name__}: block_rows must be positive, got {self.block_rows}")
        if self.block_rows is None and (self.block_bytes is None or self.block_bytes <= 0):
            raise ValueError(f"{type(self).__name__}: give a positive block_bytes or block_rows")

    def to_json(self) -> dict[str, Any]:
        """The spec as a table stores it (``layout.spec``): its ``kind`` and every field."""
        return {"kind": type(self).__name__, **asdict(self)}

    @classmethod
    def from_json(cls: type[Spec], data: Mapping[str, Any]) -> Spec:
        """The spec ``to_json`` wrote; an option this class does not take is an error."""
        options = {k: v for k, v in data.items() if k != "kind"}
        known = {f.name for f in fields(cls) if f.init}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(f"{cls.__name__} takes no option {', '.join(map(repr, unknown))} "
                             f"(its options: {', '.join(sorted(known))})")
        return cls(**options)


@dataclass(frozen=True)
class SizedSpec(BlockSized):
    """The options every column-ordering spec shares: a block size and the layout columns
    (None: every column the layout can order). A subclass adds its own fields and ``build``.

    >>> from skipstone.layout import SizedSpec
    >>> SizedSpec(block_rows=500, columns=["a"]).to_json()
    {'kind': 'SizedSpec', 'block_bytes': 134217728, 'block_rows': 500, 'columns': ['a']}
    """

    columns: Sequence[str] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.columns is not None:
            object.__setattr__(self, "columns", tuple(self.columns))

    def to_json(self) -> dict[str, Any]:
        """The spec as a table stores it (``layout.spec``): its ``kind`` and every field."""
        out = super().to_json()
        out["columns"] = list(self.columns) if self.columns is not None else None
        return out


@layout_spec
@dataclass(frozen=True)
class Amoeba(SizedSpec):
    """Amoeba's robust upfront tree (no workload needed): every column gets its share of cuts.

    ``correlations`` (default True) counts a cut toward every column it separates, since
    per-file min/max skip by correlated columns too; ``False`` is the paper's Algorithm 1
    (docs/layout-results.md says how and what it gains).

    >>> Amoeba(block_bytes=64 << 20, columns=["l_shipdate", "l_quantity"]).columns
    ('l_shipdate', 'l_quantity')
    >>> Amoeba(block_rows=1_000, correlations=False).correlations
    False
    """

    seed: int = 0
    correlations: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.correlations, bool):
            raise ValueError(f"Amoeba: correlations must be True or False, got {self.correlations!r}")

    def build(self, sample: LayoutData, block_rows: float, total_rows: float) -> PartitionTree:
        """Amoeba's upfront tree over ``sample`` with blocks of about ``block_rows`` rows."""
        return build_amoeba_tree(sample, block_rows, total_rows, self.columns, seed=self.seed,
                                 correlations=self.correlations)


@layout_spec
@dataclass(frozen=True)
class KdTree(SizedSpec):
    """A k-d tree: median cuts, columns round robin by level.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> from skipstone.layout import KdTree
    >>> tree = KdTree(block_rows=1000).build(data, 1000, 8000)
    >>> tree.block_count, tree.depth
    (8, 3)
    """

    def build(self, sample: LayoutData, block_rows: float, total_rows: float) -> PartitionTree:
        """A k-d tree over ``sample`` with blocks of about ``block_rows`` rows."""
        return build_kd_tree(sample, block_rows, total_rows, self.columns)


@layout_spec
@dataclass(frozen=True)
class Range(SizedSpec):
    """Range partitioning on one column (``columns=["ts"]``): median cuts on it alone.

    >>> import numpy as np
    >>> from skipstone.layout import LayoutData, Query
    >>> data = LayoutData.from_columns({"a": np.arange(8_000.0), "b": np.arange(8_000) % 100})
    >>> query = Query.from_json({"column": "a", "op": "<", "value": 1000}, data.schema)
    >>> from skipstone.layout import Range
    >>> tree = Range(columns=["a"], block_rows=1000).build(data, 1000, 8000)
    >>> tree.block_count, tree.cost(query)          # 2 of its 8 blocks
    (8, 2000.0)
    """

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.columns is None or len(self.columns) != 1:
            raise ValueError(f"Range partitions by exactly one column, e.g. Range(columns=['ts']); got {self.columns}")

    def build(self, sample: LayoutData, block_rows: float, total_rows: float) -> PartitionTree:
        """Median cuts on the one column, blocks of about ``block_rows`` rows."""
        return build_range_tree(sample, self.columns[0], block_rows, total_rows)  # type: ignore[index]
