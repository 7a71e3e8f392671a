"""``sample``: write a small sample dataset to try the other commands on; ``demo``: the demo."""
from __future__ import annotations

import typer

from skipstone.cli.failures import reported
from skipstone.cli.output import console


def register(app: typer.Typer) -> None:
    @app.command("sample")
    @reported
    def sample(
        path: str = typer.Argument(..., help="Local directory to write the Parquet files to."),
        rows: int = typer.Option(300_000, "--rows", min=1, help="Weather events to write."),
        files: int = typer.Option(100, "--files", min=1, help="Parquet files to write them in (in time order)."),
        seed: int = typer.Option(7, "--seed", help="Random seed: the same seed writes the same data."),
    ) -> None:
        """Write sample weather events (ts, station, city, temp, humidity, wind) as Parquet files, with pyarrow."""
        from skipstone.sample_data import write_weather

        write_weather(path, rows=rows, files=files, seed=seed)
        console.print(f"wrote {rows:,} weather events in {files} Parquet files to {path}", highlight=False)

    @app.command("demo", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
    def demo(ctx: typer.Context) -> None:
        """Index a sample dataset and time queries with and without Skipstone (`make demo`); takes --path DIR and --repeats N."""
        from skipstone import demo as demo_module

        raise typer.Exit(demo_module.main(list(ctx.args)))
