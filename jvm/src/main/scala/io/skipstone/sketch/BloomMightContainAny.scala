package io.skipstone.sketch

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{BooleanType, DataType}
import org.apache.spark.sql.vectorized.ColumnarBatchRow
import org.apache.spark.util.sketch.BloomFilter

import io.skipstone.metadata.DecodedCells

/**
 * FALSE when a file's stored bloom filter proves none of `keys` is among its values; NULL when
 * the file has no filter (e.g. a Hybrid index that listed the values instead).
 *
 * Decoding a filter costs far more than probing it, so decoded filters are kept per metadata
 * version in `decoded` (outside equality: it is a cache, not part of the expression's meaning;
 * transient: the driver's memo stays on the driver when a clause is evaluated by executors),
 * and decoded only when evaluated: clauses are ordered so that cheaper indexes rule files out
 * first (see `query.CheapFirst`).
 */
case class BloomMightContainAny(filter: Expression, keys: Seq[BloomKey])(
    @transient decoded: Option[DecodedCells] = None)
  extends UnaryExpression with CodegenFallback {

  override def child: Expression = filter
  override def dataType: DataType = BooleanType
  override protected def otherCopyArgs: Seq[AnyRef] = Seq(decoded)

  override def eval(input: InternalRow): Any = (decoded, input) match {
    // Positioned over a metadata version's columns: the position is the file's key in the memo.
    case (Some(cells), file: ColumnarBatchRow) =>
      val bloom = cells.getOrDecode(file.rowId) {
        Option(filter.eval(input).asInstanceOf[Array[Byte]]).map(b => (BloomFilters.fromBytes(b), b.length.toLong))
      }
      bloom.map(b => keys.exists(_.in(b.asInstanceOf[BloomFilter]))).orNull
    case _ => super.eval(input)
  }

  override protected def nullSafeEval(bytes: Any): Any = {
    val bloom = BloomFilters.fromBytes(bytes.asInstanceOf[Array[Byte]])
    keys.exists(_.in(bloom))
  }

  override protected def withNewChildInternal(c: Expression): BloomMightContainAny = copy(filter = c)(decoded)

  override def toString: String = s"$filter might contain any of ${keys.length} values"
}
