"""File-selection strategies of continuous optimization (the table-optimization guide's model):
each looks at the newest version and selects a bounded batch of work, or nothing."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from skipstone.table import manifest
from skipstone.table.maintenance_config import MaintenanceConfig

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class UnindexedSelection:
    """Files other writers dropped into the root, oldest first, within the batch."""

    paths: tuple[str, ...]  # absolute
    bytes: int
    reason: str


@dataclass(frozen=True)
class CompactionSelection:
    """Blocks whose rows are spread over several files (appends add a file per block)."""

    blocks: tuple[int, ...]
    files: tuple[manifest.DataFile, ...]
    bytes: int
    reason: str


def select_unindexed(spark: SparkSession, base: manifest.TableVersion,
                     config: MaintenanceConfig) -> UnindexedSelection | None:
    from pyspark.sql import DataFrame

    tables = spark._jvm.io.skipstone.table.Tables  # type: ignore[union-attr]
    listed = DataFrame(tables.unindexed(spark._jsparkSession, base.root), spark).collect()
    candidates = [r for r in listed if r.modification_time >= config.unindexed_from_millis]
    chosen, total = [], 0
    for r in candidates:  # oldest first (the JVM sorts them)
        if chosen and total + r.size > config.batch_bytes:
            break
        chosen.append(r.path)
        total += r.size
    if not chosen:
        return None
    return UnindexedSelection(tuple(chosen), total, f"{len(chosen)} of {len(candidates)} unindexed files, oldest first, "
                                                    f"{total} bytes (batch {config.batch_bytes})")


def select_compaction(base: manifest.TableVersion, config: MaintenanceConfig) -> CompactionSelection | None:
    by_block: dict[int, list[manifest.DataFile]] = {}
    for f in base.files:
        by_block.setdefault(f.block, []).append(f)
    target_rows = float(base.properties["layout.blockRows"])
    # A block over twice its target is split into several files on purpose; fragmented means more
    # files than its rows need.
    fragmented = sorted(((b, fs) for b, fs in by_block.items()
                         if len(fs) > max(1, int(sum(f.rows for f in fs) // (2 * target_rows)) + 1)),
                        key=lambda item: (-len(item[1]), item[0]))
    blocks, files, total = [], [], 0
    for block, fs in fragmented:
        size = sum(f.size for f in fs)
        if blocks and total + size > config.batch_bytes:
            break
        blocks.append(block)
        files.extend(fs)
        total += size
    if not blocks:
        return None
    return CompactionSelection(tuple(blocks), tuple(files), total,
                               f"{len(blocks)} of {len(fragmented)} fragmented blocks ({len(files)} files, "
                               f"{total} bytes, batch {config.batch_bytes})")
