"""Amoeba's free transforms: the cut moves up, no row changes block."""
from __future__ import annotations

import numpy as np
import pytest

from skipstone.layout import LayoutData, Leaf, PartitionTree, Split, Transform
from skipstone.layout.transforms import FREE_TRANSFORMS, PUSHUP, ROTATE_LEFT, ROTATE_RIGHT

X, Y = 0, 1


@pytest.fixture(scope="module")
def data() -> LayoutData:
    rng = np.random.default_rng(4)
    return LayoutData.from_columns({"x": rng.integers(0, 10, 5000).astype(float), "y": rng.random(5000)})


CASES = [
    # (transform, node, the cut brought up)
    (PUSHUP, Split(Y, 0.5, Split(X, 3.0, Leaf(0), Leaf(1)), Split(X, 3.0, Leaf(2), Leaf(3))), (X, 3.0)),
    (ROTATE_LEFT, Split(X, 6.0, Split(X, 2.0, Leaf(0), Leaf(1)), Leaf(2)), (X, 2.0)),
    (ROTATE_RIGHT, Split(X, 2.0, Leaf(0), Split(X, 6.0, Leaf(1), Leaf(2))), (X, 6.0)),
]


@pytest.mark.parametrize("transform,node,cut", CASES, ids=["pushup", "rotate-left", "rotate-right"])
def test_every_row_stays_in_its_block(data, transform, node, cut):
    before = PartitionTree(data.schema, node)
    after = PartitionTree(data.schema, transform.apply(node, *cut))
    assert (after.root.column, after.root.cut) == cut
    assert np.array_equal(before.block_ids[before.route(data)], after.block_ids[after.route(data)])
    assert sorted(after.block_ids.tolist()) == sorted(before.block_ids.tolist())


@pytest.mark.parametrize("transform,node,cut", CASES, ids=["pushup", "rotate-left", "rotate-right"])
def test_a_transform_refuses_a_node_it_does_not_apply_to(transform, node, cut):
    other = (cut[0], cut[1] + 0.5)  # no child starts with this cut
    assert transform.applies(node, *cut) and not transform.applies(node, *other)
    with pytest.raises(ValueError, match=type(transform).__name__):
        transform.apply(node, *other)


def test_a_leaf_has_nothing_to_rewrite():
    assert not any(t.applies(Leaf(0), X, 1.0) for t in FREE_TRANSFORMS)


def test_the_free_transforms_satisfy_the_protocol_and_rewrite_no_rows():
    assert all(isinstance(t, Transform) and not t.rewrites_rows for t in FREE_TRANSFORMS)
