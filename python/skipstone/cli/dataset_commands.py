"""Indexes of a dataset (a directory of files or a catalog table): index, refresh, drop
(``describe`` reads metadata only: metadata_commands)."""
from __future__ import annotations

from typing import TYPE_CHECKING, List

import typer

from skipstone.cli.failures import reported
from skipstone.cli.index_specs import known_kinds, parse_index_spec
from skipstone.cli.output import say
from skipstone.cli.progress import spark_progress
from skipstone.cli.targets import TARGET_HELP, is_catalog_name

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from skipstone import Skipstone

def open_dataset(spark: SparkSession, target: str, data_format: str = "parquet") -> Skipstone:
    """The catalog table ``target`` names, or the directory at that path (skipstone.cli.targets' rule)."""
    from skipstone import Skipstone

    if is_catalog_name(target):
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
        say(f"indexed {target}: {', '.join(ix.describe() for ix in indexes)}")

    @app.command("refresh")
    @reported
    def refresh(ctx: typer.Context, target: str = typer.Argument(..., help=TARGET_HELP)) -> None:
        """Index new and changed files of a dataset and forget deleted ones; unchanged files are not read."""
        spark = ctx.obj.spark
        dataset = open_dataset(spark, target)
        with spark_progress(spark, f"refreshing {target}"):
            dataset.refresh()
        say(f"refreshed {target}")

    @app.command("drop")
    @reported
    def drop(ctx: typer.Context, target: str = typer.Argument(..., help=TARGET_HELP)) -> None:
        """Delete a dataset's Skipstone metadata (never its data)."""
        existed = open_dataset(ctx.obj.spark, target).drop()
        say(f"dropped the indexes of {target}" if existed else f"{target} had no Skipstone index")
