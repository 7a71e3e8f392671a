"""The JVM builds exactly the layout Python builds: for every built-in spec, on samples of every
shape a table's sample can take, ``io.skipstone.layout.builders`` writes the document Python's
``spec.build(...).to_json()`` writes, float for float."""
from __future__ import annotations

import json
import math
from typing import Any, Callable

import numpy as np
import pytest

from skipstone.layout import Amoeba, Hilbert, KdTree, LayoutData, Range, ZOrder
from skipstone.layout.schema import Column, ColumnKind, Schema
from skipstone.layout.specs import SizedSpec
from skipstone.table import jvm_layout


def uniform() -> LayoutData:
    rng = np.random.default_rng(1)
    return LayoutData.from_columns({c: rng.random(3_000) for c in "abc"})


def skewed() -> LayoutData:
    rng = np.random.default_rng(2)
    return LayoutData.from_columns({"lognormal": rng.lognormal(0, 2, 4_000), "zipf": rng.zipf(1.5, 4_000),
                                    "exp": rng.exponential(1.0, 4_000)})


def duplicates() -> LayoutData:
    rng = np.random.default_rng(3)
    mostly_one = np.where(rng.random(2_500) < 0.9, 7, rng.integers(0, 100, 2_500))
    return LayoutData.from_columns({"four": rng.integers(0, 4, 2_500), "mostly_one": mostly_one,
                                    "two": rng.integers(0, 2, 2_500)})


def nulls_and_nans() -> LayoutData:
    """NULL is -inf and NaN +inf in the encoding: runs of both, and a column nearly all NULL."""
    rng = np.random.default_rng(4)
    x = rng.normal(0, 1, 3_000)
    x[rng.random(3_000) < 0.15] = -np.inf
    x[rng.random(3_000) < 0.1] = np.inf
    nearly_null = np.where(rng.random(3_000) < 0.97, -np.inf, rng.random(3_000))
    return LayoutData(Schema((Column("x", ColumnKind.NUMERIC), Column("n", ColumnKind.NUMERIC),
                              Column("k", ColumnKind.INTEGER))),
                      np.column_stack([x, nearly_null, rng.integers(-5, 5, 3_000).astype(np.float64)]))


def categorical_dates_timestamps() -> LayoutData:
    """Dictionary ranks (values missing from the dictionary half-way between), days, microseconds."""
    rng = np.random.default_rng(5)
    ranks = rng.integers(0, 6, 2_000) + np.where(rng.random(2_000) < 0.05, -0.5, 0.0)
    ranks[rng.random(2_000) < 0.05] = -np.inf
    days = rng.integers(18_000, 20_000, 2_000).astype(np.float64)
    micros = rng.integers(1_500_000_000_000_000, 1_800_000_000_000_000, 2_000).astype(np.float64)
    schema = Schema((Column("mode", ColumnKind.CATEGORICAL, ("AIR", "FOB", "MAIL", "RAIL", "SHIP", "TRUCK")),
                     Column("flag", ColumnKind.CATEGORICAL, (False, True)),
                     Column("day", ColumnKind.DATE), Column("ts", ColumnKind.TIMESTAMP)))
    return LayoutData(schema, np.column_stack([ranks, rng.integers(0, 2, 2_000).astype(np.float64), days, micros]))


def one_value() -> LayoutData:
    return LayoutData.from_columns({"a": np.full(500, 3.0), "b": np.full(500, -np.inf)})


def rows(n: int) -> Callable[[], LayoutData]:
    def tiny() -> LayoutData:
        rng = np.random.default_rng(n)
        return LayoutData.from_columns({"a": rng.random(n), "b": rng.integers(0, 3, n)})
    tiny.__name__ = f"rows_{n}"
    return tiny


SAMPLES = [uniform, skewed, duplicates, nulls_and_nans, categorical_dates_timestamps, one_value,
           rows(1), rows(2), rows(3), rows(17)]


def specs(data: LayoutData, block_rows: int) -> list[SizedSpec]:
    names = list(data.schema.names)
    first, last = names[:1], names[::-1][:2]
    out: list[SizedSpec] = [KdTree(block_rows=block_rows), KdTree(block_rows=block_rows, columns=last)]
    out += [Range(block_rows=block_rows, columns=[n]) for n in names]
    out += [Amoeba(block_rows=block_rows, seed=seed, correlations=c) for seed in (0, 11) for c in (True, False)]
    out += [Amoeba(block_rows=block_rows, columns=last, seed=-3), Amoeba(block_rows=block_rows, columns=first, seed=2**70)]
    for curve in (ZOrder, Hilbert):
        out += [curve(block_rows=block_rows), curve(block_rows=block_rows, columns=last, bits=1),
                curve(block_rows=block_rows, columns=first, bits=8), curve(block_rows=block_rows, columns=last, bits=3)]
    return out


def block_sizes(data: LayoutData) -> list[tuple[int, float]]:
    """(block rows, total rows): blocks of a few rows to the whole sample, samples standing for
    themselves and for 7.5 times as many rows."""
    n = data.rows
    sizes = {max(1, n // k) for k in (1, 3, 8, 50)}
    return [(b, float(n) * scale) for b in sorted(sizes) for scale in (1.0, 7.5)]


def exactly(python: Any, jvm: Any, where: str = "document") -> None:
    """Equal JSON, floats bit for bit (a signed zero is a different float)."""
    assert type(python) is type(jvm), f"{where}: {python!r} (Python) vs {jvm!r} (JVM)"
    if isinstance(python, dict):
        assert python.keys() == jvm.keys(), f"{where}: keys {sorted(python)} vs {sorted(jvm)}"
        for key in python:
            exactly(python[key], jvm[key], f"{where}.{key}")
    elif isinstance(python, list):
        assert len(python) == len(jvm), f"{where}: {len(python)} items (Python) vs {len(jvm)} (JVM)"
        for i, (p, j) in enumerate(zip(python, jvm)):
            exactly(p, j, f"{where}[{i}]")
    elif isinstance(python, float):
        assert python.hex() == jvm.hex(), f"{where}: {python!r} (Python) vs {jvm!r} (JVM)"
    else:
        assert python == jvm, f"{where}: {python!r} (Python) vs {jvm!r} (JVM)"


def python_document(spec: SizedSpec, data: LayoutData, block_rows: float, total: float) -> dict:
    return json.loads(json.dumps(spec.build(data, block_rows, total).to_json()))


def jvm_document(spark, spec: SizedSpec, data: LayoutData, block_rows: float, total: float) -> dict:
    return json.loads(jvm_layout.builders(spark).build(json.dumps(spec.to_json()), jvm_layout.to_jvm(spark, data), float(block_rows), total))


@pytest.mark.parametrize("make", SAMPLES, ids=lambda m: m.__name__)
def test_the_jvm_builds_the_document_python_builds(spark, make):
    data = make()
    compared = 0
    for block_rows, total in block_sizes(data):
        for spec in specs(data, block_rows):
            try:
                expected = python_document(spec, data, block_rows, total)
            except ValueError:  # what Python refuses, the JVM refuses too
                with pytest.raises(Exception):
                    jvm_document(spark, spec, data, block_rows, total)
                continue
            exactly(expected, jvm_document(spark, spec, data, block_rows, total), f"{spec} at {block_rows}/{total}")
            compared += 1
    assert compared > 0


@pytest.mark.parametrize("sample_rows", [199, 200, 201])
def test_a_node_one_row_short_of_two_blocks_is_cut_alike(spark, sample_rows):
    # 199 sample rows at 100 per block is a leaf (one row short of two blocks), 200 is cut
    rng = np.random.default_rng(sample_rows)
    data = LayoutData.from_columns({"a": rng.random(sample_rows), "b": rng.integers(0, 5, sample_rows)})
    for spec in specs(data, 100):
        for total in (float(sample_rows), sample_rows * 2.5):
            expected = python_document(spec, data, 100, total)
            exactly(expected, jvm_document(spark, spec, data, 100, total), f"{spec} at {total}")
    tree = KdTree(block_rows=100).build(data, 100, float(sample_rows))
    assert tree.block_count == (1 if sample_rows < 200 else 2)


def test_amoeba_measures_a_subset_of_a_sample_of_more_than_200_000_rows_alike(spark):
    rng = np.random.default_rng(6)
    x = rng.random(210_000)
    data = LayoutData.from_columns({"x": x, "y": x + rng.normal(0, 0.05, 210_000), "z": rng.random(210_000)})
    spec = Amoeba(block_rows=10_000, seed=5)
    expected = python_document(spec, data, 10_000, 4e6)
    exactly(expected, jvm_document(spark, spec, data, 10_000, 4e6))



@pytest.mark.parametrize("name, spec", [("amoeba", Amoeba), ("kd", KdTree), ("zorder", ZOrder), ("hilbert", Hilbert)])
@pytest.mark.parametrize("columns", [(), ("a", "b")])
def test_sql_layout_names_mean_the_same_spec_in_the_jvm(spark, name, spec, columns):
    jvm = json.loads(jvm_layout.builders(spark).specFor(name.upper(), list(columns), 500))
    assert jvm == spec(block_rows=500, columns=tuple(columns) or None).to_json()
