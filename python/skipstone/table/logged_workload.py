"""A table's workload log as the driver reads it: whole, or only what was logged since last time.

An optimizer decides every few dozen queries, and a long-running table's log holds thousands:
reading and scanning all of it at every decision made deciding grow with the log (on Spark at
SF 1, 1.04 s a call by 7,200 logged queries; 5-8 s a call once the log passed 5,000 files and
went to a Spark job). So the driver keeps, per table, what it read: the records, the JVM's
cursor after them (the JVM owns the log's format and says when a cursor no longer holds: the
log was compacted or rewritten, or a late record belongs before it), and the queries parsed
with their template runs (``LoggedWorkload``). A decision then reads and scans only the new
records. Correctness does not depend on what is kept: an answer the JVM marks whole replaces it,
and ``forget`` (or a cold driver) reads the log whole; either way the records, their order and
so every decision are those of reading the whole log.
"""
from __future__ import annotations

import collections
import json
import logging
import threading
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Sequence

from skipstone.layout.bounded.patterns import LoggedWorkload
from skipstone.layout.queries import Query
from skipstone.layout.schema import Schema
from skipstone.session import java_call
from skipstone.table.transaction import operations

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

class Record(NamedTuple):
    """One logged query as the driver keeps it: what it filtered and read, and what it took.
    ``read_share`` is the share of the table's bytes in the columns it read; it and the others
    after ``version`` are None in logs written before they were kept."""

    predicate: str
    version: int
    read_share: float | None = None
    files_read: int | None = None
    bytes_read: int | None = None
    duration_ms: float | None = None


def logged_records(spark: SparkSession, root: str) -> list[Record]:
    """Every logged query of the table, oldest first, read by the driver
    (``io.skipstone.table.Tables.loggedPredicatesJson``)."""
    text = java_call(operations(spark).Tables.loggedPredicatesJson, spark._jsparkSession, root)
    return _records(json.loads(text))


def _records(rows: list) -> list[Record]:
    def at(r: list, i: int, kind: type) -> float | int | None:
        return None if len(r) <= i or r[i] is None else kind(r[i])

    return [Record(str(r[0]), int(r[1]), at(r, 2, float), at(r, 3, int), at(r, 4, int), at(r, 5, float))  # type: ignore[arg-type]
            for r in rows]


def records_after(spark: SparkSession, root: str, cursor: str) -> tuple[bool, list[Record], str]:
    """The records logged after ``cursor`` (an earlier answer's; "" from the start): whether they
    are the whole log (the cursor no longer held), the records, and the cursor after them
    (``io.skipstone.table.Tables.loggedPredicatesAfterJson``)."""
    text = java_call(operations(spark).Tables.loggedPredicatesAfterJson, spark._jsparkSession, root, cursor)
    answer = json.loads(text)
    return bool(answer["whole"]), _records(answer["records"]), str(answer["cursor"])


def parse_logged(pairs: Sequence[tuple[str, int]], schema: Schema, root: str) -> list[tuple[Query, int]]:
    """The logged predicates as the layout's queries under ``schema``, each with the version it
    read; ones it cannot read are skipped with a warning."""
    parsed = _parsed_queries(schema)
    out = []
    for predicate, version in pairs:
        try:
            if predicate not in parsed:
                parsed[predicate] = Query.from_json(json.loads(predicate), schema)
            out.append((parsed[predicate], int(version)))
        except (ValueError, TypeError, KeyError) as e:
            warnings.warn(f"Skipstone: ignoring logged predicate {predicate}: {e}", stacklevel=3)
            log.warning("ignoring logged predicate %s of %s: %s", predicate, root, e)
    return out


_PARSED: collections.OrderedDict[Schema, dict[str, Query]] = collections.OrderedDict()
_PARSED_SCHEMAS, _PARSED_PER_SCHEMA = 8, 100_000


def _parsed_queries(schema: Schema) -> dict[str, Query]:
    """The logged predicates already parsed under ``schema`` (a Query is immutable). Kept: an
    optimizer asking every few dozen queries would otherwise parse the whole log each time. The
    last few schemas, each up to a bound (then it starts afresh)."""
    parsed = _PARSED.pop(schema, None)
    if parsed is None or len(parsed) > _PARSED_PER_SCHEMA:
        parsed = {}
    _PARSED[schema] = parsed
    while len(_PARSED) > _PARSED_SCHEMAS:
        _PARSED.popitem(last=False)
    return parsed


@dataclass(frozen=True)
class TableWorkload:
    """What the driver read of one table's log: every record, oldest first; the queries it could
    parse under ``schema`` (a ``LoggedWorkload``: their template runs come along) and the
    version each read; and the JVM's cursor after the last record."""

    root: str
    cursor: str
    records: tuple[Record, ...]
    schema: Schema
    queries: LoggedWorkload
    versions: tuple[int, ...]

    @staticmethod
    def of(root: str, cursor: str, records: Sequence[Record], schema: Schema) -> TableWorkload:
        logged = parse_logged([(r.predicate, r.version) for r in records], schema, root)
        return TableWorkload(root, cursor, tuple(records), schema, LoggedWorkload([q for q, _ in logged]),
                             tuple(v for _, v in logged))

    def extended(self, cursor: str, records: Sequence[Record]) -> TableWorkload:
        """This workload followed by ``records`` (parsed alone; the runs extended by theirs)."""
        logged = parse_logged([(r.predicate, r.version) for r in records], self.schema, self.root)
        return TableWorkload(self.root, cursor, self.records + tuple(records), self.schema,
                             self.queries.extended([q for q, _ in logged]), self.versions + tuple(v for _, v in logged))


MAX_TABLES = 64  # tables whose read log the driver keeps, least recently used out
_read: collections.OrderedDict[str, TableWorkload] = collections.OrderedDict()
_lock = threading.Lock()  # tables optimized from several threads share what was read


def table_workload(spark: SparkSession, root: str, schema: Schema) -> TableWorkload:
    """The table's logged workload, its queries parsed under ``schema``: what was read before
    extended with the records logged since, or the whole log when nothing was kept for this
    table and schema or the JVM says the cursor no longer holds (the log was compacted or
    rewritten)."""
    before = kept(root)
    if before is not None and before.schema != schema:  # the records hold; their queries are parsed anew
        before = TableWorkload.of(root, before.cursor, before.records, schema)
    whole, records, cursor = records_after(spark, root, "" if before is None else before.cursor)
    if whole or before is None:
        if before is not None:
            log.info("the workload log of %s changed under its cursor (compacted or rewritten): read whole", root)
        workload = TableWorkload.of(root, cursor, records, schema)
    else:
        workload = before.extended(cursor, records) if records else before
    keep(workload)
    return workload


def kept(root: str) -> TableWorkload | None:
    """What the driver keeps of ``root``'s log, if anything."""
    with _lock:
        return _read.get(root)


def keep(workload: TableWorkload) -> None:
    """Keep ``workload`` as what was read of its table's log (a reader that read it whole, or
    a benchmark putting back what it had, so that the next read is of what followed)."""
    with _lock:
        _read[workload.root] = workload
        _read.move_to_end(workload.root)
        while len(_read) > MAX_TABLES:
            _read.popitem(last=False)


def forget(root: str | None = None) -> None:
    """Drop what was read of ``root``'s log (of every table's when None): the next read is whole."""
    with _lock:
        if root is None:
            _read.clear()
        else:
            _read.pop(root, None)
