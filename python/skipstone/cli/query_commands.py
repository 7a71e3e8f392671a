"""``stats``: run a SQL query and show what Skipstone skipped for it."""
from __future__ import annotations

import dataclasses
import time

import typer

from skipstone.cli.failures import reported
from skipstone.cli.output import console, emit, print_json
from skipstone.cli.progress import spark_progress


def register(app: typer.Typer) -> None:
    @app.command("stats")
    @reported
    def stats(
        ctx: typer.Context,
        sql: str = typer.Argument(..., help="A SQL query, e.g. \"SELECT count(*) FROM parquet.`/data/t` WHERE a < 5\"."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    ) -> None:
        """Run a SQL query and show what Skipstone skipped for it.

        Per indexed dataset: files and bytes skipped, by which index, and what no index could use.

        The query's rows are counted, not printed.
        """
        import skipstone

        spark = ctx.obj.spark
        start = time.perf_counter()
        with spark_progress(spark, "running the query"):
            rows = len(spark.sql(sql).collect())
        seconds = time.perf_counter() - start
        found = skipstone.last_query_stats(spark)
        per_dataset = [dataclasses.asdict(d) for d in found.per_dataset]
        if as_json:
            print_json({"rows": rows, "seconds": round(seconds, 3), "files_total": found.files_total,
                        "files_skipped": found.files_skipped, "bytes_total": found.bytes_total,
                        "bytes_skipped": found.bytes_skipped, "datasets": per_dataset})
            return
        console.print(f"{rows:,} rows in {seconds:.2f} s; skipped {found.files_skipped:,} of {found.files_total:,} "
                      f"files, {found.bytes_skipped:,} of {found.bytes_total:,} bytes", highlight=False)
        if not per_dataset:
            console.print("no dataset the query read has a Skipstone index", highlight=False)
            return
        emit(per_dataset, "skipping per dataset", as_json=False,
             columns=["path", "files_skipped", "files_total", "bytes_skipped", "bytes_total", "rows_skipped",
                      "files_unindexed", "skipped_by_index", "unanswered"])
