"""Printing results: a table for people, ``--json`` for scripts (one JSON document).

User text (paths, names, values, messages) is printed as it is: the consoles interpret no
markup (``[bold]``) and no emoji codes (``:car:``). A table is as wide as its widest cells; one
that would not fit the terminal (80 columns in a pipe) is printed as records instead, one
``field  value`` line each, so that no cell is wrapped over lines.
"""
from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import typer
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def plain_console(stderr: bool = False) -> Console:
    """A console that prints text as given: no markup, emoji codes or highlighting."""
    return Console(stderr=stderr, soft_wrap=True, markup=False, emoji=False, highlight=False)


console = plain_console()


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


def emit(rows: Sequence[Mapping[str, Any]], title: str, as_json: bool, columns: Sequence[str] | None = None,
         squeeze: Sequence[str] = ()) -> None:
    """Print ``rows`` as a table titled ``title``, or as a JSON list with ``as_json``.

    A table wider than the terminal first shortens the cells of the ``squeeze`` columns (names,
    paths: their middle becomes ``…``), down to ``MIN_SQUEEZED`` characters; if it still does not
    fit, the rows are printed as records."""
    names = list(columns) if columns is not None else (list(rows[0]) if rows else [])
    if as_json:
        print_json([{n: plain(r.get(n)) for n in names} for r in rows])
        return
    cells = [[" ".join(cell(r.get(n), n).split()) for n in names] for r in rows]
    widths = [max([len(n), *(len(row[i]) for row in cells)]) for i, n in enumerate(names)]
    for i in sorted((names.index(n) for n in squeeze if n in names), key=lambda i: -widths[i]):
        excess = table_width(widths) - console.width
        if excess > 0:
            widths[i] = max(MIN_SQUEEZED, len(names[i]), widths[i] - excess)
    if table_width(widths) > console.width:
        print_records(names, cells, title)
        return
    table = Table(title=Text(title), title_justify="left", box=None, pad_edge=False, header_style="bold")
    for name, width in zip(names, widths):
        table.add_column(Text(name), no_wrap=True, min_width=width, max_width=width)
    for row in cells:
        table.add_row(*(Text(shortened(c, w)) for c, w in zip(row, widths)))
    print_trimmed(table)


def print_trimmed(renderable: Any) -> None:
    """Print without the spaces rich pads a table's last column with (they only get in a pipe's way)."""
    with console.capture() as captured:
        console.print(renderable)
    typer.echo("\n".join(line.rstrip() for line in captured.get().splitlines()))


#: the fewest characters a squeezed column keeps
MIN_SQUEEZED = 10


def table_width(widths: Sequence[int]) -> int:
    """Columns a table takes: its cells and a space either side of each, but at the edges."""
    return sum(widths) + 2 * max(0, len(widths) - 1)


def shortened(text: str, width: int) -> str:
    """``text`` in ``width`` characters: its start and end, with ``…`` for the middle."""
    if len(text) <= width:
        return text
    head = (width - 1) // 2
    return text[:head] + "…" + text[len(text) - (width - 1 - head):]


def print_records(names: Sequence[str], cells: Sequence[Sequence[str]], title: str) -> None:
    """Rows one field a line (``psql``'s expanded view), for rows too wide for the terminal."""
    console.print(Text(title))
    pad = max((len(n) for n in names), default=0)
    for number, row in enumerate(cells, start=1):
        console.print(Text(f"-[ {number} ]" + "-" * max(0, min(console.width, pad + 20) - len(f"-[ {number} ]"))))
        for name, value in zip(names, row):
            console.print(Text(f"{name.ljust(pad)}  {value}"))


def emit_value(value: Mapping[str, Any], title: str, as_json: bool) -> None:
    """One record: ``field  value`` lines under its title, or a JSON object."""
    if as_json:
        print_json(plain(dict(value)))
        return
    print_fields(value, title)


def print_fields(value: Mapping[str, Any], title: str) -> None:
    """``field  value`` lines, values wrapped under themselves when long."""
    table = Table(title=Text(title), title_justify="left", show_header=False, box=None, padding=(0, 2, 0, 0))
    table.add_column("field", no_wrap=True)
    table.add_column("value", overflow="fold")
    for k, v in value.items():
        table.add_row(Text(str(k)), Text(cell(v, str(k))))
    print_trimmed(table)


def say(message: str) -> None:
    """One line for people, printed as it is."""
    console.print(Text(message))


def print_json(document: Any) -> None:
    """Plain JSON on stdout (no colours or wrapping), so that ``--json | jq`` always parses."""
    typer.echo(json.dumps(document, indent=2))


#: fields holding numbers that name something (a version, a block): shown without separators
IDENTIFIERS = frozenset({"version", "block", "metadata_version"})


def cell(value: Any, field: str = "") -> str:
    """A value as a table shows it: counts with separators, times to the second, lists joined."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:,.6g}"
    if isinstance(value, int):
        return str(value) if field in IDENTIFIERS else f"{value:,}"
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={cell(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(cell(v) for v in value)
    return str(plain(value))


def local_time(iso: str | None) -> dt.datetime | None:
    """The JVM's ISO instant (``2026-11-26T10:00:00.123Z``) as a local time, for tables."""
    if not iso:
        return None
    return dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone().replace(tzinfo=None)
