"""Managed tables: create, optimize, vacuum, calibrate, history."""
from __future__ import annotations

import dataclasses
from enum import Enum
from typing import TYPE_CHECKING, Any, List, Optional

import typer

from skipstone.cli.failures import errors, reported
from skipstone.cli.index_specs import parse_index_spec
from skipstone.cli.output import console, emit, emit_value, frame_rows
from skipstone.cli.progress import spark_progress
from skipstone.errors import SkipstoneError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from skipstone import ManagedTable

TABLE_HELP = "The managed table's directory (path or URI)."


class PolicyName(str, Enum):
    amoeba_adaptive = "amoeba-adaptive"
    paw_rebuild = "paw-rebuild"


# The CLI's own spelling before it took SQL's layout names; still accepted, with a note.
_DEPRECATED_LAYOUTS = {"kdtree": "kd"}
# no list of names here: an unknown name's error lists them (from the JVM's and Python's registries)
LAYOUT_HELP = "a layout as SQL's LAYOUT names it (docs/sql.md)"


def layout_name(name: str) -> str:
    """``--layout``'s value as SQL names the layout (lower case), after any deprecated spelling."""
    lower = name.strip().lower()
    if lower in _DEPRECATED_LAYOUTS:
        errors.print(f"note: --layout {lower} is deprecated; use --layout {_DEPRECATED_LAYOUTS[lower]}, "
                     "as SQL names it", highlight=False)
        return _DEPRECATED_LAYOUTS[lower]
    return lower


def column_list(columns: Optional[str]) -> list[str]:
    return [c.strip() for c in columns.split(",") if c.strip()] if columns else []


def open_table(spark: SparkSession, path: str) -> ManagedTable:
    """The managed table at ``path``; an error naming the path if it is none."""
    from skipstone import ManagedTable, Skipstone

    found = Skipstone.for_path(spark, path)
    if not isinstance(found, ManagedTable):
        raise SkipstoneError(f"{path} is not a Skipstone managed table (no log under {path}/_skipstone/log); "
                             "create one with `skipstone create`")
    return found


def policy_for(name: PolicyName, window: int, write_multiplier: Optional[float], max_rounds: int,
               delta: Optional[float], alpha: float, block_rows: Optional[int]) -> Any:
    from skipstone.layout import AmoebaAdaptive, PawRebuild

    # left out, the policy keeps its own multiplier, which matches its default cost model
    multiplier = {} if write_multiplier is None else {"write_multiplier": write_multiplier}
    if name is PolicyName.amoeba_adaptive:
        return AmoebaAdaptive(window=window, max_rounds=max_rounds, **multiplier)
    return PawRebuild(window=window, delta=delta, alpha=alpha, block_rows=block_rows, **multiplier)


def layout_for(spark: SparkSession, name: str, columns: Optional[str], block_rows: Optional[int],
               block_bytes: Optional[int]) -> Any:
    """The spec of a new table laid out by ``--layout name``: what ``CREATE TABLE ... LAYOUT name``
    means (the JVM says, io.skipstone.layout.builders.BuiltLayouts)."""
    from skipstone.layout import layout_spec_from_json
    from skipstone.session import java_call
    from skipstone.table.jvm_layout import builders

    return layout_spec_from_json(java_call(builders(spark).specForNewTable, layout_name(name), column_list(columns),
                                           block_rows, block_bytes))


def result_rows(result: Any) -> list[dict[str, Any]]:
    """Whatever an operation returned, as rows to print: a DataFrame, dataclass, mapping or list."""
    from pyspark.sql import DataFrame

    if isinstance(result, DataFrame):
        return frame_rows(result)
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return [dataclasses.asdict(result)]
    if isinstance(result, dict):
        return [result]
    if isinstance(result, (list, tuple)):
        return [r if isinstance(r, dict) else {"value": r} for r in result]
    return [{"result": result}]


def register(app: typer.Typer) -> None:
    @app.command("create")
    @reported
    def create(
        ctx: typer.Context,
        table: str = typer.Argument(..., help="Directory of the new managed table (must not exist or be empty)."),
        source: str = typer.Option(..., "--from", help="The data to load: a directory of files or a catalog table."),
        data_format: str = typer.Option("parquet", "--format", help="File format of --from when it is a directory."),
        layout: str = typer.Option("amoeba", "--layout", help=f"How blocks are cut: {LAYOUT_HELP}."),
        columns: Optional[str] = typer.Option(None, "--columns", help="Comma-separated layout columns (default: all)."),
        block_rows: Optional[int] = typer.Option(None, "--block-rows", help="Rows per block."),
        block_bytes: Optional[int] = typer.Option(None, "--block-bytes", help="Bytes per block (default 128 MiB)."),
        index: Optional[List[str]] = typer.Option(None, "--index", help="An extra index spec, e.g. valuelist:city; repeat."),
    ) -> None:
        """Create a managed table from existing data, laid out by a partitioning tree or a curve."""
        from skipstone import Skipstone

        spark = ctx.obj.spark
        spec = layout_for(spark, layout, columns, block_rows, block_bytes)
        indexes = [parse_index_spec(s) for s in index or []]
        if "/" not in source and ":" not in source and spark.catalog.tableExists(source):
            df = spark.table(source)
        else:
            df = spark.read.format(data_format).load(source)
        with spark_progress(spark, f"creating {table}"):
            t = Skipstone.create(spark, table, df, layout=spec, indexes=indexes)
        v = t.current()
        console.print(f"created {t.root}: version {v.version}, {len(v.files)} files in "
                      f"{len({f.block for f in v.files})} blocks, {sum(f.rows for f in v.files):,} rows", highlight=False)

    @app.command("optimize")
    @reported
    def optimize(
        ctx: typer.Context,
        table: str = typer.Argument(..., help=TABLE_HELP),
        policy: Optional[PolicyName] = typer.Option(
            None, "--policy", help="The layout policy that proposes a change (default: amoeba-adaptive)."),
        layout: Optional[str] = typer.Option(
            None, "--layout", help=f"Rewrite the whole table under this layout instead (SQL's OPTIMIZE ... LAYOUT): "
                                   f"{LAYOUT_HELP}."),
        columns: Optional[str] = typer.Option(
            None, "--columns", help="--layout: comma-separated layout columns (SQL's BY; zorder and hilbert need them)."),
        window: int = typer.Option(100, "--window", min=1, help="How many of the last logged queries it considers."),
        write_multiplier: Optional[float] = typer.Option(
            None, "--write-multiplier", min=0.0,
            help="A change must save more than this times what rewriting costs (default: the policy's, "
                 "calibrated on Spark)."),
        max_rounds: int = typer.Option(8, "--max-rounds", min=1, help="amoeba-adaptive: plans applied in one change."),
        delta: Optional[float] = typer.Option(None, "--delta", help="paw-rebuild: PAW's delta (default: estimated)."),
        alpha: float = typer.Option(4.0, "--alpha", help="paw-rebuild: PAW's multi-group threshold."),
        block_rows: Optional[int] = typer.Option(None, "--block-rows", help="paw-rebuild: rows per block (default: the table's)."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    ) -> None:
        """Run one iteration of continuous optimization (the table's strategies: unindexed files, compaction,
        then a policy that rewrites the blocks whose new layout pays for itself), or with --layout rewrite the
        whole table under a layout."""
        spark = ctx.obj.spark
        t = open_table(spark, table)
        if layout is not None:
            if policy is not None:
                raise SkipstoneError("give --policy or --layout, not both: --layout rewrites the whole table")
            from skipstone.table.relayout import relayout

            name = layout_name(layout)
            with spark_progress(spark, f"rewriting {table} under layout {name}"):
                result = relayout(spark, t.current(), name, column_list(columns))
            if result is None:  # LAYOUT AUTO: the layout already orders by the columns the workload calls for
                emit_value({"committed": False}, f"{table} already lays its rows out by the columns its workload "
                           "filters on; nothing committed", as_json)
                return
            emit_value({"committed": True, **dataclasses.asdict(result)}, f"optimized {table}", as_json)
            return
        if columns is not None:
            raise SkipstoneError("--columns goes with --layout")
        chosen = policy_for(policy or PolicyName.amoeba_adaptive, window, write_multiplier, max_rounds, delta, alpha,
                            block_rows)
        with spark_progress(spark, f"optimizing {table} with {chosen.name}"):
            result = t.optimize(chosen)
        if result is None:
            if as_json:
                emit_value({"committed": False}, "", as_json=True)
            else:
                console.print(f"no strategy found anything to do on {table} ({chosen.name} found no change that "
                              "pays for itself); nothing committed", highlight=False)
            return
        emit_value({"committed": True, **dataclasses.asdict(result)}, f"optimized {table}", as_json)

    @app.command("vacuum")
    @reported
    def vacuum(
        ctx: typer.Context,
        table: str = typer.Argument(..., help=TABLE_HELP),
        retention_hours: Optional[float] = typer.Option(
            None, "--retention-hours", min=0.0,
            help="Keep files a version newer than this many hours still lists (default: the table's "
                 "vacuum.retentionHours)."),
        dry_run: bool = typer.Option(False, "--dry-run", help="List what would be deleted; delete nothing."),
        force: bool = typer.Option(False, "--force", help="Passed on as ManagedTable.vacuum(force=True)."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    ) -> None:
        """Delete files no retained version of the table lists (those an optimize replaced)."""
        spark = ctx.obj.spark
        t = open_table(spark, table)
        if not hasattr(t, "vacuum"):
            raise SkipstoneError("this version of Skipstone has no ManagedTable.vacuum; upgrade the package")
        with spark_progress(spark, f"vacuuming {table}"):
            result = t.vacuum(retention_hours=retention_hours, dry_run=dry_run, force=force)
        emit(result_rows(result), f"{'would delete' if dry_run else 'vacuumed'} ({table})", as_json)

    @app.command("calibrate")
    @reported
    def calibrate(
        ctx: typer.Context,
        table: str = typer.Argument(..., help=TABLE_HELP),
        sample_bytes: float = typer.Option(256e6, "--sample-bytes", min=1.0,
                                           help="About how many bytes of the table's rows to copy and time."),
        repeats: int = typer.Option(2, "--repeats", min=1, help="Times each scan is timed."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    ) -> None:
        """Measure what reading and rewriting cost here and store the prices with the table (cost.* settings)."""
        t = open_table(ctx.obj.spark, table)
        with spark_progress(ctx.obj.spark, f"calibrating {table}"):
            measured = t.calibrate(sample_bytes=sample_bytes, repeats=repeats)
        emit_value({**measured.properties(), "read_seconds_per_gb": measured.read_seconds_per_gb,
                    "seconds_per_file": measured.seconds_per_file,
                    "write_seconds_per_gb": measured.write_seconds_per_gb, "job_seconds": measured.job_seconds},
                   f"calibrated {table}", as_json)

    @app.command("history")
    @reported
    def history(
        ctx: typer.Context,
        table: str = typer.Argument(..., help=TABLE_HELP),
        limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Only the newest N versions."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON (with each commit's full info)."),
    ) -> None:
        """One row per committed version: operation, benefit, cost, rows rewritten, files added and removed."""
        rows = frame_rows(open_table(ctx.obj.spark, table).history())
        if limit:
            rows = rows[-limit:]
        columns = None if as_json else ["version", "timestamp", "operation", "policy", "benefit", "cost",
                                        "rows_rewritten", "files_added", "files_removed", "files", "rows"]
        emit(rows, f"history of {table}", as_json, columns)
