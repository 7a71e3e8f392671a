package io.skipstone.table

import scala.util.Try

/**
 * What values a table setting takes: its type's name, the allowed values in words (for errors
 * and the docs), and the parser from the stored string. `Left` says what is wrong with a value
 * beyond "not allowed" (which strategy is unknown), or is empty.
 */
sealed trait SettingKind[T] {
  def typeName: String
  def allowed: String
  def parse(raw: String): Either[String, T]
}

object SettingKind {
  case object Bool extends SettingKind[Boolean] {
    val typeName = "boolean"
    val allowed = "`true` or `false`"
    def parse(raw: String): Either[String, Boolean] = raw.trim.toLowerCase match {
      case "true" => Right(true)
      case "false" => Right(false)
      case _ => Left("")
    }
  }

  final case class WholeNumber(minimum: Long) extends SettingKind[Long] {
    val typeName = "long"
    val allowed = s"a whole number >= $minimum"
    def parse(raw: String): Either[String, Long] = Try(raw.trim.toLong).toOption.filter(_ >= minimum).toRight("")
  }

  /** A finite number at least `minimum`, or with `above` greater than it. */
  final case class Number(minimum: Double, above: Boolean = false) extends SettingKind[Double] {
    val typeName = "double"
    val allowed = s"a number ${if (above) ">" else ">="} ${fmt(minimum)}"
    // NaN and infinities parse as doubles but mean nothing as a retention or a price
    def parse(raw: String): Either[String, Double] = Try(raw.trim.toDouble).toOption
      .filter(v => !v.isNaN && !v.isInfinite && (if (above) v > minimum else v >= minimum)).toRight("")
  }

  /** An instant in ISO-8601 UTC (`2026-11-26T09:30:00Z`), as `java.time.Instant` prints it. */
  case object Instant extends SettingKind[java.time.Instant] {
    val typeName = "timestamp"
    val allowed = "an ISO-8601 instant such as `2026-11-26T09:30:00Z`"
    def parse(raw: String): Either[String, java.time.Instant] = Try(java.time.Instant.parse(raw.trim)).toOption.toRight("")
  }

  /** `kind`, or empty for "not set" (a setting whose absence means something: the library's default). */
  final case class Optional[T](kind: SettingKind[T]) extends SettingKind[Option[T]] {
    val typeName: String = kind.typeName
    val allowed: String = s"${kind.allowed}, or empty (unset)"
    def parse(raw: String): Either[String, Option[T]] = if (raw.trim.isEmpty) Right(None) else kind.parse(raw).map(Some(_))
  }

  /** A comma-separated list of distinct names from `known`, in the order they apply. */
  final case class NameList(known: Seq[String]) extends SettingKind[Seq[String]] {
    val typeName = "list"
    val allowed = s"a comma-separated list of distinct names from ${known.mkString(", ")}"
    def parse(raw: String): Either[String, Seq[String]] = {
      val names = raw.split(",").map(_.trim).filter(_.nonEmpty).toSeq
      val unknown = names.filterNot(known.contains)
      val repeated = names.diff(names.distinct).distinct
      if (unknown.nonEmpty) Left(s"unknown ${unknown.map(n => s"'$n'").mkString(", ")}")
      else if (repeated.nonEmpty) Left(s"named twice ${repeated.map(n => s"'$n'").mkString(", ")}")
      else Right(names)
    }
  }

  /** One name from `known`. */
  final case class OneOf(known: Seq[String]) extends SettingKind[String] {
    val typeName = "name"
    val allowed = s"one of ${known.mkString(", ")}"
    def parse(raw: String): Either[String, String] = Some(raw.trim).filter(known.contains).toRight("")
  }

  private[table] def fmt(d: Double): String = if (d == d.floor && !d.isInfinite) d.toLong.toString else d.toString
}

/** One settable table property: its key, the values it takes, its default and what it means. */
final case class Setting[T](key: String, kind: SettingKind[T], default: String, doc: String) {
  /** The value `properties` hold for this setting (its default when unset), or an error naming the table and key. */
  def read(properties: Map[String, String], table: String): T = {
    val raw = properties.getOrElse(key, default)
    kind.parse(raw).fold(why => throw new InvalidTableSetting(
      s"table $table: property $key must be ${kind.allowed}, got '$raw'" + (if (why.isEmpty) "" else s" ($why)")),
      identity)
  }
}

/** A table property refused: the message names the table, the key and what is allowed. */
class InvalidTableSetting(message: String) extends IllegalArgumentException(message)
