"""MetricDist: distance predicates skipped through the triangle inequality.

Vectors: file i holds 2-d points at distance 10i..10i+5 from the origin (0, 0) (file 7 also
a NaN point). Words: file 0 {kitten, sitten, kittens}, file 1 {sitting, fitting}, file 2 two
10-letter words, file 3 only NULLs; origin 'kitten'. Bounds are worked out per case.
"""
from __future__ import annotations

import math
import os

import pyarrow as pa
import pytest

import udfs
from conftest import run_both_ways
from datasets import write_file
from skipstone import Metric, MetricDist, Skipstone


def euclidean(a, b):
    if a is None or b is None:
        return None
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


def vectors_table(file: int) -> pa.Table:
    points = [[10.0 * file + t, 0.0] for t in range(6)] + [[0.0, 10.0 * file + t] for t in range(6)]
    if file == 7:
        points.append([float("nan"), 0.0])
    return pa.table({"v": pa.array(points, pa.list_(pa.float64())), "id": list(range(len(points)))})


WORDS = [["kitten", "sitten", "kittens"], ["sitting", "fitting"], ["abcdefghij", "zzzzzzzzzz"], [None, None]]


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> dict[str, str]:
    spark.udf.register("euclidean", euclidean, "double")
    base = tmp_path_factory.mktemp("metric")
    vectors, words = str(base / "vectors"), str(base / "words")
    os.makedirs(vectors)
    os.makedirs(words)
    for i in range(8):
        write_file(vectors, i, vectors_table(i))
    for i, ws in enumerate(WORDS):
        write_file(words, i, pa.table({"w": pa.array(ws, pa.string())}))
    Skipstone.for_path(spark, vectors).build(MetricDist("v", Metric.euclidean(), [0.0, 0.0]))
    Skipstone.for_path(spark, words).build(MetricDist("w", Metric.levenshtein(), "kitten"))
    return {"vectors": vectors, "words": words}


CASES = [
    # (dataset, predicate, files skipped)
    ("vectors", "euclidean(v, array(0D, 0D)) < 12", 6),            # files 0, 1
    ("vectors", "euclidean(array(0D, 0D), v) < 12", 6),            # the metric is symmetric
    ("vectors", "12 > euclidean(v, array(0D, 0D))", 6),
    ("vectors", "euclidean(v, array(30D, 0D)) < 3", 7),            # |d(x,o) - 30| < 3: file 3 only
    ("vectors", "euclidean(v, array(30D, 0D)) <= 5", 6),           # files 2 (hi 25) and 3
    ("vectors", "euclidean(v, array(0D, 0D)) > 70", 7),            # file 7 (70..75, and NaN)
    ("vectors", "euclidean(v, array(0D, 0D)) > 1000", 7),          # NaN > 1000: file 7 is read
    ("vectors", "euclidean(v, array(30D, 0D)) >= 100", 7),         # d <= d(x,o) + 30: hi >= 70
    ("vectors", "euclidean(v, array(0D, 0D)) BETWEEN 21 AND 24", 7),
    ("vectors", "NOT (euclidean(v, array(0D, 0D)) < 50)", 5),      # some d >= 50: files 5, 6, 7
    ("vectors", "euclidean(v, array(0D, 0D)) = 40", 7),
    ("words", "levenshtein(w, 'kitten') <= 1", 3),                 # file 0
    ("words", "levenshtein(w, 'sitting') < 2", 3),                 # file 0: max(0-3, 3-1) = 2
    ("words", "levenshtein('sitting', w) <= 3", 2),                # files 0 and 1
    ("words", "levenshtein(w, 'kitten') > 5", 3),                  # only file 2 reaches beyond 5
]


@pytest.mark.parametrize("dataset,predicate,skipped", CASES, ids=[c[1] for c in CASES])
def test_distance_predicate_skips_files_out_of_range(spark, data, dataset, predicate, skipped):
    # vectors as top-level columns: the comparison of results handles NaN only there
    columns = "id, v[0] AS x, v[1] AS y" if dataset == "vectors" else "*"
    _, stats = run_both_ways(spark, f"SELECT {columns} FROM parquet.`{data[dataset]}` WHERE {predicate}")
    assert stats.files_skipped == skipped


def test_file_changed_after_indexing_is_read(spark, data, tmp_path):
    root = str(tmp_path / "vectors")
    os.makedirs(root)
    for i in range(3):
        write_file(root, i, vectors_table(i))
    Skipstone.for_path(spark, root).build(MetricDist("v", Metric.euclidean(), [0.0, 0.0]))
    write_file(root, 2, vectors_table(7))
    rows, stats = run_both_ways(spark, f"SELECT id FROM parquet.`{root}` WHERE euclidean(v, array(72D, 0D)) < 0.5")
    assert rows == [(2,)]
    assert stats.per_dataset[0].files_unindexed == 1
    assert stats.files_skipped == 2


def test_far_from_the_origin_a_point_at_exactly_the_radius_is_kept(spark, data, tmp_path):
    # |x| is about 8e8, so d(x, o) and d(q, o) carry rounding errors near 6e-8 each, and their
    # difference overstates d(x, q) by more than an absolute slack of 1e-9 would absorb
    x, q = [699642631.0, 407608742.0], [699642631.6996427, 407608742.40760875]
    r = euclidean(x, q)
    root = str(tmp_path / "far")
    os.makedirs(root)
    write_file(root, 0, pa.table({"v": pa.array([x], pa.list_(pa.float64())), "id": [0]}))
    write_file(root, 1, pa.table({"v": pa.array([[0.0, 1.0]], pa.list_(pa.float64())), "id": [1]}))
    Skipstone.for_path(spark, root).build(MetricDist("v", Metric.euclidean(), [0.0, 0.0]))
    rows, stats = run_both_ways(
        spark, f"SELECT id FROM parquet.`{root}` WHERE euclidean(v, array({q[0]!r}D, {q[1]!r}D)) <= {r!r}D")
    assert rows == [(0,)]
    assert stats.files_skipped == 1
