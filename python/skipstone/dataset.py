"""The Python API over one dataset's Skipstone indexes."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from skipstone.collect import collect, metadata_column, resolve_columns
from skipstone.errors import SkipstoneError
from skipstone.indexes import IndexType, MinMax
from skipstone.session import java_call, jvm_entry

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import DataType

FORMAT_VERSION = 1


class Skipstone:
    """Skipstone indexes of one dataset: build, refresh, describe and drop them.

    >>> import skipstone
    >>> from skipstone import Skipstone, MinMax
    >>> ds = Skipstone.for_path(spark, "/data/weather")         # doctest: +SKIP
    >>> ds.build(MinMax("temp"), MinMax("ts"))                  # doctest: +SKIP
    >>> spark.sql("SELECT * FROM parquet.`/data/weather` WHERE temp > 40").count()  # doctest: +SKIP
    """

    def __init__(self, spark: SparkSession, root: str, data_format: str,
                 options: Mapping[str, str] | None = None, table: str | None = None) -> None:
        self._spark = spark
        self._jvm = jvm_entry(spark)
        self._jsession = spark._jsparkSession
        self.root = root
        self.format = data_format
        self.options = dict(options or {})
        self.table = table

    @classmethod
    def for_path(cls, spark: SparkSession, path: str, format: str = "parquet",
                 options: Mapping[str, str] | None = None) -> Skipstone:
        """The dataset stored under ``path`` (a directory of files, possibly Hive-partitioned).

        >>> ds = Skipstone.for_path(spark, "/data/weather")          # doctest: +SKIP
        >>> ds = Skipstone.for_path(spark, "/data/logs", format="json")  # doctest: +SKIP
        """
        entry = jvm_entry(spark)
        root = java_call(entry.qualify, spark._jsparkSession, path)
        from skipstone.table.manifest import latest  # managed tables: the same handle create returned

        if cls is Skipstone and latest(spark, root) is not None:
            from skipstone.table import ManagedTable

            return ManagedTable(spark, root)
        return cls(spark, root, format, options)

    @classmethod
    def create(cls, spark: SparkSession, path: str, df: DataFrame, layout: Any,
               indexes: Sequence[IndexType] = (), sample_rows: int | None = None) -> Any:
        """Create a managed table at ``path`` from ``df``, laid out by ``layout``; returns its
        handle (a ``skipstone.table.ManagedTable``). See docs/tables.md.

        >>> from skipstone.layout import Amoeba
        >>> t = Skipstone.create(spark, "/data/lineitem", df, layout=Amoeba(block_bytes=64 << 20),
        ...                      indexes=[MinMax("l_comment")])      # doctest: +SKIP
        """
        from skipstone.table import ManagedTable
        from skipstone.table.create import create_table

        version = create_table(spark, path, df, layout, indexes, sample_rows)
        return ManagedTable(spark, version.root)

    @classmethod
    def for_table(cls, spark: SparkSession, name: str) -> Skipstone:
        """A catalog table backed by files, e.g. ``Skipstone.for_table(spark, "db.weather")``."""
        entry = jvm_entry(spark)
        location, provider = java_call(entry.tableLocation, spark._jsparkSession, name)
        return cls(spark, location, provider, table=name)

    def __repr__(self) -> str:
        return f"Skipstone({self.table or self.root})"

    @property
    def _name(self) -> str:
        return self.table or self.root

    # -- building --------------------------------------------------------------------------

    def build(self, *indexes: IndexType, use_footers: bool = True) -> Skipstone:
        """Index every data file for ``indexes`` (one Spark job) and publish a new version.

        Replaces any earlier indexes of the dataset. When every index is a MinMax over a
        Parquet column whose footer statistics are exact (integers, decimals, dates,
        timestamps, strings, booleans; not floating point, whose footers omit NaN), the
        metadata is read from Parquet footers instead of scanning the data; pass
        ``use_footers=False`` to always scan.

        >>> Skipstone.for_path(spark, "/data/weather").build(MinMax("temp"), MinMax("ts"))  # doctest: +SKIP
        """
        types = self._check(indexes)
        files = self._listed_files()
        self._publish(indexes, types, self._collect(indexes, types, files, None, use_footers))
        return self

    def refresh(self) -> Skipstone:
        """Index new and changed files, forget deleted ones; unchanged files are not read.

        >>> Skipstone.for_path(spark, "/data/weather").refresh()   # doctest: +SKIP
        """
        current = self._current()
        if current is None:
            raise SkipstoneError(f"dataset {self._name} has no Skipstone index to refresh; call build() first")
        _, table_dir, definition = current
        indexes = tuple(
            IndexType.from_spec(ix["kind"], ix["columns"], ix.get("params", {})) for ix in definition["indexes"]
        )
        types = self._check(indexes)
        old = self._spark.read.parquet(table_dir)
        listed = self._listed_files()
        key = ["path", "size", "mtime"]
        unchanged = old.join(listed, key, "left_semi")
        todo = listed.join(old, key, "left_anti")
        todo_paths = [r.path for r in todo.select("path").collect()]
        metadata = unchanged
        if todo_paths:
            fresh = self._collect(indexes, types, todo, todo_paths, True)
            metadata = unchanged.unionByName(fresh.select(*old.columns))
        self._publish(indexes, types, metadata)
        return self

    def drop(self) -> bool:
        """Delete all of the dataset's Skipstone metadata (never its data). True if any existed."""
        return bool(java_call(self._jvm.drop, self._jsession, self.root))

    def describe(self) -> DataFrame:
        """One row per index: its description, kind, columns, the metadata version and size.

        >>> Skipstone.for_path(spark, "/data/weather").describe().show()   # doctest: +SKIP
        """
        current = self._current()
        rows: list[tuple[Any, ...]] = []
        if current is not None:
            version, table_dir, definition = current
            files = self._spark.read.parquet(table_dir).count()
            for ix in definition["indexes"]:
                index = IndexType.from_spec(ix["kind"], ix["columns"], ix.get("params", {}))
                rows.append((index.describe(), ix["kind"], ix["columns"], version, files, self.root,
                             self._metadata_dir()))
        schema = ("index string, kind string, columns array<string>, version long, "
                  "files_indexed long, dataset string, metadata_dir string")
        return self._spark.createDataFrame(rows, schema)

    # -- internals -------------------------------------------------------------------------

    def _read(self, files: list[str] | None = None) -> DataFrame:
        if self.table is not None and files is None:
            return self._spark.table(self.table)
        reader = self._spark.read.format(self.format).options(**self.options)
        if files is None:
            return reader.load(self.root)
        full = self._read()
        # basePath keeps Hive-style partition columns when reading a subset of the files.
        return reader.schema(full.schema).option("basePath", self.root).load(files)

    def _listed_files(self) -> DataFrame:
        from pyspark.sql import DataFrame

        return DataFrame(java_call(self._jvm.listDataFiles, self._jsession, self.root), self._spark)

    def _collect(self, indexes: tuple[IndexType, ...], types: Mapping[str, DataType], files: DataFrame,
                 paths: list[str] | None, use_footers: bool) -> DataFrame:
        """Metadata rows for ``files`` (all files when ``paths`` is None): footers or one scan."""
        from pyspark.sql import DataFrame

        if use_footers and self.format == "parquet" and all(isinstance(ix, MinMax) for ix in indexes):
            targets = [{"path": ix.column, "type": types[ix.column].jsonValue(),
                        **{role: metadata_column(i, ix, role) for role in ix.roles}}
                       for i, ix in enumerate(indexes) if isinstance(ix, MinMax)]
            jdf = java_call(self._jvm.footerMinMax, self._jsession, self.root, files._jdf, json.dumps(targets))
            if jdf is not None:
                return DataFrame(jdf, self._spark)
        return collect(self._read(paths), indexes)

    def _check(self, indexes: tuple[IndexType, ...]) -> dict[str, DataType]:
        """Validate the request against the dataset's schema; the indexed columns' types."""
        if not indexes:
            raise SkipstoneError(f"build() of {self._name} needs at least one index, e.g. MinMax('col')")
        seen = set()
        for ix in indexes:
            if not isinstance(ix, IndexType):
                raise SkipstoneError(f"{ix!r} is not a Skipstone index type (MinMax, ...)")
            if ix in seen:
                raise SkipstoneError(f"{ix.describe()} is requested twice for {self._name}")
            seen.add(ix)
        schema = self._read().schema
        if "_metadata" in schema.fieldNames():
            raise SkipstoneError(f"dataset {self._name} has a column named _metadata, which hides "
                                 "Spark's file metadata Skipstone needs; rename it")
        types = resolve_columns(schema, [c for ix in indexes for c in ix.columns], self._name)
        for ix in indexes:
            ix.check_types(types, self._name)
        return types

    def _publish(self, indexes: tuple[IndexType, ...], types: Mapping[str, DataType], metadata: DataFrame) -> int:
        definition = {
            "formatVersion": FORMAT_VERSION,
            "datasetRoot": self.root,
            "format": self.format,
            "indexes": [
                {"kind": ix.kind, "name": ix.describe(), "columns": list(ix.columns), "params": ix.params(),
                 "columnTypes": [types[c].jsonValue() for c in ix.columns],
                 "metadataColumns": {role: metadata_column(i, ix, role) for role in ix.roles}}
                for i, ix in enumerate(indexes)
            ],
        }
        staging = java_call(self._jvm.newStagingDir, self._jsession, self.root)
        try:
            # repartition, not coalesce: coalesce(1) would pull the collection itself into one task
            metadata.repartition(1).write.parquet(staging + "/table")
            return int(java_call(self._jvm.publish, self._jsession, self.root, staging, json.dumps(definition)))
        finally:
            java_call(self._jvm.discard, self._jsession, staging)

    def _current(self) -> tuple[int, str, dict[str, Any]] | None:
        found = list(java_call(self._jvm.currentVersion, self._jsession, self.root))
        if not found:
            return None
        return int(found[0]), str(found[1]), json.loads(found[2])

    def _metadata_dir(self) -> str:
        return str(java_call(self._jvm.metadataDir, self._jsession, self.root))
