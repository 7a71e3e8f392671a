package io.skipstone.layout.builders

import io.skipstone.layout.{ColumnKind, LayoutColumn}

/** Samples written out in a test: named numeric columns of equal length. */
object HandMadeSamples {
  def numeric(columns: (String, Seq[Double])*): EncodedSample =
    EncodedSample(columns.map(c => LayoutColumn(c._1, ColumnKind.Numeric)), columns.map(_._2.toArray).toArray)
}
