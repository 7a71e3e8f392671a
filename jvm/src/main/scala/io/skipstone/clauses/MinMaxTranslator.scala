package io.skipstone.clauses

import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.Literal.FalseLiteral
import org.apache.spark.unsafe.types.UTF8String

import io.skipstone.clauses.Clause.{and, or}
import io.skipstone.clauses.Comparison._
import io.skipstone.clauses.Leaves.{ColumnComparison, ColumnInList}
import io.skipstone.metadata.{IndexSpec, LoadedMetadata}

/**
 * MinMax: per file the smallest and largest non-NULL value of a column and its NULL count.
 * `min`/`max` are NULL only when the file has no non-NULL value; the metadata columns are
 * computed with Spark's own ordering, so NaN is the largest double, as in Spark's comparisons.
 */
case class MinMaxTranslator(index: IndexSpec, metadata: LoadedMetadata, resolver: Resolver)
  extends LeafTranslator {

  private val column = index.paths.head
  private val nulls = metadata.attribute(index.metadataColumns("nulls"))
  private val rows = metadata.attribute(LoadedMetadata.NumRows)

  private val hasNonNull: Expression = LessThan(nulls, rows)
  private val hasNull: Expression = GreaterThan(nulls, Literal(0L))

  private object Indexed {
    def unapply(e: Expression): Option[ColumnRef] = e match {
      case ColumnRef(ref) if ref.path.sameAs(column, resolver) => Some(ref)
      case _ => None
    }
  }

  // A column without an order (VARIANT) keeps only its NULL count: no min and max roles.
  private val range = for (lo <- index.metadataColumns.get("min"); hi <- index.metadataColumns.get("max"))
    yield (metadata.attribute(lo), metadata.attribute(hi))
  private lazy val (min, max) = range.get

  override def translate(leaf: Expression): Option[LeafClauses] = leaf match {
    case IsNull(Indexed(_)) => Some(LeafClauses(hasNull, hasNonNull))
    case IsNotNull(Indexed(_)) => Some(LeafClauses(hasNonNull, hasNull))
    case _ if range.isEmpty => None
    case ColumnComparison(op, Indexed(ref), v) => Some(comparison(op, ref.lift(min), ref.lift(max), v))
    case ColumnInList(Indexed(ref), values, listHasNull) => Some(inList(ref, values, listHasNull))
    case StartsWith(Indexed(ref), Text(p)) => Some(startsWith(ref, p, exactly = true))
    case Like(Indexed(ref), Text(pattern), escape) => LikePattern.parse(pattern.toString, escape).map {
      case LikePattern(_, _, Some(v), _, _) => comparison(Eq, ref.lift(min), ref.lift(max), Literal(v))
      case p => startsWith(ref, UTF8String.fromString(p.prefix), exactly = p.onlyTrailingPercent)
    }
    case _ => None
  }

  private object Text {
    def unapply(e: Expression): Option[UTF8String] = Leaves.constant(e).map(_.value).collect { case s: UTF8String => s }
  }

  /**
   * Strings starting with `p` form one contiguous range from `p` on, so a file may hold one
   * if its max reaches `p` and its min is below `p` or starts with it; all its values start
   * with `p` if both min and max do. `exactly` is false when the pattern asks more than the
   * prefix (`LIKE 'p%q'`): then nothing is known about rows that fail it.
   */
  private def startsWith(ref: ColumnRef, p: UTF8String, exactly: Boolean): LeafClauses = {
    val (lo, hi, v) = (ref.lift(min), ref.lift(max), Literal(p))
    val someTrue = And(GreaterThanOrEqual(hi, v), Or(LessThanOrEqual(lo, v), StartsWith(lo, v)))
    val someFalse = if (exactly) Not(And(StartsWith(lo, v), StartsWith(hi, v))) else Literal.TrueLiteral
    LeafClauses(and(hasNonNull, someTrue), and(hasNonNull, someFalse))
  }

  private def comparison(op: Comparison, lo: Expression, hi: Expression, v: Literal): LeafClauses =
    if (v.value == null) {
      if (op == EqNullSafe) LeafClauses(hasNull, hasNonNull) else LeafClauses.AlwaysNull
    } else {
      // Rows with NULL make a comparison NULL (neither TRUE nor FALSE), so both answers also
      // need a non-NULL value; `<=>` is FALSE for NULL rows instead.
      val (someTrue, someFalse) = op match {
        case Eq | EqNullSafe => (And(LessThanOrEqual(lo, v), GreaterThanOrEqual(hi, v)),
                                 Or(Not(EqualTo(lo, v)), Not(EqualTo(hi, v))))
        case Lt => (LessThan(lo, v), GreaterThanOrEqual(hi, v))
        case Le => (LessThanOrEqual(lo, v), GreaterThan(hi, v))
        case Gt => (GreaterThan(hi, v), LessThanOrEqual(lo, v))
        case Ge => (GreaterThanOrEqual(hi, v), LessThan(lo, v))
      }
      val mayBeFalse = if (op == EqNullSafe) or(hasNull, someFalse) else and(hasNonNull, someFalse)
      LeafClauses(and(hasNonNull, someTrue), mayBeFalse)
    }

  private def inList(ref: ColumnRef, values: Seq[Any], listHasNull: Boolean): LeafClauses = {
    val (lo, hi) = (ref.lift(min), ref.lift(max))
    if (values.isEmpty) LeafClauses.AlwaysNull
    else {
      val between = AnyValueBetween(lo, hi, AnyValueBetween.sort(values, lo.dataType))
      // x IN (list with NULL) is never FALSE; otherwise FALSE needs a value outside the list,
      // which a file whose values are all one listed value cannot have.
      val mayBeFalse =
        if (listHasNull) FalseLiteral
        else and(hasNonNull, Or(Not(EqualTo(lo, hi)), Not(between)))
      LeafClauses(and(hasNonNull, between), mayBeFalse)
    }
  }
}
