"""Skipping metadata for a table's files, built by the existing machinery (the Skipstone class)
over exactly the files a version lists, not over whatever the directory holds."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from skipstone.dataset import Skipstone

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

FileTriple = tuple[str, int, int]  # canonical absolute path, size, modification time


class FileSetIndex(Skipstone):
    """A Skipstone dataset whose file listing is a given set of files."""

    def __init__(self, spark: SparkSession, root: str, files: Sequence[FileTriple],
                 schema: StructType | None = None) -> None:
        super().__init__(spark, root, "parquet")
        self._paths = [path for path, _, _ in files]
        self._schema = schema

    def _read(self, files: list[str] | None = None) -> DataFrame:
        # Exactly the version's files: the directory also holds files earlier versions replaced.
        # The table's schema, when given, spares Spark inferring it from a footer (a job).
        reader = self._spark.read if self._schema is None else self._spark.read.schema(self._schema)
        return reader.parquet(*(self._paths if files is None else files))

    def _as_built(self, definition: Mapping[str, Any]) -> Skipstone:
        return self

    def replace_files(self, added: Sequence[FileTriple]) -> None:
        """Publish metadata for this index's files when only ``added`` are new: the rows of the
        others are kept, the new files' are collected. A table knows which files a commit adds,
        so unlike ``refresh()`` this never compares the current metadata with a listing (two
        joins and their jobs, the larger part of an optimize on small tables)."""
        self._replace_files(sorted({p for p, _, _ in added}))

    def published(self) -> tuple[int, dict[str, int]]:
        """The current metadata version and, from it, each file's row count."""
        current = self._current()
        assert current is not None, "metadata was just published"
        version, table_dir, _ = current
        rows = {r.path: int(r.num_rows) for r in self._spark.read.parquet(table_dir).select("path", "num_rows").collect()}
        return version, rows


def replace_metadata(spark: SparkSession, root: str, live: Sequence[FileTriple],
                     added: Sequence[FileTriple], schema: StructType | None = None) -> tuple[int, dict[str, int]]:
    """Metadata for the files ``live`` of a new version, of which exactly ``added`` are new;
    ``schema`` is the table's, when known."""
    index = FileSetIndex(spark, root, live, schema)
    index.replace_files(added)
    return index.published()
