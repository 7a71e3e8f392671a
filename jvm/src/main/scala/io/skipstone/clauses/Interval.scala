package io.skipstone.clauses

/** One end of an interval of values; `inclusive` says whether the end value itself belongs. */
case class Bound(value: Any, inclusive: Boolean)

/** The values a conjunction of comparisons on one column allows; a missing end is unbounded. */
case class Interval(lower: Option[Bound], upper: Option[Bound]) {
  def intersect(other: Interval, ordering: Ordering[Any]): Interval = {
    def tighter(a: Option[Bound], b: Option[Bound], higher: Boolean): Option[Bound] = (a, b) match {
      case (Some(x), Some(y)) =>
        val c = ordering.compare(x.value, y.value)
        if (c == 0) Some(Bound(x.value, x.inclusive && y.inclusive))
        else if ((c > 0) == higher) Some(x) else Some(y)
      case _ => a.orElse(b)
    }
    Interval(tighter(lower, other.lower, higher = true), tighter(upper, other.upper, higher = false))
  }

  def isBounded: Boolean = lower.isDefined && upper.isDefined
}

object Interval {
  def point(v: Any): Interval = Interval(Some(Bound(v, inclusive = true)), Some(Bound(v, inclusive = true)))
}
