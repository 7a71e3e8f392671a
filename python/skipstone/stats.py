"""Per-query skipping statistics."""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from skipstone.session import jvm_entry

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DatasetStats:
    """What skipping did to one indexed dataset of a query.

    >>> d = skipstone.last_query_stats(spark).per_dataset[0]            # doctest: +SKIP
    >>> d.files_skipped, d.files_total, d.skipped_by_index               # doctest: +SKIP
    (98, 100, {'MinMax(ts)': 98})
    """

    path: str
    files_total: int
    files_skipped: int
    bytes_total: int
    bytes_skipped: int
    files_unindexed: int = 0
    """Files read because they had no metadata or changed after indexing."""
    unanswered: tuple[str, ...] = ()
    """Predicate parts no index could use: why more was not skipped."""
    rows_skipped: int = 0
    """Rows in the skipped files, from their metadata."""
    skipped_by_index: dict[str, int] = field(default_factory=dict)
    """Per index (e.g. ``"MinMax(ts)"``), how many of the skipped files it alone ruled out."""
    files_outside_where: int = 0
    """Files read because a partial index's WHERE holds for none of their rows (docs/partial-indexes.md)."""


@dataclass(frozen=True)
class QueryStats:
    """Skipping statistics of one query, summed over its indexed datasets.

    >>> st = QueryStats([DatasetStats("file:/data/a", 10, 7, 1000, 700), DatasetStats("file:/data/b", 5, 1, 500, 100)])
    >>> st.files_skipped, st.files_total
    (8, 15)
    """

    per_dataset: list[DatasetStats] = field(default_factory=list)

    @property
    def files_total(self) -> int:
        """Files the query's indexed datasets hold."""
        return sum(d.files_total for d in self.per_dataset)

    @property
    def files_skipped(self) -> int:
        """Files skipping ruled out."""
        return sum(d.files_skipped for d in self.per_dataset)

    @property
    def bytes_total(self) -> int:
        """Bytes of the query's indexed datasets' files."""
        return sum(d.bytes_total for d in self.per_dataset)

    @property
    def bytes_skipped(self) -> int:
        """Bytes of the skipped files."""
        return sum(d.bytes_skipped for d in self.per_dataset)


def last_query_stats(spark: SparkSession) -> QueryStats:
    """Skipping statistics of the last query this session executed successfully that read files
    (statements that read none, such as ``SELECT 1`` or ``SHOW SKIPPING STATS``, leave the stats
    of the query before them; SQL's ``SHOW SKIPPING STATS`` shows the same).

    Datasets without a Skipstone index do not appear; a query over none has empty stats.

    >>> import skipstone
    >>> st = skipstone.last_query_stats(spark)          # doctest: +SKIP
    >>> st.files_skipped, st.files_total                 # doctest: +SKIP
    (93, 100)
    """
    raw = json.loads(jvm_entry(spark).lastQueryStats(spark._jsparkSession))
    if raw is None:
        return QueryStats()
    stats = QueryStats([
        DatasetStats(
            path=d["path"], files_total=d["files_total"], files_skipped=d["files_skipped"],
            bytes_total=d["bytes_total"], bytes_skipped=d["bytes_skipped"],
            files_unindexed=d["files_unindexed"], unanswered=tuple(d["unanswered"]),
            rows_skipped=d["rows_skipped"],
            skipped_by_index={i["index"]: i["files"] for i in d["skipped_by_index"]},
            files_outside_where=d.get("files_outside_where", 0),
        )
        for d in raw["per_dataset"]
    ])
    for d in stats.per_dataset:
        _log_dataset(d)
    return stats


def _log_dataset(d: DatasetStats) -> None:
    log.info("the last query skipped %d of %d files of %s (%d of %d bytes)", d.files_skipped, d.files_total,
             d.path, d.bytes_skipped, d.bytes_total)
    if d.skipped_by_index:
        log.debug("files of %s skipped by each index alone: %s", d.path, d.skipped_by_index)
    # an index the query could not use (metadata built under another read context, a failure)
    # is for the user to act on; a predicate part no index covers is detail
    unusable = [u for u in d.unanswered if " not used: " in u or u.startswith("error: ")]
    for reason in unusable:
        log.warning("%s: %s", d.path, reason)
    uncovered = [u for u in d.unanswered if u not in unusable]
    if uncovered:
        log.debug("parts of the predicate no index of %s could use: %s", d.path, "; ".join(uncovered))
    if d.files_outside_where:
        log.debug("%d files of %s are outside its partial index's WHERE and were read", d.files_outside_where, d.path)
    if d.files_unindexed:
        log.warning("%d files of %s have no skipping metadata or changed since they were indexed, and were read: "
                    "refresh() the index to skip them again", d.files_unindexed, d.path)
