package io.skipstone.table

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types.StructType

import io.skipstone.metadata.ColumnPath

/**
 * An append's rows in the table's columns and order. A column missing, of another type, or not
 * in the table is refused by name. Names match exactly or, in a case-insensitive session, in
 * another case when only one of the rows' columns does (a table may hold both `Mixed` and `mixed`).
 */
object AppendColumns {
  def conformed(rows: DataFrame, schema: StructType, root: String): DataFrame = {
    val resolver = rows.sparkSession.sessionState.conf.resolver
    val offered = rows.schema.fields.toSeq
    val columns = schema.fields.toSeq.map { field =>
      val found = ColumnPath.pick(ColumnPath(Seq(field.name)), offered, resolver)(f => ColumnPath(Seq(f.name)))
        .getOrElse(throw new IllegalArgumentException(
          s"append to $root: column ${field.name} (${field.dataType.simpleString}) is missing"))
      if (found.dataType != field.dataType) throw new IllegalArgumentException(s"append to $root: column " +
        s"${field.name} is ${found.dataType.simpleString}, the table's is ${field.dataType.simpleString}")
      found.name -> col(ColumnPath(Seq(found.name)).sql).as(field.name)
    }
    val used = columns.map(_._1).toSet
    val extra = offered.map(_.name).filterNot(used.contains).sorted
    if (extra.nonEmpty) throw new IllegalArgumentException(
      s"append to $root: columns ${extra.map(n => s"'$n'").mkString("[", ", ", "]")} are not in the table")
    rows.select(columns.map(_._2): _*)
  }
}
