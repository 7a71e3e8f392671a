"""Geospatial use case: shapely UDFs skipped through MinMax + a UDF mapping, or through GeoBox.

The grid dataset (geo_data.grid_table) has six files of one cell each and a seventh holding
two distant clusters, so the files each index rules out are known by hand: MinMax sees file
6 as one big box, GeoBox as two small ones.
"""
from __future__ import annotations

import os

import pyarrow as pa
import pytest

import udfs
from conftest import run_both_ways
from datasets import write_file
from geo_data import odd_table, write_cities, write_grid
from skipstone import GeoBox, MinMax, Skipstone, geo_minmax_mapping

P1 = "POLYGON((1 1, 8 1, 8 8, 1 8, 1 1))"        # lon 1..8, lat 1..8: cell 0 and cluster A of file 6
P2 = "POLYGON((25 25, 35 25, 35 35, 25 25))"     # lon/lat 25..35: cell (1,1) = file 4
RESEARCH_TRIANGLE = "POLYGON((-79.1 35.7, -78.5 35.7, -78.7 36.1, -79.1 35.7))"
INDEXES = {
    "minmax": lambda: (MinMax("lat"), MinMax("lon"), geo_minmax_mapping()),
    "geobox": lambda: (GeoBox("lat", "lon", boxes=4),),
}


@pytest.fixture(scope="module")
def grids(spark, tmp_path_factory) -> dict[str, str]:
    udfs.register(spark)
    base = tmp_path_factory.mktemp("geo")
    minmax = write_grid(str(base / "minmax"))
    Skipstone.for_path(spark, minmax).build(MinMax("lat"), MinMax("lon"), geo_minmax_mapping())
    geobox = write_grid(str(base / "geobox"))
    Skipstone.for_path(spark, geobox).build(GeoBox("lat", "lon", boxes=4))
    return {"minmax": minmax, "geobox": geobox}


CASES = [
    # (predicate, files skipped of 7 with MinMax + mapping, with GeoBox)
    (f"st_contains('{P1}', lat, lon)", 5, 5),
    (f"st_contains('{P2}', lat, lon)", 5, 6),
    (f"st_contains('{P2}', lat, lon) AND id > 400", 5, 6),
    ("st_distance(lat, lon, 15.0, 15.0) < 3", 6, 7),
    ("st_distance(15.0, 15.0, lat, lon) < 3", 6, 7),
    ("st_distance(lat, lon, 21, 21) <= 2", 5, 6),
    ("lat > 35", 6, 6),
    ("lat BETWEEN 11 AND 19", 6, 7),                  # each bound meets a box of file 6, no box both
    ("NOT (lat < 11 OR lat > 19)", 6, 7),             # the same range, negated
    ("lat BETWEEN 0 AND 3 AND lon BETWEEN 57 AND 61", 6, 7),   # lat of one cluster, lon of the other
    ("lat BETWEEN 38 AND 39 AND lon BETWEEN 58 AND 59", 6, 6),  # inside the second cluster
    (f"st_contains('{P1}', lat, lon) AND lon > 55", 6, 7),      # polygon on one box, lon on the other
    ("lon IN (5, 45)", 2, 3),
    (f"NOT st_contains('{P1}', lat, lon)", 0, 0),      # NOT of a UDF: nothing is provable
    ("st_distance(lat, lon, 15.0, 15.0) > 3", 0, 0),  # only "near" is mapped
]


@pytest.mark.parametrize("predicate,minmax_skips,geobox_skips", CASES, ids=[c[0][:60] for c in CASES])
def test_geo_udf_skips_files_outside_the_shape(spark, grids, predicate, minmax_skips, geobox_skips):
    for setup, skipped in (("minmax", minmax_skips), ("geobox", geobox_skips)):
        _, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{grids[setup]}` WHERE {predicate}")
        assert (setup, stats.files_skipped) == (setup, skipped)


def test_polygon_query_returns_the_points_inside(spark, grids):
    rows, _ = run_both_ways(spark, f"SELECT lat, lon FROM parquet.`{grids['geobox']}` "
                                   f"WHERE st_contains('{P2}', lat, lon)")
    assert rows == [(27.5, 30.0)]                    # the only grid point strictly inside the triangle


@pytest.mark.parametrize("indexes", ["minmax", "geobox"])
def test_points_with_one_coordinate_or_nan_are_never_lost(spark, tmp_path, indexes):
    root = str(tmp_path / "odd")
    os.makedirs(root)
    for i in range(2):
        write_file(root, i, odd_table(i))
    Skipstone.for_path(spark, root).build(*INDEXES[indexes]())
    rows, _ = run_both_ways(spark, f"SELECT lat, lon FROM parquet.`{root}` WHERE lon = 5")
    assert (None, 5.0) in rows
    # NaN is larger than any number in Spark. Parquet's own pushdown drops NaN rows here
    # (footers omit NaN from min/max: see DESIGN.md), so it is off for this query.
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")
    try:
        rows = spark.sql(f"SELECT lon FROM parquet.`{root}` WHERE lat > 100").collect()
    finally:
        spark.conf.set("spark.sql.parquet.filterPushdown", "true")
    assert [r.lon for r in rows] == [55.0]


@pytest.mark.parametrize("indexes", ["minmax", "geobox"])
def test_file_changed_after_indexing_is_read(spark, tmp_path, indexes):
    root = write_grid(str(tmp_path / "grid"))
    Skipstone.for_path(spark, root).build(*INDEXES[indexes]())
    # file 5 (cell lat 20..30, lon 40..50) now holds points near (2, 2) instead
    write_file(root, 5, pa.table({"lat": [2.0, 2.5], "lon": [2.0, 2.5], "id": pa.array([999, 998], pa.int32())}))
    rows, stats = run_both_ways(spark, f"SELECT id FROM parquet.`{root}` WHERE st_distance(lat, lon, 2, 2) < 1")
    assert (999,) in rows
    assert stats.per_dataset[0].files_unindexed == 1


def test_real_cities_in_the_research_triangle(spark, tmp_path_factory):
    """Real GeoNames cities, kd-partitioned into 16 files: both indexes skip all files whose
    extent misses the polygon's bounding box, and GeoBox at least as many."""
    base = tmp_path_factory.mktemp("cities")
    minmax, geobox = write_cities(str(base / "minmax")), write_cities(str(base / "geobox"))
    Skipstone.for_path(spark, minmax).build(MinMax("lat"), MinMax("lon"), geo_minmax_mapping())
    Skipstone.for_path(spark, geobox).build(GeoBox("lat", "lon", boxes=8))
    query = f"SELECT name FROM parquet.`{{}}` WHERE st_contains('{RESEARCH_TRIANGLE}', lat, lon)"
    rows, by_minmax = run_both_ways(spark, query.format(minmax))
    _, by_geobox = run_both_ways(spark, query.format(geobox))
    assert by_minmax.files_total == 16
    assert by_minmax.files_skipped == 16 - _files_meeting_box(spark, minmax, -79.1, -78.5, 35.7, 36.1)
    assert by_geobox.files_skipped >= by_minmax.files_skipped


def _files_meeting_box(spark, root: str, lon0: float, lon1: float, lat0: float, lat1: float) -> int:
    from pyspark.sql import functions as F

    extents = spark.read.parquet(root).groupBy("_metadata.file_path").agg(
        F.min("lat").alias("a"), F.max("lat").alias("b"), F.min("lon").alias("c"), F.max("lon").alias("d"))
    return extents.where((F.col("a") <= lat1) & (F.col("b") >= lat0) & (F.col("c") <= lon1)
                         & (F.col("d") >= lon0)).count()


BOUNDARY_CASES = {
    # lat's type, file 0's points, a query that holds for the first point only
    "decimal": (pa.decimal128(20, 20), [("0.10000000000000001900", "0.5"), ("0.1", "0.5")],
                "lat > 0.10000000000000001800"),
    "bigint": (pa.int64(), [(2**53 + 1, 7), (None, None)], f"lat > {2**53}"),
}


@pytest.mark.parametrize("kind", BOUNDARY_CASES)
def test_boxes_on_exact_coordinates_keep_the_boundary_value(spark, tmp_path, kind):
    # 0.100000000000000019 and 2**53 + 1 both round to a float64 below them: a box ending at
    # that float64 would leave the point out, and the query above would skip its file.
    import decimal

    arrow_type, points, predicate = BOUNDARY_CASES[kind]
    value = decimal.Decimal if kind == "decimal" else int

    def table(pts: list) -> pa.Table:
        return pa.table({axis: pa.array([None if p[i] is None else value(p[i]) for p in pts], arrow_type)
                         for i, axis in enumerate(("lat", "lon"))})

    small = [("0.05", "0.05")] * 2 if kind == "decimal" else [(5, 5)] * 2
    root = str(tmp_path / kind)
    os.makedirs(root)
    write_file(root, 0, table(points))
    write_file(root, 1, table(small))
    Skipstone.for_path(spark, root).build(GeoBox("lat", "lon", boxes=2))
    rows, stats = run_both_ways(spark, f"SELECT lat FROM parquet.`{root}` WHERE {predicate}")
    assert len(rows) == 1
    assert stats.files_skipped == 1
