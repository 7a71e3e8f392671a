"""What the plots show, computed without drawing anything (so tests can check it against the table).

Block extents come from the skipping metadata (a managed table keeps MinMax on every layout
column): a block's box spans its files' smallest minimum and largest maximum. A query's boxes
come from its predicate, translated by the JVM exactly as the workload log records it and cut
into boxes over the layout's columns by ``skipstone.layout.Query``.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skipstone.errors import SkipstoneError
from skipstone.layout.predicates import And, Or, parse_predicate
from skipstone.layout.queries import Query
from skipstone.layout.schema import Column, ColumnKind
from skipstone.session import java_call, jvm_entry

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from skipstone import ManagedTable

#: A bound of a box side: a number, date or timestamp, or None when the side is unbounded.
Bound = Any


@dataclass(frozen=True)
class BlockBox:
    """One block's bounding box over the two plotted columns, from its files' MinMax metadata."""

    block: int
    files: int
    rows: int
    x: tuple[Bound, Bound]
    y: tuple[Bound, Bound]


@dataclass(frozen=True)
class QueryBox:
    """One box of a query projected on the two plotted columns; closed bounds, None is unbounded."""

    x: tuple[Bound, Bound]
    y: tuple[Bound, Bound]


@dataclass(frozen=True)
class BlocksFigure:
    table: str
    x: str
    y: str
    blocks: tuple[BlockBox, ...]
    where: str | None
    query_boxes: tuple[QueryBox, ...]
    read: frozenset[int] | None = None
    """The blocks the query reads as far as the two plotted columns decide (``read_blocks``), None without a query."""

    @property
    def files_read(self) -> int:
        return sum(b.files for b in self.blocks if self.read is not None and b.block in self.read)


@dataclass(frozen=True)
class WorkloadBar:
    """One logged query: how many of the files it could read it read, and how many it skipped."""

    query: int
    time: dt.datetime
    predicate: str | None
    files_read: int
    files_skipped: int
    files_total: int
    version: int = 0
    """The table version the query read."""


@dataclass(frozen=True)
class WorkloadEvent:
    """A commit that changed the layout or the files (an optimize), drawn between the last query
    that read an older version and the first that read it or a newer one."""

    version: int
    label: str
    position: float
    """On the query axis: half way between two query numbers (0.5 before the first query)."""


def blocks_figure(spark: SparkSession, table: ManagedTable, x: str, y: str, where: str | None = None,
                  logged: int | None = None) -> BlocksFigure:
    """The blocks of ``table``'s newest version over columns ``x`` and ``y``; with a query (SQL
    ``where``, or the ``logged``-th query of the workload log, 1 the oldest), its boxes and the
    blocks it reads."""
    layout_schema = table.tree().schema
    for name in (x, y):
        _plottable(layout_schema.column(name) if name in layout_schema.names else None, name, table.root)
    blocks = block_boxes(spark, table, x, y)
    if logged is not None:
        where, predicate = logged_query(table, logged)
    elif where:
        predicate = predicate_json(spark, table.root, where)
    else:
        return BlocksFigure(table.root, x, y, blocks, None, ())
    boxes = boxes_of(predicate, layout_schema, x, y)
    return BlocksFigure(table.root, x, y, blocks, where, boxes, read_blocks(blocks, boxes))


def read_blocks(blocks: tuple[BlockBox, ...], boxes: tuple[QueryBox, ...]) -> frozenset[int]:
    """The blocks whose box meets one of the query's boxes: those MinMax metadata on the two
    plotted columns cannot skip (the query's constraints on other columns are not drawn)."""
    return frozenset(b.block for b in blocks if any(_meets(b.x, q.x) and _meets(b.y, q.y) for q in boxes))


def _meets(span: tuple[Bound, Bound], bounds: tuple[Bound, Bound]) -> bool:
    """A block's [min, max] meets a query's closed [low, high] (None: unbounded on that side)."""
    low, high = bounds
    if span[0] is None and span[1] is None:  # no values but NULLs: MinMax skips it for any range
        return low is None and high is None
    return (low is None or span[1] is None or span[1] >= low) and (high is None or span[0] is None or span[0] <= high)


def logged_query(table: ManagedTable, number: int) -> tuple[str, dict[str, Any] | None]:
    """The ``number``-th logged query of ``table`` (1: the oldest) as a label and its predicate."""
    rows = table.workload().select("predicate").collect()
    if not 1 <= number <= len(rows):
        raise SkipstoneError(f"table {table.root} has {len(rows)} logged queries; there is no query {number}")
    text = rows[number - 1].predicate
    predicate = None if text is None else json.loads(text)
    return f"logged query {number}: {predicate_text(predicate)}", predicate


def predicate_text(predicate: dict[str, Any] | None) -> str:
    """A logged predicate (the workload log's JSON) written as SQL would, for a legend.

    >>> predicate_text({"and": [{"column": "a", "op": "<", "value": 5},
    ...                         {"or": [{"column": "b", "op": "IN", "value": [1, 2]}, {"not": {"column": "c", "op": "=", "value": "x"}}]}]})
    "a < 5 AND (b IN (1, 2) OR NOT c = 'x')"
    """
    if predicate is None:
        return "no condition the layout can use"
    return str(parse_predicate(predicate).accept(_SqlText()))


class _SqlText:
    """A predicate as SQL text; connectives below another are parenthesized."""

    def comparison(self, p: Any) -> str:
        return f"{p.column} {p.op} {_literal(p.value)}"

    def in_list(self, p: Any) -> str:
        return f"{p.column} IN ({', '.join(_literal(v) for v in p.values)})"

    def between(self, p: Any) -> str:
        return f"{p.column} BETWEEN {_literal(p.low)} AND {_literal(p.high)}"

    def conjunction(self, p: Any) -> str:
        return " AND ".join(self._nested(c) for c in p.children)

    def disjunction(self, p: Any) -> str:
        return " OR ".join(self._nested(c) for c in p.children)

    def negation(self, p: Any) -> str:
        return f"NOT {self._nested(p.child)}"

    def _nested(self, child: Any) -> str:
        text = child.accept(self)
        return f"({text})" if isinstance(child, (And, Or)) else text


def _literal(value: Any) -> str:
    return f"'{value}'" if isinstance(value, str) else str(value)


def block_boxes(spark: SparkSession, table: ManagedTable, x: str, y: str) -> tuple[BlockBox, ...]:
    found = list(java_call(jvm_entry(spark).currentVersion, spark._jsparkSession, table.root))
    if not found:
        raise SkipstoneError(f"table {table.root} has no skipping metadata; run `skipstone refresh {table.root}`")
    metadata_dir, definition = str(found[1]), json.loads(found[2])
    roles = {name: _minmax_columns(definition, name, table.root) for name in (x, y)}
    selected = ["path", roles[x][0], roles[x][1], roles[y][0], roles[y][1]]
    by_path = {_canonical(r[0]): r[1:] for r in spark.read.parquet(metadata_dir).select(*selected).collect()}
    version = table.current()
    prefix = _canonical(version.root).rstrip("/") + "/"
    grouped: dict[int, list[Any]] = {}
    missing = []
    for f in version.files:
        meta = by_path.get(prefix + f.path)
        if meta is None:
            missing.append(f.path)
            continue
        grouped.setdefault(f.block, []).append((f, meta))
    if missing:
        raise SkipstoneError(f"{len(missing)} live files of table {table.root} have no skipping metadata "
                             f"(e.g. {missing[0]}); run `skipstone refresh {table.root}`")
    return tuple(
        BlockBox(block, len(members), sum(f.rows for f, _ in members),
                 _span([m[0] for _, m in members], [m[1] for _, m in members]),
                 _span([m[2] for _, m in members], [m[3] for _, m in members]))
        for block, members in sorted(grouped.items())
    )


def query_boxes(spark: SparkSession, table: ManagedTable, where: str, x: str, y: str) -> tuple[QueryBox, ...]:
    """The boxes of the rows ``where`` may select, over ``x`` and ``y`` (other columns ignored)."""
    return boxes_of(predicate_json(spark, table.root, where), table.tree().schema, x, y)


def boxes_of(predicate: dict[str, Any] | None, schema: Any, x: str, y: str) -> tuple[QueryBox, ...]:
    """A predicate's boxes over ``x`` and ``y`` (None: nothing the layout can use, every row may match)."""
    if predicate is None:
        return (QueryBox((None, None), (None, None)),)
    boxes = Query.from_json(predicate, schema).boxes
    ix, iy = schema.index(x), schema.index(y)
    projected = {
        (_closed(schema.column(x), lo[ix], hi[ix]), _closed(schema.column(y), lo[iy], hi[iy]))
        for lo, hi in zip(boxes.low, boxes.high)
    }
    return tuple(QueryBox(bx, by) for bx, by in sorted(projected, key=repr))


def predicate_json(spark: SparkSession, root: str, where: str) -> dict[str, Any] | None:
    """``where`` as the workload log would record it for a query on the table (None: no usable
    constraint). Analysis errors (an unknown column, bad SQL) surface as Spark reports them."""
    plan = spark.read.parquet(root).where(where)._jdf.queryExecution().optimizedPlan()
    while plan.getClass().getSimpleName() != "Filter":
        children = plan.children()
        if children.size() == 0:
            return None
        plan = children.apply(0)
    translated = spark._jvm.io.skipstone.table.PredicateJson.apply(plan.condition())
    if translated.isEmpty():
        return None
    json_methods = getattr(getattr(spark._jvm.org.json4s.jackson, "JsonMethods$"), "MODULE$")  # a Scala object
    return json.loads(json_methods.compact(translated.get()))


def workload_bars(table: ManagedTable) -> tuple[WorkloadBar, ...]:
    """Every logged query of ``table``, oldest first."""
    rows = table.workload().select("time", "predicate", "files_read", "files_total", "version").collect()
    return tuple(WorkloadBar(i + 1, r.time, r.predicate, int(r.files_read), int(r.files_total - r.files_read),
                             int(r.files_total), int(r.version))
                 for i, r in enumerate(rows))


def workload_events(table: ManagedTable, bars: tuple[WorkloadBar, ...]) -> tuple[WorkloadEvent, ...]:
    """The table's optimize commits, placed among the queries by the versions they read."""
    commits = table.history().where("operation = 'OPTIMIZE'").select("version", "strategy").orderBy("version").collect()
    return tuple(WorkloadEvent(int(c.version), f"v{c.version} {c.strategy or 'optimize'}",
                               sum(1 for b in bars if b.version < c.version) + 0.5)
                 for c in commits)


def _plottable(column: Column | None, name: str, table: str) -> None:
    if column is None:
        raise SkipstoneError(f"column {name!r} is not a layout column of table {table}")
    if column.kind is ColumnKind.CATEGORICAL:
        raise SkipstoneError(f"column {name!r} of table {table} is categorical (strings or booleans); "
                             "plot needs numeric, date or timestamp columns")


def _minmax_columns(definition: dict[str, Any], column: str, table: str) -> tuple[str, str]:
    for ix in definition.get("indexes", []):
        if ix.get("kind") == "minmax" and list(ix.get("columns", [])) == [column]:
            return ix["metadataColumns"]["min"], ix["metadataColumns"]["max"]
    raise SkipstoneError(f"table {table} has no MinMax index on column {column!r}, which the plot reads block "
                         f"extents from; rebuild its indexes with it (`skipstone index {table} minmax:{column} ...`)")


def _span(lows: list[Any], highs: list[Any]) -> tuple[Bound, Bound]:
    """Smallest minimum and largest maximum; a NaN maximum (NaN sorts above every double) is unbounded."""
    lows = [v for v in lows if v is not None and not (isinstance(v, float) and math.isnan(v))]
    highs = [math.inf if isinstance(v, float) and math.isnan(v) else v for v in highs if v is not None]
    return (min(lows) if lows else None, max(highs) if highs else None)


def _closed(column: Column, low: float, high: float) -> tuple[Bound, Bound]:
    """The encoded half-open interval (low, high] as closed bounds in the column's own units."""
    if column.kind.discrete and not math.isinf(low):
        low = low + 1.0  # (low, high] over whole numbers is [low + 1, high]
    return (_decoded(column, low), _decoded(column, high))


def _decoded(column: Column, value: float) -> Bound:
    if math.isinf(value):
        return None
    if column.kind is ColumnKind.DATE:
        return dt.date(1970, 1, 1) + dt.timedelta(days=int(value))
    if column.kind is ColumnKind.TIMESTAMP:
        # naive local time, as pyspark returns the metadata's timestamps
        instant = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(microseconds=int(value))
        return instant.astimezone().replace(tzinfo=None)
    if column.kind is ColumnKind.INTEGER:
        return int(value)
    return value


def _canonical(uri: str) -> str:
    """``file:///a`` and ``file:/a`` are one file (the JVM's spelling of a file URI)."""
    return re.sub(r"^([A-Za-z][A-Za-z0-9+.\-]*):///", r"\1:/", uri)
