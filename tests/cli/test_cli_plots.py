"""``skipstone create``, ``optimize``, ``history`` and the two plots, checked against the table's data."""
from __future__ import annotations

import json
import struct
from typing import Any

import pytest

from cli_runner import cli  # noqa: F401  (the fixture)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path: Any) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk, after checking the signature."""
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


@pytest.fixture(scope="module")
def source(spark: Any, tmp_path_factory: Any) -> str:
    from pyspark.sql import functions as F

    path = str(tmp_path_factory.mktemp("plots") / "source")
    (spark.range(4_000)
     .select((F.col("id") * 7919 % 4_000).cast("int").alias("a"),
             ((F.col("id") * 104729 % 1_000) / 1_000.0).alias("b"),
             F.date_add(F.lit("2024-01-01").cast("date"), (F.col("id") % 366).cast("int")).alias("d"),
             F.concat(F.lit("k"), (F.col("id") % 7).cast("string")).alias("c"))
     .repartition(3).write.parquet(path))
    return path


@pytest.fixture(scope="module")
def table(cli: Any, source: str, tmp_path_factory: Any) -> str:
    path = str(tmp_path_factory.mktemp("plots") / "table")
    run = cli("create", path, "--from", source, "--layout", "kdtree", "--columns", "a,b", "--block-rows", "500")
    assert run.exit_code == 0, run.stderr
    assert "created" in run.stdout
    return path


def rows_of(spark: Any, path: str) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in spark.read.parquet(path).select("a", "b", "d", "c").collect())


def block_extents(spark: Any, table: str) -> dict[int, tuple[Any, ...]]:
    """Per block, min and max of a and b computed from the rows of its live files."""
    from pyspark.sql import functions as F

    from skipstone import Skipstone

    t = Skipstone.for_path(spark, table)
    block_of = spark.createDataFrame([(f.path, f.block) for f in t.current().files], "rel string, block long")
    data = spark.read.parquet(table).select("a", "b", F.col("_metadata.file_path").alias("file"))
    joined = data.join(block_of, F.col("file").endswith(F.concat(F.lit("/"), F.col("rel"))))
    extents = joined.groupBy("block").agg(F.min("a"), F.max("a"), F.min("b"), F.max("b"), F.count("*")).collect()
    return {r[0]: tuple(r[1:]) for r in extents}


def test_create_keeps_every_row(spark: Any, source: str, table: str) -> None:
    assert rows_of(spark, table) == rows_of(spark, source)


def test_plot_blocks_draws_each_block_as_its_data_spans(cli: Any, spark: Any, table: str, tmp_path: Any) -> None:
    from skipstone.cli.plot_data import blocks_figure
    from skipstone.cli.table_commands import open_table

    out = tmp_path / "blocks.png"
    run = cli("plot", "blocks", table, "--x", "a", "--y", "b", "--where", "a < 1000 AND b >= 0.5", "--out", str(out))
    assert run.exit_code == 0, run.stderr
    assert png_size(out) == (800, 650)
    figure = blocks_figure(spark, open_table(spark, table), "a", "b", "a < 1000 AND b >= 0.5")
    expected = block_extents(spark, table)
    assert {b.block: (b.x[0], b.x[1], pytest.approx(b.y[0]), pytest.approx(b.y[1]), b.rows)
            for b in figure.blocks} == expected
    assert f"{len(expected)} blocks" in run.stdout
    [box] = figure.query_boxes
    assert box.x == (None, 999)
    assert box.y[0] == pytest.approx(0.5) and box.y[1] is None


def test_plot_blocks_takes_date_axes_and_an_or(cli: Any, spark: Any, table: str, tmp_path: Any) -> None:
    from skipstone.cli.plot_data import query_boxes
    from skipstone.cli.table_commands import open_table

    out = tmp_path / "dates.png"
    where = "d < '2024-02-01' OR a > 3500"
    assert cli("plot", "blocks", table, "--x", "d", "--y", "a", "--where", where, "--out", str(out)).exit_code == 0
    assert png_size(out) == (800, 650)
    import datetime as dt

    boxes = query_boxes(spark, open_table(spark, table), where, "d", "a")
    assert {(b.x, b.y) for b in boxes} == {((None, dt.date(2024, 1, 31)), (None, None)),
                                           ((dt.date(2024, 2, 1), None), (3501, None))}


def test_the_blocks_a_query_reads_are_those_minmax_skipping_reads(spark: Any, table: str) -> None:
    import skipstone
    from skipstone.cli.plot_data import blocks_figure
    from skipstone.cli.table_commands import open_table

    where = "a < 1000 AND b >= 0.5"
    figure = blocks_figure(spark, open_table(spark, table), "a", "b", where)
    extents = block_extents(spark, table)  # from the rows themselves
    assert figure.read == {block for block, (a_min, _, _, b_max, _) in extents.items() if a_min <= 999 and b_max >= 0.5}
    assert 0 < len(figure.read) < len(figure.blocks)
    spark.read.parquet(table).where(where).collect()
    stats = skipstone.last_query_stats(spark)
    assert figure.files_read == stats.files_total - stats.files_skipped


def test_plot_blocks_fills_read_and_skipped_blocks_apart_and_counts_them(spark: Any, table: str) -> None:
    from matplotlib.colors import to_rgb

    from skipstone.cli.plot_data import blocks_figure
    from skipstone.cli.plot_draw import READ_FILL, SKIPPED_FILL, blocks_plot
    from skipstone.cli.table_commands import open_table

    figure = blocks_figure(spark, open_table(spark, table), "a", "b", "a < 1000 AND b >= 0.5")
    fig = blocks_plot(figure)
    [ax] = fig.axes
    blocks = [p for p in ax.patches if (p.get_gid() or "").startswith("block-")]
    fills = [to_rgb(p.get_facecolor()) for p in blocks]
    read = len(figure.read or ())
    assert (fills.count(to_rgb(READ_FILL)), fills.count(to_rgb(SKIPPED_FILL))) == (read, len(figure.blocks) - read)
    assert all(p.get_alpha() < 0.5 for p in blocks)  # translucent: overlapping boxes stay visible
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0] == f"read: {read} blocks, {figure.files_read} files"
    assert legend[1].startswith(f"skipped: {len(figure.blocks) - read} blocks")


def test_block_labels_on_a_curve_layout_never_overlap(cli: Any, spark: Any, source: str, tmp_path: Any) -> None:
    from skipstone.cli.plot_data import blocks_figure
    from skipstone.cli.plot_draw import blocks_plot
    from skipstone.cli.table_commands import open_table

    path = str(tmp_path / "zorder")
    assert cli("create", path, "--from", source, "--layout", "zorder", "--columns", "a,b", "--block-rows", "40").exit_code == 0
    figure = blocks_figure(spark, open_table(spark, path), "a", "b", "b < 0.25")
    fig = blocks_plot(figure)
    fig.canvas.draw()
    [ax] = fig.axes
    labels = [t.get_window_extent() for t in ax.texts]
    assert len(figure.blocks) >= 64 and labels  # crowded: some boxes are labelled, those a label would collide in are not
    assert not any(a.overlaps(b) for i, a in enumerate(labels) for b in labels[i + 1:])


@pytest.mark.parametrize("x, y, named", [("a", "c", "'c'"), ("a", "zz", "'zz'")])
def test_plot_blocks_refuses_columns_it_cannot_draw(cli: Any, table: str, tmp_path: Any, x: str, y: str,
                                                     named: str) -> None:
    run = cli("plot", "blocks", table, "--x", x, "--y", y, "--out", str(tmp_path / "no.png"))
    assert run.exit_code == 1 and named in run.stderr
    assert not (tmp_path / "no.png").exists()


def test_plot_workload_shows_each_logged_query(cli: Any, spark: Any, table: str, tmp_path: Any) -> None:
    from skipstone.cli.plot_data import workload_bars
    from skipstone.cli.table_commands import open_table

    for limit in (300, 600, 900):
        assert cli("stats", f"SELECT count(*) FROM parquet.`{table}` WHERE a < {limit}").exit_code == 0
    out = tmp_path / "workload.png"
    run = cli("plot", "workload", table, "--out", str(out))
    assert run.exit_code == 0, run.stderr
    width, height = png_size(out)
    assert width >= 600 and height == 450
    logged = open_table(spark, table).workload().collect()
    bars = workload_bars(open_table(spark, table))
    assert [(b.files_read, b.files_total) for b in bars] == [(r.files_read, r.files_total) for r in logged]
    assert all(b.files_read + b.files_skipped == b.files_total for b in bars)
    assert sum(1 for r in logged if r.predicate and '"a"' in r.predicate) >= 3


def test_plot_blocks_for_a_logged_query_reads_what_its_sql_reads(cli: Any, spark: Any, table: str, tmp_path: Any) -> None:
    from skipstone.cli.plot_data import blocks_figure
    from skipstone.cli.table_commands import open_table

    assert cli("stats", f"SELECT count(*) FROM parquet.`{table}` WHERE a >= 3000 AND b < 0.25").exit_code == 0
    t = open_table(spark, table)
    number = t.workload().count()
    logged = blocks_figure(spark, t, "a", "b", logged=number)
    by_sql = blocks_figure(spark, t, "a", "b", "a >= 3000 AND b < 0.25")
    assert (logged.read, logged.query_boxes) == (by_sql.read, by_sql.query_boxes)
    assert logged.where == f"logged query {number}: a >= 3000 AND b < 0.25"
    run = cli("plot", "blocks", table, "--x", "a", "--y", "b", "--logged", str(number + 1), "--out", str(tmp_path / "no.png"))
    assert run.exit_code == 1 and f"there is no query {number + 1}" in run.stderr


def test_optimize_commits_a_change_history_shows_and_keeps_the_rows(cli: Any, spark: Any, source: str,
                                                                    table: str) -> None:
    for _ in range(4):
        cli("stats", f"SELECT count(*) FROM parquet.`{table}` WHERE b < 0.05")
    result = json.loads(cli("optimize", table, "--policy", "amoeba-adaptive", "--write-multiplier", "0.01",
                            "--json").stdout)
    assert result["committed"] is True
    history = json.loads(cli("history", table, "--json").stdout)
    assert [h["operation"] for h in history][0] == "CREATE"
    last = history[-1]
    assert (last["version"], last["operation"], last["rows_rewritten"]) == (
        result["version"], "OPTIMIZE", result["rows_rewritten"])
    assert "OPTIMIZE" in cli("history", table).stdout
    assert rows_of(spark, table) == rows_of(spark, source)


def test_plot_workload_marks_the_optimize_between_the_queries_around_it(cli: Any, spark: Any, table: str,
                                                                        tmp_path: Any) -> None:
    from skipstone.cli.plot_data import workload_bars, workload_events
    from skipstone.cli.plot_draw import workload_plot
    from skipstone.cli.table_commands import open_table

    assert cli("stats", f"SELECT count(*) FROM parquet.`{table}` WHERE b < 0.05").exit_code == 0
    t = open_table(spark, table)
    bars = workload_bars(t)
    events = workload_events(t, bars)
    optimized = [r.version for r in t.history().where("operation = 'OPTIMIZE'").collect()]
    assert [e.version for e in events] == optimized and events
    for e in events:
        before = [b.query for b in bars if b.version < e.version]
        assert e.position == len(before) + 0.5 and all(b.version >= e.version for b in bars[len(before):])
    fig = workload_plot(bars, t.root, events)
    fig.canvas.draw()
    [ax] = fig.axes
    ticks = [tick for tick in ax.get_xticks() if ax.get_xlim()[0] <= tick <= ax.get_xlim()[1]]
    assert ticks and all(float(tick).is_integer() for tick in ticks)
    assert [line.get_xdata()[0] for line in ax.lines] == [e.position for e in events]
    assert [t.get_text().strip() for t in ax.texts] == [e.label for e in events]
    assert ax.get_xlabel() and ax.get_ylabel()
    title = ax.title.get_window_extent()
    assert fig.bbox.x0 <= title.x0 and title.x1 <= fig.bbox.x1  # the title fits the figure
    out = tmp_path / "workload.png"
    run = cli("plot", "workload", table, "--out", str(out))
    assert run.exit_code == 0 and f"{len(events)} optimizes" in run.stdout


def test_optimize_layout_rewrites_the_whole_table_under_it(cli: Any, spark: Any, source: str, table: str) -> None:
    from skipstone import Skipstone

    old = {f.path for f in Skipstone.for_path(spark, table).current().files}
    result = json.loads(cli("optimize", table, "--layout", "hilbert", "--columns", "a,d", "--json").stdout)
    assert (result["committed"], result["strategy"], result["files_removed"]) == (True, "layout", len(old))
    current = Skipstone.for_path(spark, table).current()
    assert (current.layout["curve"], current.layout["columns"]) == ("hilbert", ["a", "d"])
    assert not old & {f.path for f in current.files}
    assert rows_of(spark, table) == rows_of(spark, source)


def test_create_and_optimize_take_sql_s_layout_names(cli: Any, spark: Any, source: str, tmp_path: Any) -> None:
    from skipstone import Skipstone

    path = str(tmp_path / "by-range")
    run = cli("create", path, "--from", source, "--layout", "range", "--columns", "d", "--block-rows", "1000")
    assert run.exit_code == 0, run.stderr
    t = Skipstone.for_path(spark, path)
    assert (json.loads(t.properties()["layout.spec"])["kind"], t.current().layout["kind"]) == ("Range", "tree")
    result = json.loads(cli("optimize", path, "--layout", "RANGE", "--columns", "a", "--json").stdout)
    assert (result["committed"], result["strategy"]) == (True, "layout")
    assert json.loads(t.properties()["layout.spec"])["columns"] == ["a"]
    assert rows_of(spark, path) == rows_of(spark, source)


def test_create_layout_kdtree_is_kd_with_a_deprecation_note(cli: Any, spark: Any, source: str, tmp_path: Any) -> None:
    from skipstone import Skipstone

    path = str(tmp_path / "by-kdtree")
    run = cli("create", path, "--from", source, "--layout", "kdtree", "--block-rows", "1000")
    assert run.exit_code == 0 and "--layout kdtree is deprecated; use --layout kd" in run.stderr
    assert json.loads(Skipstone.for_path(spark, path).properties()["layout.spec"])["kind"] == "KdTree"


@pytest.mark.parametrize(("args", "message"), [
    (["--layout", "kd", "--policy", "paw-rebuild"], "give --policy or --layout, not both"),
    (["--columns", "a"], "--columns goes with --layout"),
    (["--layout", "kd", "--columns", "zz"], "no layout column 'zz'"),
    (["--layout", "spiral"], "unknown layout (one of AMOEBA, KD, RANGE, ZORDER, HILBERT, PAW, QDTREE, AUTO)"),
    (["--layout", "qdtree", "--columns", "a"], "it cuts where the logged queries cut and takes no columns"),
    (["--layout", "auto", "--columns", "a"], "it chooses the columns from the table's logged workload and takes no BY"),
])
def test_optimize_options_that_do_not_fit_are_named(cli: Any, table: str, args: list[str], message: str) -> None:
    run = cli("optimize", table, *args)
    assert run.exit_code == 1 and message in run.stderr


def test_vacuum_dry_run_deletes_nothing(cli: Any, spark: Any, table: str) -> None:
    from skipstone import ManagedTable

    if not hasattr(ManagedTable, "vacuum"):
        pytest.skip("ManagedTable.vacuum(retention_hours, dry_run, force) is not in this build yet (branch 'health')")
    before = rows_of(spark, table)
    run = cli("vacuum", table, "--retention-hours", "0", "--dry-run", "--force", "--json")
    assert run.exit_code == 0, run.stderr
    json.loads(run.stdout)
    assert rows_of(spark, table) == before
