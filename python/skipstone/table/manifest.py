"""Python's view of a managed table's versions. The JVM owns the log and its format
(docs/table-format.md); Python reads entries as the JSON the JVM returns and hands it changes."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from skipstone.layout.serialization import layout_from_json
from skipstone.layout.layout import Layout
from skipstone.session import java_call

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class DataFile:
    path: str  # relative to the table root
    size: int
    modification_time: int
    block: int
    rows: int

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "size": self.size, "modificationTime": self.modification_time,
                "block": self.block, "rows": self.rows}


@dataclass(frozen=True, eq=False)
class TableVersion:
    """One committed version: its live files, tree, skipping-metadata version and properties."""

    root: str
    version: int
    timestamp_ms: int
    operation: str
    files: tuple[DataFile, ...]
    layout: dict[str, Any]
    metadata_version: int | None
    properties: dict[str, str] = field(default_factory=dict)

    @staticmethod
    def from_json(root: str, text: str) -> TableVersion:
        d = json.loads(text)
        files = tuple(DataFile(f["path"], f["size"], f["modificationTime"], f["block"], f["rows"]) for f in d["files"])
        return TableVersion(root, d["version"], d["timestamp"], d["operation"], files, d.get("layout") or {},
                            d.get("metadataVersion"), dict(d.get("properties") or {}))

    @property
    def tree(self) -> Layout:
        return layout_from_json(self.layout)

    @property
    def bytes_per_row(self) -> float:
        """The live files' bytes over their rows (0 for an empty table): what a policy prices a row at."""
        return sum(f.size for f in self.files) / max(1, sum(f.rows for f in self.files))

    def absolute(self, f: DataFile) -> str:
        return f"{self.root}/{f.path}"

    def files_of(self, blocks: Sequence[int]) -> list[DataFile]:
        wanted = set(blocks)
        return [f for f in self.files if f.block in wanted]


def latest(spark: SparkSession, root: str) -> TableVersion | None:
    text = java_call(_tables(spark).latest, spark._jsparkSession, root)
    return None if text is None else TableVersion.from_json(root, text)


def at(spark: SparkSession, root: str, version: int) -> TableVersion:
    """Version ``version`` of the table at ``root`` (a SkipstoneError if the log no longer has it)."""
    return TableVersion.from_json(root, java_call(_tables(spark).snapshot, spark._jsparkSession, root, int(version)))


def commit(spark: SparkSession, root: str, read_version: int, operation: str, added: Sequence[DataFile],
           removed: Sequence[str] = (), layout: Mapping[str, Any] | None = None, metadata_version: int | None = None,
           properties: Mapping[str, str] | None = None, commit_info: Mapping[str, Any] | None = None,
           absorbed: Sequence[str | Mapping[str, Any]] = ()) -> TableVersion:
    """Commit a change made against ``read_version``; raises SkipstoneError when a concurrent
    commit conflicts with it (then nothing of this change is in any version). ``absorbed``:
    unindexed files (dropped in by other writers) whose rows ``added`` now holds, each its name
    and content identity (``{"path", "size", "modificationTime", "fingerprint"}``)."""
    change = {"operation": operation, "added": [f.to_json() for f in added], "removed": list(removed),
              "metadataVersion": metadata_version, "properties": dict(properties or {}),
              "commitInfo": finite(dict(commit_info or {})), "absorbed": list(absorbed)}
    if layout is not None:
        change["layout"] = dict(layout)
    # Strict JSON: the log's reader (Jackson) refuses NaN and infinities.
    text = java_call(_tables(spark).commit, spark._jsparkSession, root, int(read_version),
                     json.dumps(change, allow_nan=False))
    return TableVersion.from_json(root, text)


def finite(value: Any) -> Any:
    """Commit info with each NaN or infinite number (a policy's benefit may be one) as a string."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def _tables(spark: SparkSession) -> Any:
    from skipstone.session import jvm_entry

    jvm_entry(spark)  # checks the extension is active
    return spark._jvm.io.skipstone.table.Tables  # type: ignore[union-attr]
