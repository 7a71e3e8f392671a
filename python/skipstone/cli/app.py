"""The ``skipstone`` application: global options, the command groups, and the entry point."""
from __future__ import annotations

import sys
from typing import List, Optional

import typer

from skipstone.cli import (dataset_commands, metadata_commands, plot_commands, query_commands, sample_commands,
                           table_commands)
from skipstone.cli.failures import reported
from skipstone.cli.state import CliState, parse_conf

app = typer.Typer(
    name="skipstone",
    help="Skipstone: data skipping indexes and self-organizing tables for Spark SQL.\n\n"
         "describe, history, properties, files and stats of a path read metadata without Spark; the other commands "
         "start a Spark session. A TABLE or TARGET holding / or : is a path (./events for one here); any other is "
         "a catalog name (db.events).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def versions() -> str:
    """Skipstone's version, and the pyspark and Java it runs with (without starting either)."""
    from importlib.metadata import PackageNotFoundError, version

    import skipstone

    try:
        pyspark = version("pyspark")
    except PackageNotFoundError:
        pyspark = "not installed"
    return f"skipstone {skipstone.__version__} (pyspark {pyspark})"


def print_version(value: bool) -> None:
    if value:
        typer.echo(versions())
        raise typer.Exit()


@app.callback()
@reported
def options(
    ctx: typer.Context,
    master: str = typer.Option("local[2]", "--master", help="Spark master URL, e.g. local[4], spark://host:7077, yarn."),
    conf: Optional[List[str]] = typer.Option(None, "--conf", help="A Spark setting KEY=VALUE; repeat for more."),
    version: bool = typer.Option(False, "--version", callback=print_version, is_eager=True,
                                 help="Print Skipstone's version and exit."),
) -> None:
    """Commands that run Spark jobs start their own Spark session with Skipstone enabled (--master, --conf point
    it elsewhere)."""
    state = ctx.obj if isinstance(ctx.obj, CliState) else CliState()
    if state.session is None:
        state.master, state.conf = master, parse_conf(conf or [])
    ctx.obj = state
    ctx.call_on_close(state.close)


for module in (dataset_commands, metadata_commands, query_commands, table_commands, sample_commands):
    module.register(app)
app.add_typer(plot_commands.plots, name="plot")


def main(argv: list[str] | None = None) -> int:
    """The console script ``skipstone`` and ``python -m skipstone``."""
    import logging

    # pyspark logs every analysis error it raises, with the JVM stack; the CLI prints its own line
    logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)
    try:
        app(args=argv if argv is not None else sys.argv[1:], prog_name="skipstone", standalone_mode=True)
    except SystemExit as e:
        return int(e.code or 0) if not isinstance(e.code, str) else 1
    return 0
