"""Managed tables: create, append, optimize, vacuum, calibrate (what reads metadata only, such as
history, is in metadata_commands)."""
from __future__ import annotations

import dataclasses
from enum import Enum
from typing import TYPE_CHECKING, Any, List, Optional

import typer

from skipstone.cli.failures import errors, reported
from skipstone.cli.index_specs import parse_index_spec
from skipstone.cli.output import emit, emit_value, frame_rows, print_json, say
from skipstone.cli.progress import spark_progress
from skipstone.cli.state import parse_assignments
from skipstone.cli.targets import TABLE_HELP, is_catalog_name, open_table
from skipstone.errors import SkipstoneError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

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
                     "as SQL names it")
        return _DEPRECATED_LAYOUTS[lower]
    return lower


def column_list(columns: Optional[str]) -> list[str]:
    return [c.strip() for c in columns.split(",") if c.strip()] if columns else []


# what a file's name says of its format, for `append --from` without --format
_FORMATS_BY_SUFFIX = {".parquet": "parquet", ".csv": "csv", ".json": "json", ".jsonl": "json", ".orc": "orc"}


def source_format(source: str, given: Optional[str]) -> str:
    """``--format``, else the format the name of ``source`` (a file, or a directory's files) says, else parquet."""
    import glob
    import os

    if given:
        return given.lower()
    names = [source] if not os.path.isdir(source) else sorted(glob.glob(os.path.join(source, "*")))
    for name in names:
        found = _FORMATS_BY_SUFFIX.get(os.path.splitext(name)[1].lower())
        if found:
            return found
    return "parquet"


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
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a sentence."),
    ) -> None:
        """Create a managed table from existing data, laid out by a partitioning tree or a curve."""
        from skipstone import Skipstone

        spark = ctx.obj.spark
        spec = layout_for(spark, layout, columns, block_rows, block_bytes)
        indexes = [parse_index_spec(s) for s in index or []]
        if is_catalog_name(source):
            df = spark.table(source)
        else:
            df = spark.read.format(data_format).load(source)
        with spark_progress(spark, f"creating {table}"):
            t = Skipstone.create(spark, table, df, layout=spec, indexes=indexes)
        v = t.current()
        made = {"root": t.root, "version": v.version, "files": len(v.files), "blocks": len({f.block for f in v.files}),
                "rows": sum(f.rows for f in v.files)}
        if as_json:
            print_json(made)
            return
        say(f"created {made['root']}: version {made['version']}, {made['files']} files in {made['blocks']} blocks, "
            f"{made['rows']:,} rows")

    @app.command("append")
    @reported
    def append(
        ctx: typer.Context,
        table: str = typer.Argument(..., help=TABLE_HELP),
        source: str = typer.Option(..., "--from", help="The rows to add: a Parquet, CSV or JSON file or directory, "
                                                       "or a catalog table."),
        data_format: Optional[str] = typer.Option(
            None, "--format", help="parquet, csv, json or orc (default: what the files' names end in, else parquet)."),
        option: Optional[List[str]] = typer.Option(
            None, "--option", help="A reader option KEY=VALUE, e.g. --option delimiter=';'; repeat for more."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    ) -> None:
        """Add rows to a managed table (ManagedTable.append): routed through its layout into new files, indexed, committed.

        CSV and JSON are read with the table's columns and types (CSV with a header line unless
        --option header=false); Parquet and ORC must have the table's columns (in any order)."""
        spark = ctx.obj.spark
        t = open_table(spark, table)
        fmt = source_format(source, data_format)
        options = parse_assignments(option or [], "--option", "delimiter=;")
        if is_catalog_name(source):
            df = spark.table(source)
        else:
            reader = spark.read.format(fmt)
            if fmt in ("csv", "json"):  # text formats: the table says what each column is
                reader = reader.schema(t.read().schema)
                options = {"header": "true", **options} if fmt == "csv" else options
            df = reader.options(**options).load(source)
        with spark_progress(spark, f"appending to {table}"):
            result = t.append(df)
        emit_value(dataclasses.asdict(result), f"appended {result.rows:,} rows to {table}", as_json)

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
                if as_json:
                    emit_value({"committed": False}, "", as_json=True)
                else:
                    say(f"{table} already lays its rows out by the columns its workload filters on; nothing committed")
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
                say(f"no strategy found anything to do on {table} ({chosen.name} found no change that "
                    "pays for itself); nothing committed")
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
        force: bool = typer.Option(False, "--force", help="Allow a retention under the table's vacuum.retentionHours "
                                                           "(queries still reading older versions may fail)."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    ) -> None:
        """Delete files no retained version of the table lists (those an optimize replaced)."""
        spark = ctx.obj.spark
        t = open_table(spark, table)
        if not hasattr(t, "vacuum"):
            raise SkipstoneError("this version of Skipstone has no ManagedTable.vacuum; upgrade the package")
        with spark_progress(spark, f"vacuuming {table}"):
            rows = result_rows(t.vacuum(retention_hours=retention_hours, dry_run=dry_run, force=force))
        if not rows and not as_json:
            say(f"nothing to delete in {table}: every file is live or still within the retention"
                if dry_run else f"vacuumed {table}: nothing to delete")
            return
        emit(rows, f"{'would delete' if dry_run else 'deleted'} in {table}: {len(rows)} files, "
                   f"{sum(r.get('size') or 0 for r in rows):,} bytes", as_json, ["path", "kind", "size"], squeeze=("path",))

    @app.command("calibrate")
    @reported
    def calibrate(
        ctx: typer.Context,
        table: str = typer.Argument(..., help=TABLE_HELP),
        sample_bytes: float = typer.Option(256e6, "--sample-bytes", min=1.0,
                                           help="About how many bytes of the table's rows to copy and time."),
        repeats: int = typer.Option(2, "--repeats", min=1, help="Times each scan is timed."),
        from_log: bool = typer.Option(False, "--from-log",
                                      help="Learn the prices from the table's logged queries and commits instead "
                                           "of timing copies (nothing is written)."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    ) -> None:
        """Measure what reading and rewriting cost here and store the prices with the table (cost.* settings)."""
        t = open_table(ctx.obj.spark, table)
        with spark_progress(ctx.obj.spark, f"calibrating {table}"):
            measured = t.calibrate(sample_bytes=sample_bytes, repeats=repeats, source="log" if from_log else "timed")
        emit_value({**measured.properties(), "read_seconds_per_gb": measured.read_seconds_per_gb,
                    "seconds_per_file": measured.seconds_per_file,
                    "write_seconds_per_gb": measured.write_seconds_per_gb, "job_seconds": measured.job_seconds,
                    "query_seconds": measured.query_seconds},
                   f"calibrated {table}", as_json)
