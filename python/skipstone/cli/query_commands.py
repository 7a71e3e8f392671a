"""``stats``: what Skipstone skipped for a SQL query, or how a table or dataset is laid out and indexed."""
from __future__ import annotations

import dataclasses
import re
import time

import typer

from skipstone.cli.failures import reported
from skipstone.cli.metadata_commands import show_stats
from skipstone.cli.output import console, emit, print_json, say
from skipstone.cli.progress import spark_progress

# An argument that starts like a query is one; anything else names a table or dataset.
_QUERY = re.compile(r"\s*(\(|(SELECT|WITH|FROM|VALUES|TABLE)\b)", re.IGNORECASE)


def is_query(text: str) -> bool:
    """Whether ``stats``' argument is a SQL query (it starts with SELECT, WITH, FROM, VALUES, TABLE or ``(``).

    >>> is_query("select 1"), is_query("/data/events"), is_query("db.events")
    (True, False, False)
    """
    return _QUERY.match(text) is not None


def register(app: typer.Typer) -> None:
    @app.command("stats")
    @reported
    def stats(
        ctx: typer.Context,
        sql: str = typer.Argument(..., metavar="QUERY_OR_TABLE",
                                  help="A SQL query (it starts with SELECT, WITH, FROM, VALUES or TABLE), e.g. "
                                       "\"SELECT count(*) FROM parquet.`/data/t` WHERE a < 5\"; or a managed table "
                                       "or indexed dataset (a path holding / or :, or a catalog name)."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    ) -> None:
        """Run a SQL query and show what Skipstone skipped for it; or show a table's files, blocks and indexes.

        For a query: per indexed dataset, files and bytes skipped, by which index, and what no
        index could use (the query's rows are counted, not printed).

        For a table or dataset: its version, files, rows and bytes, how its files spread over
        blocks, and its indexes, from its metadata alone (no Spark session for a path).
        """
        if not is_query(sql):
            show_stats(ctx.obj, sql, as_json)
            return
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
        say(f"{rows:,} rows in {seconds:.2f} s; skipped {found.files_skipped:,} of {found.files_total:,} "
            f"files, {found.bytes_skipped:,} of {found.bytes_total:,} bytes")
        if not per_dataset:
            say("no dataset the query read has a Skipstone index")
            return
        emit(per_dataset, "skipping per dataset", as_json=False,
             columns=["path", "files_skipped", "files_total", "bytes_skipped", "rows_skipped", "files_unindexed"],
             squeeze=("path",))
        by_index = [{"path": d["path"], "index": index, "files_skipped": files}
                    for d in per_dataset for index, files in (d.get("skipped_by_index") or {}).items()]
        if by_index:
            console.print()
            emit(by_index, "files each index ruled out on its own", as_json=False, squeeze=("path", "index"))
        for d in per_dataset:
            for part in d.get("unanswered") or []:
                say(f"no index of {d['path']} could use: {part}")
