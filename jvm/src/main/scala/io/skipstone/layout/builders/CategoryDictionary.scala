package io.skipstone.layout.builders

import java.nio.ByteBuffer
import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}

import io.skipstone.layout.LayoutEncoding

/**
 * A categorical column's dictionary and its values' ranks, as `skipstone.table.sample` built
 * them: the sorted distinct values, each value encoded as its rank, NULL as -inf.
 *
 * Strings are compared as their UTF-8 bytes, unsigned, byte by byte (Spark's order, and for
 * valid UTF-8 also the order of code points). A value that is not valid UTF-8 cannot be a
 * category, since routing compares rows with categories as Spark string literals: it is left out
 * of the dictionary and encoded half-way between the ranks around it, as every value missing
 * from the dictionary is, which is also where routing puts its rows (`LayoutEncoding.atMost`).
 */
object CategoryDictionary {

  /** The dictionary (decoded strings) and the ranks of `values` (UTF-8 bytes; null for NULL). */
  def ofStrings(values: Seq[Array[Byte]]): (Seq[String], Array[Double]) = {
    val present = values.filter(_ != null).map(Bytes(_)).distinct.sorted
    val keys = present.flatMap(b => decoded(b.value).map(b -> _))
    val sortedKeys = keys.map(_._1).toIndexedSeq
    val ranks = values.map { v =>
      if (v == null) Double.NegativeInfinity
      else LayoutEncoding.rank(sortedKeys.size, i => Bytes.order.compare(sortedKeys(i), Bytes(v)))
    }
    (keys.map(_._2), ranks.toArray)
  }

  /** The dictionary (false, true or one of them) and the ranks of boolean `values` (null for NULL). */
  def ofBooleans(values: Seq[java.lang.Boolean]): (Seq[Boolean], Array[Double]) = {
    val present = values.filter(_ != null).map(_.booleanValue).distinct.sorted
    (present, values.map(v => if (v == null) Double.NegativeInfinity else present.indexOf(v.booleanValue).toDouble).toArray)
  }

  /** The string, if the bytes are valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF). */
  def decoded(bytes: Array[Byte]): Option[String] =
    try Some(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
      .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString)
    catch { case _: CharacterCodingException => None }

  /** A string's bytes as a value: equal by content, ordered unsigned byte by byte, then shorter first. */
  private final case class Bytes(value: Array[Byte]) {
    override def equals(other: Any): Boolean = other match {
      case Bytes(v) => java.util.Arrays.equals(value, v)
      case _ => false
    }
    override def hashCode: Int = java.util.Arrays.hashCode(value)
  }
  private object Bytes {
    implicit val order: Ordering[Bytes] = (a: Bytes, b: Bytes) => java.util.Arrays.compareUnsigned(a.value, b.value)
  }
}
