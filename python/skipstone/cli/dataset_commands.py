"""Indexes of a dataset (a directory of files or a catalog table): index, refresh, describe, drop."""
from __future__ import annotations

from typing import TYPE_CHECKING, List

import typer

from skipstone.cli.failures import reported
from skipstone.cli.index_specs import known_kinds, parse_index_spec
from skipstone.cli.output import console, emit, frame_rows
from skipstone.cli.progress import spark_progress

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from skipstone import Skipstone

TARGET_HELP = "A dataset directory (path or URI) or a catalog table name."
JSON_HELP = "Print JSON instead of a table."


def open_dataset(spark: SparkSession, target: str, data_format: str = "parquet") -> Skipstone:
    """A catalog table when ``target`` names one, otherwise the directory at that path."""
    from skipstone import Skipstone

    if "/" not in target and ":" not in target and spark.catalog.tableExists(target):
        return Skipstone.for_table(spark, target)
    return Skipstone.for_path(spark, target, format=data_format)


def register(app: typer.Typer) -> None:
    @app.command("index")
    @reported
    def index(
        ctx: typer.Context,
        target: str = typer.Argument(..., help=TARGET_HELP),
        specs: List[str] = typer.Argument(..., help="Index specs KIND:COLUMN[,COLUMN][:PARAM=VALUE...], e.g. "
                                                   "minmax:ts valuelist:city bloomfilter:user_id:fpp=0.01. Kinds: "
                                                   + ", ".join(known_kinds()) + "."),
        data_format: str = typer.Option("parquet", "--format", help="File format of a directory: parquet, orc, json, csv."),
        footers: bool = typer.Option(True, "--footers/--no-footers",
                                     help="Read MinMax of exact Parquet columns from file footers instead of scanning."),
    ) -> None:
        """Build Skipstone indexes for a dataset (replaces its earlier indexes), in one Spark job."""
        indexes = [parse_index_spec(s) for s in specs]
        spark = ctx.obj.spark
        dataset = open_dataset(spark, target, data_format)
        with spark_progress(spark, f"indexing {target}"):
            dataset.build(*indexes, use_footers=footers)
        console.print(f"indexed {target}: {', '.join(ix.describe() for ix in indexes)}", highlight=False)

    @app.command("refresh")
    @reported
    def refresh(ctx: typer.Context, target: str = typer.Argument(..., help=TARGET_HELP)) -> None:
        """Index new and changed files of a dataset and forget deleted ones; unchanged files are not read."""
        spark = ctx.obj.spark
        dataset = open_dataset(spark, target)
        with spark_progress(spark, f"refreshing {target}"):
            dataset.refresh()
        console.print(f"refreshed {target}", highlight=False)

    @app.command("describe")
    @reported
    def describe(ctx: typer.Context, target: str = typer.Argument(..., help=TARGET_HELP),
                 as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
        """List a dataset's indexes: kind, columns, metadata version, files indexed, where the metadata lives."""
        rows = frame_rows(open_dataset(ctx.obj.spark, target).describe())
        if not rows and not as_json:
            console.print(f"{target} has no Skipstone index", highlight=False)
            return
        emit(rows, f"Skipstone indexes of {target}", as_json)

    @app.command("drop")
    @reported
    def drop(ctx: typer.Context, target: str = typer.Argument(..., help=TARGET_HELP)) -> None:
        """Delete a dataset's Skipstone metadata (never its data)."""
        existed = open_dataset(ctx.obj.spark, target).drop()
        console.print(f"dropped the indexes of {target}" if existed else f"{target} had no Skipstone index",
                      highlight=False)
