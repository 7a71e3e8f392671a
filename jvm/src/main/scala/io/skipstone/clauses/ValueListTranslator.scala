package io.skipstone.clauses

import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.Literal.FalseLiteral

import io.skipstone.clauses.Clause.or
import io.skipstone.clauses.Comparison.{Eq, EqNullSafe}
import io.skipstone.clauses.Leaves.{ColumnComparison, ColumnInList}
import io.skipstone.metadata.{ColumnPath, IndexSpec, LoadedMetadata}

/**
 * ValueList: per file the sorted distinct non-NULL values of a column (NULL when there were more
 * than the index's `max_size`) and its NULL count.
 *
 * Any deterministic leaf over the column alone is answered exactly by evaluating it on each
 * stored value ([[ValueTest]]): `=`, `IN`, `<>`, `NOT IN`, `LIKE`, `StartsWith`, ranges,
 * functions of the column. Rows with a NULL column contribute the leaf's value on NULL.
 */
case class ValueListTranslator(index: IndexSpec, metadata: LoadedMetadata, resolver: Resolver)
  extends LeafTranslator {

  private val column = index.paths.head
  private val values = metadata.attribute(index.metadataColumns("values"))
  private val nulls = NullCounts.of(index, metadata)

  override def translate(leaf: Expression): Option[LeafClauses] =
    nulls.answer(leaf, isPlainColumn).orElse(membership(leaf)).orElse(ValueTest.of(leaf, column, resolver).map(general))

  private def isPlainColumn(e: Expression): Boolean = ColumnPath.isColumn(e, column, resolver)

  private def general(test: ValueTest): LeafClauses = {
    def fromNulls(outcome: Boolean) = if (test.onNull.contains(Some(outcome))) nulls.hasNull else FalseLiteral
    LeafClauses(
      or(AnyValueSatisfies.mayBeTrue(values, test), fromNulls(true)),
      or(AnyValueSatisfies.mayBeFalse(values, test), fromNulls(false)))
  }

  /** `=`/`IN` of the plain column with constants of its own type: binary search, not a scan. */
  private def membership(leaf: Expression): Option[LeafClauses] = {
    val matched = leaf match {
      case ColumnComparison(Eq | EqNullSafe, c, v) if isPlainColumn(c) && v.dataType == c.dataType => Some(Seq(v.value))
      case ColumnInList(c, list, _) if isPlainColumn(c) && !leaf.children.tail.exists(_.dataType != c.dataType) =>
        Some(list)
      case _ => None
    }
    for (constants <- matched; test <- ValueTest.of(leaf, column, resolver)) yield {
      val sorted = AnyValueBetween.sort(constants, test.columnType)
      general(test).copy(mayBeTrue = SortedValuesContainAny(values, sorted))
    }
  }
}
