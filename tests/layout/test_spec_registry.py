"""Layout specs read back from the JSON a table stores, through the registry."""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest

from skipstone.layout import (
    Amoeba, Builder, Hilbert, KdTree, LayoutData, LayoutSpec, Paw, QdTree, Range, SizedSpec, ZOrder, layout_spec,
    layout_spec_from_json,
)
from skipstone.layout.spec_registry import registered_layout_specs

QUERIES = [{"column": "x", "op": "<", "value": 100}, {"column": "y", "op": ">=", "value": 3}]
BUILT_IN = [
    Amoeba(block_bytes=64 << 20, columns=["x", "y"], seed=3),
    KdTree(block_rows=500),
    Range(columns=["x"], block_rows=250),
    ZOrder(columns=["x", "y"], block_rows=100, bits=4),
    Hilbert(block_bytes=1 << 20),
    QdTree(queries=QUERIES, block_rows=100),
    Paw(queries=QUERIES, block_rows=100, delta=0.05, alpha=3.0),
]


@pytest.mark.parametrize("spec", BUILT_IN, ids=lambda s: type(s).__name__)
def test_every_built_in_spec_reads_back_equal_from_its_stored_json_text(spec):
    stored = json.dumps(spec.to_json())
    assert layout_spec_from_json(stored) == spec
    assert isinstance(spec, LayoutSpec) and isinstance(spec, Builder)


@pytest.mark.parametrize("spec", BUILT_IN, ids=lambda s: type(s).__name__)
def test_a_spec_read_back_builds_the_same_layout(spec):
    rng = np.random.default_rng(0)
    sample = LayoutData.from_columns({"x": rng.integers(0, 1000, 2000), "y": rng.integers(0, 10, 2000)})
    again = layout_spec_from_json(json.dumps(spec.to_json()))
    assert again.build(sample, 200, 4000).to_json() == spec.build(sample, 200, 4000).to_json()


def test_every_built_in_kind_is_registered_under_its_class_name():
    assert {type(s).__name__ for s in BUILT_IN} <= set(registered_layout_specs())


def test_an_unknown_kind_is_named_with_the_way_to_fix_it():
    with pytest.raises(ValueError, match=r"unknown layout spec kind 'Striped'.*import the module"):
        layout_spec_from_json({"kind": "Striped", "block_rows": 10})


def test_an_option_the_spec_does_not_take_is_named():
    with pytest.raises(ValueError, match=r"KdTree takes no option 'depth'"):
        layout_spec_from_json({"kind": "KdTree", "block_rows": 10, "depth": 3})


def test_a_bad_value_in_stored_json_fails_like_the_constructor():
    with pytest.raises(ValueError, match=r"Amoeba: block_rows must be positive"):
        layout_spec_from_json({"kind": "Amoeba", "block_rows": -1})


def test_another_class_under_a_taken_kind_is_refused():
    with pytest.raises(ValueError, match=r"layout spec kind 'KdTree' is already skipstone.layout.specs.KdTree"):
        @layout_spec
        @dataclass(frozen=True)
        class KdTree(SizedSpec):  # noqa: F811 - the clash is the point
            def build(self, sample, block_rows, total_rows):
                raise AssertionError


def test_registering_the_same_class_again_replaces_it():
    assert layout_spec(Amoeba) is Amoeba
    assert registered_layout_specs()["Amoeba"] is Amoeba


def test_a_class_without_the_spec_members_is_refused():
    with pytest.raises(TypeError, match=r"layout spec .*NoBuild lacks build"):
        @layout_spec
        class NoBuild:
            def to_json(self):
                return {}

            @classmethod
            def from_json(cls, data):
                return cls()


@pytest.mark.parametrize("spec", [QdTree, Paw])
def test_a_workload_spec_has_no_columns_parameter(spec):
    with pytest.raises(TypeError, match="columns"):
        spec(queries=QUERIES, block_rows=100, columns=["x"])
    assert "columns" not in spec(queries=QUERIES, block_rows=100).to_json()


@pytest.mark.parametrize("spec", [QdTree(queries=QUERIES, block_rows=100), Paw(queries=QUERIES, block_rows=100)],
                         ids=lambda s: type(s).__name__)
def test_a_workload_spec_stored_with_null_columns_reads_back(spec):
    stored = {**spec.to_json(), "columns": None}  # as tables wrote it while the specs had the field
    assert layout_spec_from_json(json.dumps(stored)) == spec
    with pytest.raises(ValueError, match=f"{type(spec).__name__} cuts where the queries cut; it takes no columns"):
        layout_spec_from_json({**stored, "columns": ["x"]})
