"""``plot blocks`` and ``plot workload``: PNG pictures of a managed table."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from skipstone.cli.failures import reported
from skipstone.cli.output import console

plots = typer.Typer(help="Draw a managed table as a PNG: its blocks, or its workload.", no_args_is_help=True)


@plots.command("blocks")
@reported
def blocks(
    ctx: typer.Context,
    table: str = typer.Argument(..., help="The managed table's directory."),
    x: str = typer.Option(..., "--x", help="Column on the horizontal axis (numeric, date or timestamp)."),
    y: str = typer.Option(..., "--y", help="Column on the vertical axis."),
    query: Optional[str] = typer.Option(None, "--query", "--where", help="A SQL predicate, e.g. \"a < 5000 and b > 3\": "
                                        "its boxes are drawn on top and the blocks it reads shaded."),
    logged: Optional[int] = typer.Option(None, "--logged", help="Shade for the N-th logged query of the table "
                                         "(1 the oldest) instead."),
    out: Path = typer.Option(Path("blocks.png"), "--out", help="The PNG file to write."),
) -> None:
    """Each block's bounding box over two columns (from its files' MinMax metadata); with a query,
    the blocks it reads shaded apart from those it skips."""
    from skipstone.cli.plot_data import blocks_figure
    from skipstone.cli.plot_draw import draw_blocks
    from skipstone.cli.table_commands import open_table

    spark = ctx.obj.spark
    figure = blocks_figure(spark, open_table(spark, table), x, y, query, logged)
    written = draw_blocks(figure, out)
    read = "" if figure.read is None else f", the query reads {len(figure.read)} ({figure.files_read} files)"
    console.print(f"wrote {written}: {len(figure.blocks)} blocks{read}", highlight=False)


@plots.command("workload")
@reported
def workload(
    ctx: typer.Context,
    table: str = typer.Argument(..., help="The managed table's directory."),
    out: Path = typer.Option(Path("workload.png"), "--out", help="The PNG file to write."),
) -> None:
    """Files read by each query of the table's workload log, in the order run, with its optimizes marked."""
    from skipstone.cli.plot_data import workload_bars, workload_events
    from skipstone.cli.plot_draw import draw_workload
    from skipstone.cli.table_commands import open_table

    t = open_table(ctx.obj.spark, table)
    bars = workload_bars(t)
    events = workload_events(t, bars)
    written = draw_workload(bars, t.root, out, events)
    console.print(f"wrote {written}: {len(bars)} queries, {len(events)} optimizes", highlight=False)
