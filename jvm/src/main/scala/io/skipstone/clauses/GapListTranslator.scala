package io.skipstone.clauses

import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.util.TypeUtils
import org.apache.spark.sql.types.{ArrayType, StructType}

import io.skipstone.clauses.Clause.and
import io.skipstone.clauses.Comparison._
import io.skipstone.clauses.Leaves.{ColumnComparison, ColumnInList}
import io.skipstone.metadata.{IndexSpec, LoadedMetadata}

/**
 * GapList: per file what MinMax keeps (min, max, NULL count) plus its `k` widest gaps, the open
 * intervals between consecutive distinct values (role `gaps`, an array of (lo, hi) structs).
 *
 * Single leaves get MinMax's answer, and `=`/`IN` whose constants all fall into gaps (or
 * outside [min, max]) are FALSE.
 * A range needs both of its ends, which come from different leaves (`x >= 10 AND x < 20`), so
 * ranges are answered for whole conjunctions: the comparisons of one column are intersected
 * into one interval, and a gap that contains it proves no row satisfies them all.
 */
case class GapListTranslator(index: IndexSpec, metadata: LoadedMetadata, resolver: Resolver)
  extends LeafTranslator {

  private val column = index.paths.head
  private val minMax = MinMaxTranslator(index, metadata, resolver)
  private val gaps = metadata.attribute(index.metadataColumns("gaps"))
  private val (min, max) = (metadata.attribute(index.metadataColumns("min")), metadata.attribute(index.metadataColumns("max")))
  private val columnType = gaps.dataType.asInstanceOf[ArrayType].elementType.asInstanceOf[StructType].head.dataType

  private object Indexed {
    def unapply(e: Expression): Option[Expression] = e match {
      case ColumnRef(ref) if ref.path.sameAs(column, resolver) => Some(ref.lift(BoundReference(0, columnType, nullable = true)))
      case _ => None
    }
  }

  override def translate(leaf: Expression): Option[LeafClauses] = minMax.translate(leaf).map { answer =>
    val points = leaf match {
      case ColumnComparison(Eq | EqNullSafe, Indexed(lift), v) if v.value != null => Some((lift, Seq(v.value)))
      case ColumnInList(Indexed(lift), values, _) if values.nonEmpty => Some((lift, values))
      case _ => None
    }
    points.fold(answer) { case (lift, values) =>
      answer.copy(mayBeTrue = and(answer.mayBeTrue, Not(GapsHideAll(gaps, min, max, lift, values.map(Interval.point)))))
    }
  }

  override def conjunction(conjuncts: Seq[Expression]): Option[Expression] = {
    val byView = conjuncts.flatMap(bound).groupBy(_._1.canonicalized).values.toSeq
    val clauses = byView.flatMap { bounds =>
      val lift = bounds.head._1
      val ordering = TypeUtils.getInterpretedOrdering(lift.dataType)
      val interval = bounds.map(_._2).reduce(_.intersect(_, ordering))
      if (interval.isBounded) Some(Not(GapsHideAll(gaps, min, max, lift, Seq(interval)))) else None
    }
    clauses.reduceOption(and)
  }

  /** The values a conjunct allows on rows where it is TRUE, as an interval in its column view. */
  private def bound(conjunct: Expression): Option[(Expression, Interval)] = {
    def ends(op: Comparison, v: Any): Option[Interval] = op match {
      case Eq | EqNullSafe => Some(Interval.point(v))
      case Lt => Some(Interval(None, Some(Bound(v, inclusive = false))))
      case Le => Some(Interval(None, Some(Bound(v, inclusive = true))))
      case Gt => Some(Interval(Some(Bound(v, inclusive = false)), None))
      case Ge => Some(Interval(Some(Bound(v, inclusive = true)), None))
    }
    def negated(op: Comparison): Option[Comparison] = op match {
      case Lt => Some(Ge)
      case Le => Some(Gt)
      case Gt => Some(Le)
      case Ge => Some(Lt)
      case _ => None
    }
    conjunct match {
      case ColumnComparison(op, Indexed(lift), v) if v.value != null => ends(op, v.value).map(lift -> _)
      case Not(ColumnComparison(op, Indexed(lift), v)) if v.value != null =>
        negated(op).flatMap(ends(_, v.value)).map(lift -> _)
      case _ => None
    }
  }
}
