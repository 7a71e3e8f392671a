package io.skipstone.clauses

import org.apache.spark.sql.catalyst.expressions._

import io.skipstone.clauses.Comparison.EqNullSafe
import io.skipstone.clauses.Leaves.{ColumnComparison, ColumnInList}
import io.skipstone.metadata.{IndexSpec, LoadedMetadata}

/**
 * A file's NULL count for one column next to its row count. Every built-in kind keeps one
 * (role `nulls`), so each answers `IS [NOT] NULL` and comparisons with a NULL constant itself.
 */
case class NullCounts(nulls: Expression, rows: Expression) {
  val hasNull: Expression = GreaterThan(nulls, Literal(0L))
  val hasNonNull: Expression = LessThan(nulls, rows)

  /** Leaves decided by NULLs alone, for a column side that `indexed` accepts. */
  def answer(leaf: Expression, indexed: Expression => Boolean): Option[LeafClauses] = leaf match {
    case IsNull(c) if indexed(c) => Some(LeafClauses(hasNull, hasNonNull))
    case IsNotNull(c) if indexed(c) => Some(LeafClauses(hasNonNull, hasNull))
    case ColumnComparison(EqNullSafe, c, v) if v.value == null && indexed(c) =>
      Some(LeafClauses(hasNull, hasNonNull))
    case ColumnComparison(_, c, v) if v.value == null && indexed(c) => Some(LeafClauses.AlwaysNull)
    case ColumnInList(c, Seq(), true) if indexed(c) => Some(LeafClauses.AlwaysNull)
    case _ => None
  }
}

object NullCounts {
  def of(index: IndexSpec, metadata: LoadedMetadata): NullCounts =
    NullCounts(metadata.attribute(index.metadataColumns("nulls")), metadata.attribute(LoadedMetadata.NumRows))
}
