package io.skipstone.clauses

import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.Literal.{FalseLiteral, TrueLiteral}

import io.skipstone.clauses.Comparison.{Eq, EqNullSafe}
import io.skipstone.clauses.Leaves.{ColumnComparison, ColumnInList}
import io.skipstone.metadata.{IndexSpec, LoadedMetadata}
import io.skipstone.sketch.{BloomKey, BloomMightContainAny}

/**
 * BloomFilter: per file a bloom filter of the column's non-NULL values (role `bloom`, hashed by
 * [[BloomKey]]) and its NULL count. Answers `=`, `<=>` and `IN`; it never rules files out
 * for `<>`/`NOT IN`, since a filter cannot prove that every value equals a constant.
 * A file whose `bloom` is NULL is read.
 */
case class BloomFilterTranslator(index: IndexSpec, metadata: LoadedMetadata, resolver: Resolver)
  extends LeafTranslator {

  private val column = index.paths.head
  private val bloom = metadata.attribute(index.metadataColumns("bloom"))
  private val nulls = NullCounts.of(index, metadata)

  private object Indexed {
    def unapply(e: Expression): Option[InjectiveColumn] = e match {
      case InjectiveColumn(c) if c.path.sameAs(column, resolver) => Some(c)
      case _ => None
    }
  }

  override def translate(leaf: Expression): Option[LeafClauses] =
    nulls.answer(leaf, Indexed.unapply(_).isDefined).orElse(leaf match {
      case ColumnComparison(op @ (Eq | EqNullSafe), Indexed(c), v) =>
        // `<=>` with a constant is FALSE on NULL rows too: it may be FALSE in any file with rows.
        Some(LeafClauses(mightContain(c, Seq(v.value)), if (op == Eq) nulls.hasNonNull else TrueLiteral))
      case ColumnInList(Indexed(c), values, listHasNull) =>
        Some(LeafClauses(mightContain(c, values), if (listHasNull) FalseLiteral else nulls.hasNonNull))
      case _ => None
    })

  private def mightContain(c: InjectiveColumn, constants: Seq[Any]): Expression = {
    val keys = for (v <- constants; u <- c.preimage(v)) yield BloomKey.of(u, c.columnType)
    if (keys.isEmpty) FalseLiteral else BloomMightContainAny(bloom, keys.distinct)(Some(metadata.decodedCells(bloom.name)))
  }
}
