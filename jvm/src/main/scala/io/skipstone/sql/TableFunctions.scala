package io.skipstone.sql

import org.apache.spark.sql.{Row, SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, LogicalPlan}
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.types.{ByteType, IntegerType, LongType, ShortType, StringType, StructType}

import io.skipstone.metadata.MetadataStore
import io.skipstone.table.{LogTables, TableLog, Tables}

/**
 * Table-valued functions over a managed table's log, registered by the extension so that any
 * session with the jar has them, `spark-sql` included:
 *
 *  - `skipstone_files('<root>' [, version])`: one row per file of the version (default: newest);
 *  - `skipstone_versions('<root>')`: one row per version, with what it changed.
 *
 * A table-valued function (rather than a statement like `DESCRIBE HISTORY`) is a relation: users
 * filter, join and aggregate it in SQL. Its rows are read from the log when the query is
 * analysed, as `DESCRIBE HISTORY` reads them when it runs: a query sees the log as it was then.
 */
object TableFunctions {
  private final case class TableFunction(name: String, usage: String, schema: StructType, maxArgs: Int,
                                         rows: (SparkSession, String, Seq[Any]) => Seq[Row])

  private val all = Seq(
    TableFunction("skipstone_files",
      "skipstone_files(root[, version]) - the files of a Skipstone table's version (default: the newest): path, " +
        "size, rows, block, modification_time, version_added, version",
      LogTables.FilesSchema, 2, (session, root, rest) => LogTables.files(session.sessionState.newHadoopConf(), root,
        rest.headOption.map(_.asInstanceOf[Number].longValue()))),
    TableFunction("skipstone_versions",
      "skipstone_versions(root) - one row per version of a Skipstone table: version, timestamp, operation, " +
        "files/bytes/rows added and removed, the files, bytes and rows it lists, its metadata version",
      LogTables.VersionsSchema, 1, (session, root, _) => LogTables.versions(session.sessionState.newHadoopConf(), root)))

  def inject(extensions: SparkSessionExtensions): Unit = all.foreach { f =>
    val info = new ExpressionInfo(getClass.getName, null, f.name, f.usage, "", "", "", "table_funcs", "", "", "java_udf")
    extensions.injectTableFunction((FunctionIdentifier(f.name), info, (args: Seq[Expression]) => plan(f, args)))
  }

  private def plan(f: TableFunction, args: Seq[Expression]): LogicalPlan = {
    val session = SparkSession.active
    val values = arguments(f, args)
    val root = MetadataStore.qualify(session, values.head.toString)
    if (!Tables.isManaged(session, root)) {
      throw new SkipstoneSqlException(s"${f.name}('${values.head}'): $root is not a Skipstone table " +
        s"(no log under ${TableLog.logDir(root)})")
    }
    LocalRelation.fromExternalRows(DataTypeUtils.toAttributes(f.schema), f.rows(session, root, values.tail))
  }

  /** The arguments' values: constants, a root path first, then whole numbers. */
  private def arguments(f: TableFunction, args: Seq[Expression]): Seq[Any] = {
    def wrong(why: String) = new SkipstoneSqlException(s"${f.name}: $why; ${f.usage.takeWhile(_ != '-').trim}")
    if (args.isEmpty || args.size > f.maxArgs) throw wrong(s"takes ${if (f.maxArgs == 1) "1 argument" else
      s"1 to ${f.maxArgs} arguments"}, got ${args.size}")
    args.zipWithIndex.map { case (a, i) =>
      if (!a.foldable) throw wrong(s"argument ${i + 1} (${a.sql}) must be a constant")
      val expected = if (i == 0) a.dataType == StringType else Seq(ByteType, ShortType, IntegerType, LongType).contains(a.dataType)
      val value = a.eval()
      if (!expected || value == null) throw wrong(s"argument ${i + 1} (${a.sql}) must be ${if (i == 0) "the table's root path"
        else "a version number"}")
      value
    }
  }
}
