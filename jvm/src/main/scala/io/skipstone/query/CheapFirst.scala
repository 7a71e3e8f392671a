package io.skipstone.query

import org.apache.spark.sql.catalyst.expressions.{And, Expression, Or}

import io.skipstone.sketch.BloomMightContainAny

/**
 * Reorders a clause so that its cheap parts are evaluated first. `AND` stops at the first
 * FALSE and `OR` at the first TRUE (both are commutative in SQL's three-valued logic), so a
 * bloom filter is decoded and probed only for files the cheaper indexes (min/max, value lists)
 * did not already decide.
 */
object CheapFirst {
  def apply(clause: Expression): Expression = clause.transformUp {
    case And(l, r) if cost(l) > cost(r) => And(r, l)
    case Or(l, r) if cost(l) > cost(r) => Or(r, l)
  }

  /** Bloom filters to decode: the cost that matters by far. */
  def cost(e: Expression): Int = e.collect { case b: BloomMightContainAny => b }.size
}
