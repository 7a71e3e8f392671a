"""The Python API over one dataset's Skipstone indexes."""
from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence

from skipstone.errors import SkipstoneError
from skipstone.indexes import IndexType
from skipstone.indexes.base import encryption_key
from skipstone.indexes.stored import index_from_spec
from skipstone.per_file import needs_python, python_roles
from skipstone.session import java_call, jvm_entry

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType


#: Reader options that say where files are, not how to read them; re-reads pass paths themselves.
_LOCATION_OPTIONS = {"path", "paths", "basepath"}

#: Formats of tables whose own metadata lists their files: Delta Lake (docs/delta-sources.md) and
#: Iceberg (docs/iceberg-sources.md), with what messages call one of their tables.
_TABLE_FORMATS = {"delta": "a Delta Lake", "iceberg": "an Iceberg"}


class Skipstone:
    """Skipstone indexes of one dataset: build, refresh, describe and drop them.

    >>> import skipstone
    >>> from skipstone import Skipstone, MinMax
    >>> ds = Skipstone.for_path(spark, "/data/weather")         # doctest: +SKIP
    >>> ds.build(MinMax("temp"), MinMax("ts"))                  # doctest: +SKIP
    >>> spark.sql("SELECT * FROM parquet.`/data/weather` WHERE temp > 40").count()  # doctest: +SKIP

    A Delta Lake table is indexed over its live files, at the version it is read at
    (docs/delta-sources.md); an Iceberg table at the snapshot it is read at (docs/iceberg-sources.md):

    >>> Skipstone.for_path(spark, "/data/orders", format="delta").build(BloomFilter("order_id"))  # doctest: +SKIP
    >>> Skipstone.for_table(spark, "lake.sales.orders").build(BloomFilter("order_id"))  # doctest: +SKIP
    """

    def __init__(self, spark: SparkSession, root: str, data_format: str,
                 options: Mapping[str, str] | None = None, table: str | None = None,
                 schema: StructType | None = None) -> None:
        self._spark = spark
        self._jvm = jvm_entry(spark)
        self._jsession = spark._jsparkSession
        self.root = root
        """The dataset's root directory, qualified (``file:/data/weather``)."""
        self.format = data_format
        """The files' format as Spark names it (``parquet``, ``csv``, ...)."""
        self.options = {k: v for k, v in dict(options or {}).items() if k.lower() not in _LOCATION_OPTIONS}
        """The reader options the dataset is read (and indexed) with; location options left out."""
        self.table = table
        """The catalog table's name when opened with ``for_table``, else None."""
        self._schema = schema

    @classmethod
    def for_path(cls, spark: SparkSession, path: str, format: str = "parquet",
                 options: Mapping[str, str] | None = None) -> Skipstone:
        """The dataset stored under ``path`` (a directory of files, possibly Hive-partitioned).

        Queries skip with the index when they read the files the same way (format and reader
        options); ``Skipstone.for_dataframe`` takes these from the DataFrame you query. The root
        of a managed table gives the table's handle instead (a ``skipstone.ManagedTable``, as
        ``Skipstone.create`` returned), which has the index operations a table supports.

        ``format="delta"`` opens a Delta Lake table: its index covers the files of the table's
        current snapshot (not the directory's) and records the table version it was built from.
        ``format="iceberg"`` opens an Iceberg table Iceberg loads by its path (catalog tables:
        ``Skipstone.for_table``), indexed at its current snapshot.

        >>> ds = Skipstone.for_path(spark, "/data/weather")          # doctest: +SKIP
        >>> ds = Skipstone.for_path(spark, "/data/logs", format="json")  # doctest: +SKIP
        >>> ds = Skipstone.for_path(spark, "/data/orders", format="delta")  # doctest: +SKIP
        """
        entry = jvm_entry(spark)
        root = java_call(entry.qualify, spark._jsparkSession, path)
        if cls is Skipstone:  # managed tables: the same handle create returned
            table = _managed_tables().open(spark, root)
            if table is not None:
                return table
        table_format = java_call(entry.tableFormatAt, spark._jsparkSession, root)
        if table_format and format.lower() != table_format:
            # Its directory also holds files the table removed: indexed as plain files, the
            # index would describe them and no read of the table would use it.
            raise SkipstoneError(f"{root} is {_TABLE_FORMATS[table_format]} table: open it with "
                                 f"Skipstone.for_path(spark, path, format='{table_format}') (or Skipstone.for_table "
                                 "for a catalog table)")
        found = list(java_call(entry.sniffFormat, spark._jsparkSession, root))
        if found and format.lower() in ("parquet", "orc") and found[0] != format.lower():
            raise SkipstoneError(
                f"dataset {root} holds {found[0]} files (e.g. {found[1]}), not {format}: pass "
                f"format= and options= as you read it, or use Skipstone.for_dataframe(df) on the "
                "DataFrame you query")
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
        return _managed_tables().create(spark, path, df, layout, indexes, sample_rows)

    @classmethod
    def for_table(cls, spark: SparkSession, name: str) -> Skipstone:
        """A catalog table backed by files, e.g. ``Skipstone.for_table(spark, "db.weather")``.

        A Delta Lake table in the catalog is indexed as ``for_path(..., format="delta")`` does;
        an Iceberg table of any catalog (``"lake.db.orders"``) over the data files of its current
        snapshot, pinned to that snapshot's id (docs/iceberg-sources.md).
        Views (temporary or not) are refused: index the table or path the view reads.
        """
        # Checked first: a view's rows are its query's, and building over them would index less
        # than the files hold (or fail deep in the build on `_metadata`).
        java_call(jvm_entry(spark).requireFileTable, spark._jsparkSession, name)
        return cls._from_source(spark, spark.table(name), table=name)

    @classmethod
    def for_dataframe(cls, df: DataFrame) -> Skipstone:
        """The dataset a DataFrame reads, with its format, reader options and schema.

        The index then means exactly what the DataFrame's reads mean (a CSV's separator,
        header and null marker, a JSON time zone, a user schema), and queries that read the
        files the same way skip with it.

        >>> df = spark.read.option("header", True).csv("/data/trips")   # doctest: +SKIP
        >>> Skipstone.for_dataframe(df).build(MinMax("fare"))           # doctest: +SKIP
        """
        jvm_entry(df.sparkSession)
        return cls._from_source(df.sparkSession, df)

    @classmethod
    def _from_source(cls, spark: SparkSession, df: DataFrame, table: str | None = None) -> Skipstone:
        from pyspark.sql.types import StructType

        entry = jvm_entry(spark)
        source = json.loads(java_call(entry.describeSource, df._jdf))
        if source["root"] is None:
            raise SkipstoneError("the DataFrame reads several paths; Skipstone indexes one directory "
                                 "(or table) per dataset: read its root directory")
        schema = StructType.fromJson(source["schema"])
        return cls(spark, source["root"], source["format"], source["options"], table or source.get("table"), schema)

    def __repr__(self) -> str:
        return f"Skipstone({self.table or self.root})"

    @property
    def _name(self) -> str:
        return self.table or self.root

    # -- building --------------------------------------------------------------------------

    def build(self, *indexes: IndexType, use_footers: bool = True, footer_key: str | None = None,
              where: str | None = None, auto_refresh: bool | Mapping[str, Any] = False,
              metadata_store: str | None = None) -> Skipstone:
        """Index every data file for ``indexes`` (one Spark job) and publish a new version.

        Replaces any earlier indexes of the dataset. When every index is a MinMax over a
        Parquet column whose footer statistics are exact (integers, decimals, dates,
        timestamps, strings, booleans; not floating point, whose footers omit NaN), the
        metadata is read from Parquet footers instead of scanning the data; pass
        ``use_footers=False`` to always scan.

        The build itself runs in the JVM (``io.skipstone.indexing.IndexBuild``, the same code
        SQL commands call); Python computes only the roles that need a Python function.

        >>> Skipstone.for_path(spark, "/data/weather").build(MinMax("temp"), MinMax("ts"))  # doctest: +SKIP

        Encrypted metadata (docs/encryption.md): an index's columns under a key of its own with
        ``encrypted_with``, the rest of the metadata under ``footer_key`` (key ids the session's
        KMS knows). An index over a column the data's Parquet files encrypt gets that column's key.

        >>> Skipstone.for_path(spark, "/data/weather").build(
        ...     MinMax("temp").encrypted_with("k_temp"), MinMax("ts"), footer_key="k_footer")  # doctest: +SKIP

        A partial index (docs/partial-indexes.md): ``where`` (a SQL predicate over the dataset's
        columns) indexes only files with a row it holds for; the others are always read.
        ``auto_refresh=True`` lets queries index new files they find, or a dict of its settings
        (``{"max_files": 100, "max_seconds": 0}``).

        >>> Skipstone.for_path(spark, "/data/weather").build(
        ...     MinMax("temp"), where="ts >= '2026-01-01'", auto_refresh={"max_seconds": 5})  # doctest: +SKIP

        Where the metadata lives (docs/metadata.md, "Metadata stores"): ``metadata_store`` is
        ``"files"`` (Parquet files beside the data), ``"catalog"``, ``"catalog:<database>"`` or
        ``"catalog:<database>.<table>"`` (a table of the session catalog per version, whose
        permissions and discovery are the catalog's). None: where the dataset's metadata is
        now, else the session's ``spark.skipstone.metadataStore`` (``files`` unless set).
        Refreshes keep the store.

        >>> Skipstone.for_path(spark, "/data/weather").build(
        ...     MinMax("temp"), metadata_store="catalog:analytics.weather_index")  # doctest: +SKIP
        """
        requests = self._requests(indexes)
        data = self._read()
        extra = self._python_roles(data, indexes, requests)
        version = java_call(self._builds.build, self._jsession, data._jdf, self.root, self.format,
                            json.dumps(self.options), self.table, json.dumps(requests), extra, use_footers,
                            footer_key, where, _auto_refresh_options(auto_refresh), metadata_store)
        if log.isEnabledFor(logging.INFO):
            log.info("built %s on %s: %d files indexed, metadata version %s",
                     ", ".join(r["name"] for r in requests), self._name, len(data.inputFiles()), version)
        return self

    def refresh(self) -> Skipstone:
        """Index new and changed files, forget deleted ones; unchanged files are not read.

        New files are read exactly as the build read the others (format, reader options,
        schema), whichever handle calls ``refresh``.

        >>> Skipstone.for_path(spark, "/data/weather").refresh()   # doctest: +SKIP
        """
        current = self._current()
        if current is None:
            raise SkipstoneError(f"dataset {self._name} has no Skipstone index to refresh; call build() first")
        built = self._as_built(current[2])
        data = built._read()
        stale = list(java_call(self._builds.staleFileList, self._jsession, self.root, data._jdf))
        subset = built._read_files(data, stale) if stale else None
        extra = None if subset is None else built._stored_python_roles(subset, current[2])
        version = java_call(self._builds.refresh, self._jsession, data._jdf, self.root, built.format,
                            json.dumps(built.options), built.table, None if subset is None else subset._jdf, extra)
        if log.isEnabledFor(logging.INFO):
            listed = len(data.inputFiles())
            log.info("refreshed the index of %s: %d files indexed, %d skipped as fresh, metadata version %s",
                     self._name, len(stale), listed - len(stale), version)
        log.debug("files indexed by the refresh of %s: %s", self._name, stale)
        return self

    def rotate_keys(self, keys: Mapping[str | IndexType, str | None] | None = None,
                    footer_key: str | None = None) -> Skipstone:
        """Publish the current metadata again under other keys (docs/encryption.md): ``keys``
        maps indexes (or their names, as ``describe()`` shows them) to their new key id, or to
        None to keep them under the footer key alone; ``footer_key`` replaces the footer key.

        The rows are copied, no data file is read. The session needs every current key and
        every new one; sessions holding only the old keys stop using what they no longer open.

        >>> ds.rotate_keys({MinMax("temp"): "k_temp_2026"}, footer_key="k_footer_2026")   # doctest: +SKIP
        """
        named = {k if isinstance(k, str) else k.describe(): v for k, v in dict(keys or {}).items()}
        java_call(self._builds.rotateKeys, self._jsession, self.root, json.dumps(named), footer_key)
        return self

    def drop(self) -> bool:
        """Delete all of the dataset's Skipstone metadata (never its data). True if any existed."""
        return bool(java_call(self._jvm.drop, self._jsession, self.root))

    def describe(self) -> DataFrame:
        """One row per index: its description, kind, columns, the metadata version and size,
        for a Delta table the table version the index was built from (``table_version``; for an
        Iceberg table, the snapshot id), and the ids of the key the index is encrypted with
        (``key``) and of the metadata's footer key (``footer_key``), None when not encrypted.
        ``files_indexed`` is None for a session that cannot open encrypted metadata. A partial
        index's predicate is ``where``; ``auto_refresh`` shows the automatic refresh's settings
        (None when off), as DESCRIBE SKIPPING INDEX does.

        >>> Skipstone.for_path(spark, "/data/weather").describe().show()   # doctest: +SKIP
        """
        current = self._current()
        rows: list[tuple[Any, ...]] = []
        if current is not None:
            version, table_dir, definition = current
            files = java_call(self._jvm.filesIndexed, self._jsession, table_dir)
            table_version = (definition.get("read") or {}).get("tableVersion")
            footer_key = (definition.get("encryption") or {}).get("footerKey")
            refresh = definition.get("autoRefresh")
            auto_refresh = None if refresh is None else \
                f"auto_refresh_max_files = {refresh['maxFiles']}, auto_refresh_max_seconds = {float(refresh['maxSeconds'])}"
            for ix in definition["indexes"]:
                rows.append((index_name(ix), ix["kind"], ix["columns"], version, None if files is None else int(files),
                             self.root, self._metadata_dir(), table_version, ix.get("key"), footer_key,
                             definition.get("where"), auto_refresh))
        schema = ("index string, kind string, columns array<string>, version long, "
                  "files_indexed long, dataset string, metadata_dir string, table_version long, "
                  "key string, footer_key string, where string, auto_refresh string")
        return self._spark.createDataFrame(rows, schema)

    # -- internals -------------------------------------------------------------------------

    def _as_built(self, definition: Mapping[str, Any]) -> Skipstone:
        """A handle that reads the files the way the current version was built."""
        from pyspark.sql.types import StructType

        read = definition.get("read")
        if read is None:  # metadata from before reads were recorded
            return self
        schema = StructType.fromJson(read["schema"]) if read.get("schema") else None
        return Skipstone(self._spark, self.root, read["format"], read.get("options"), read.get("table"), schema)

    def _read(self, files: list[str] | None = None) -> DataFrame:
        if self._is_table_format:
            return self._read_table() if files is None else self._read_files(self._read_table(), files)
        if self.table is not None and files is None:
            return self._spark.table(self.table)
        reader = self._spark.read.format(self.format).options(**self.options)
        if self._schema is not None:
            reader = reader.schema(self._schema)
        if files is None:
            return reader.load(self.root)
        full = self._read()
        # basePath keeps Hive-style partition columns when reading a subset of the files.
        return reader.schema(full.schema).option("basePath", self.root).load(files)

    @property
    def _is_table_format(self) -> bool:
        """A Delta Lake or Iceberg table, whose files its own metadata lists."""
        return self.format.lower() in _TABLE_FORMATS

    def _read_table(self) -> DataFrame:
        """The Delta or Iceberg table at one snapshot (its newest), as the JVM's build reads it:
        files, rows and the snapshot recorded are then of one snapshot."""
        from pyspark.sql import DataFrame

        if self.table is not None:
            df = self._spark.table(self.table)
        else:
            df = self._spark.read.format(self.format.lower()).options(**self.options).load(self.root)
        return DataFrame(java_call(self._builds.pinned, self._jsession, df._jdf), self._spark)

    def _read_files(self, data: DataFrame, files: list[str]) -> DataFrame:
        """Just ``files`` of the dataset ``data`` reads, read as the build reads them."""
        from pyspark.sql import DataFrame

        if not self._is_table_format:
            return self._read(files)
        return DataFrame(java_call(self._builds.tableFileRows, self._jsession, data._jdf, files), self._spark)

    @property
    def _builds(self) -> Any:
        """The JVM's one build path (io.skipstone.indexing.IndexBuild)."""
        return self._spark._jvm.io.skipstone.indexing.IndexBuild  # type: ignore[union-attr]

    def _requests(self, indexes: Sequence[IndexType]) -> list[dict[str, Any]]:
        """The indexes as the JVM's build requests: what index.json stores of each."""
        if not indexes:
            raise SkipstoneError(f"build() of {self._name} needs at least one index, e.g. MinMax('col')")
        for ix in indexes:
            if not isinstance(ix, IndexType):
                raise SkipstoneError(f"{ix!r} is not a Skipstone index type (MinMax, ...)")
        return [{"kind": ix.kind, "name": ix.describe(), "columns": list(ix.columns), "params": ix.params(),
                 "key": encryption_key(ix)}
                for ix in indexes]

    def _python_roles(self, data: DataFrame, indexes: Sequence[IndexType],
                      requests: list[dict[str, Any]]) -> Any:
        """The JVM DataFrame of roles only Python computes (path + metadata columns), or None."""
        if not needs_python(indexes):
            return None
        from pyspark.sql import DataFrame

        plan = json.loads(java_call(self._builds.plan, self._jsession, data._jdf, self.root, self.table,
                                    json.dumps(requests)))
        # a Delta or Iceberg table's rows as its files hold them (deletes ignored), as the JVM reads them
        rows = data if not self._is_table_format else \
            DataFrame(java_call(self._builds.rowsToIndex, self._jsession, data._jdf), self._spark)
        roles = python_roles(rows, indexes, plan)
        return None if roles is None else roles._jdf

    def _stored_python_roles(self, data: DataFrame, definition: Mapping[str, Any]) -> Any:
        """Python-computed roles of the indexes a published version defines, over ``data``."""
        return self._python_roles(data, *stored_indexes(definition))

    def _replace_files(self, added: Sequence[str]) -> None:
        """Publish metadata for this dataset's files when only ``added`` are new: the other
        files' rows are kept, the new files' are collected (see FileSetIndex)."""
        current = self._current()
        if current is None:
            raise SkipstoneError(f"table {self.root} has no skipping metadata to update; call build() first")
        data = self._read()
        subset = self._read(list(added)) if added else None
        extra = None if subset is None else self._stored_python_roles(subset, current[2])
        java_call(self._builds.replaceFiles, self._jsession, data._jdf, self.root, self.format,
                  json.dumps(self.options), self.table, None if subset is None else subset._jdf, extra)

    def _current(self) -> tuple[int, str, dict[str, Any]] | None:
        found = list(java_call(self._jvm.currentVersion, self._jsession, self.root))
        if not found:
            return None
        return int(found[0]), str(found[1]), json.loads(found[2])

    def _metadata_dir(self) -> str:
        return str(java_call(self._jvm.metadataDir, self._jsession, self.root))


def _auto_refresh_options(auto_refresh: bool | Mapping[str, Any]) -> str | None:
    """``build(auto_refresh=...)`` as the options of SQL's ``WITH (auto_refresh = true, ...)``
    (JSON), which the JVM checks; None when off."""
    if auto_refresh is False or auto_refresh is None:
        return None
    if auto_refresh is True:
        return json.dumps({"auto_refresh": "true"})
    if not isinstance(auto_refresh, Mapping):
        raise SkipstoneError(f"auto_refresh is True, False or a dict of max_files and max_seconds, not {auto_refresh!r}")
    unknown = sorted(set(auto_refresh) - {"max_files", "max_seconds"})
    if unknown:
        raise SkipstoneError(f"auto_refresh has no setting {unknown[0]!r} (it takes max_files, max_seconds)")
    return json.dumps({"auto_refresh": "true", **{f"auto_refresh_{k}": str(v) for k, v in auto_refresh.items()}})


def index_name(stored: Mapping[str, Any]) -> str:
    """How ``describe()`` names an index that index.json stores (``MinMax(ts)``)."""
    return stored.get("name") or index_from_spec(stored["kind"], stored["columns"], stored.get("params", {})).describe()


def stored_indexes(definition: Mapping[str, Any]) -> tuple[tuple[IndexType, ...], list[dict[str, Any]]]:
    """The indexes a published version defines (its ``index.json``), and as the JVM's build requests."""
    stored = definition["indexes"]
    indexes = tuple(index_from_spec(ix["kind"], ix["columns"], ix.get("params", {})) for ix in stored)
    requests = [{"kind": ix["kind"], "name": ix.get("name"), "columns": ix["columns"], "params": ix.get("params", {})}
                for ix in stored]
    return indexes, requests


class ManagedTables(Protocol):
    """What the dataset handle needs of managed tables, which build on datasets (skipstone.table
    registers itself on import), so that this module imports no table code."""

    def open(self, spark: SparkSession, root: str) -> Any:
        """The table's handle if ``root`` is a managed table, else None."""

    def create(self, spark: SparkSession, path: str, df: DataFrame, layout: Any,
               indexes: Sequence[IndexType], sample_rows: int | None) -> Any:
        """Create a managed table and return its handle."""


_registered: list[ManagedTables] = []


def register_managed_tables(tables: ManagedTables) -> None:
    _registered[:] = [tables]


def _managed_tables() -> ManagedTables:
    # `import skipstone` imports skipstone.table, which registers before any call can get here.
    if not _registered:
        raise SkipstoneError("skipstone.table is not imported: import skipstone first")
    return _registered[0]
