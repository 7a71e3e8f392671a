"""Printing results: a rich table for people, ``--json`` for scripts (one JSON document)."""
from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

console = Console(soft_wrap=True)


def frame_rows(df: DataFrame) -> list[dict[str, Any]]:
    """A (small) result DataFrame as plain dicts: metadata, history and workload, never data."""
    return [row.asDict(recursive=True) for row in df.collect()]


def plain(value: Any) -> Any:
    """A value JSON can hold: timestamps and dates as ISO text, decimals as numbers."""
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def emit(rows: Sequence[Mapping[str, Any]], title: str, as_json: bool, columns: Sequence[str] | None = None) -> None:
    """Print ``rows`` as a table titled ``title``, or as a JSON list with ``as_json``."""
    names = list(columns) if columns is not None else (list(rows[0]) if rows else [])
    if as_json:
        print_json([{n: plain(r.get(n)) for n in names} for r in rows])
        return
    table = Table(title=title, title_justify="left")
    for name in names:
        table.add_column(name, overflow="fold")
    for r in rows:
        table.add_row(*(_cell(r.get(n)) for n in names))
    console.print(table)


def emit_value(value: Mapping[str, Any], title: str, as_json: bool) -> None:
    """One record: a two-column table of its fields, or a JSON object."""
    if as_json:
        print_json(plain(dict(value)))
        return
    table = Table(title=title, title_justify="left", show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    for k, v in value.items():
        table.add_row(str(k), _cell(v))
    console.print(table)


def print_json(document: Any) -> None:
    """Plain JSON on stdout (no colours or wrapping), so that ``--json | jq`` always parses."""
    typer.echo(json.dumps(document, indent=2))


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:,.6g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if isinstance(value, (list, tuple, Mapping)):
        return json.dumps(plain(value))
    return str(plain(value))
