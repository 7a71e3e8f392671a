package io.skipstone.table

import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

/**
 * What the user can do about an error, named rather than worded: `key` says which remedy,
 * `facts` carry the values its wording needs. The remedy depends on the interface the error
 * reached the user through (SQL has no `force=True`, Python no `ALTER TABLE`), so the message
 * of a [[Hinted]] error says only what went wrong and each interface words the hint: SQL
 * commands in the sql package (`SqlHints`), Python in `skipstone/error_hints.py`.
 */
final case class Hint(key: String, facts: Map[String, String] = Map.empty)

object Hint {
  /** A vacuum's retention is under the table's own (`vacuum.retentionHours`): facts `hours`, `floor`. */
  val VacuumUnderTableRetention = "vacuum.underTableRetention"
  /** A vacuum's retention is under the default while the table keeps the check on: facts `hours`, `default`. */
  val VacuumUnderDefaultRetention = "vacuum.underDefaultRetention"
  /** The path holds no managed table: fact `root`. */
  val CreateTable = "table.create"
  /** Every key, which each interface words. */
  val All: Seq[String] = Seq(VacuumUnderTableRetention, VacuumUnderDefaultRetention, CreateTable)
}

/** An error that may carry a [[Hint]]. */
trait Hinted { self: Throwable =>
  def hint: Option[Hint]
}

object Hinted {
  /** The hinted error `e` is or was caused by, nearest first. */
  def find(e: Throwable): Option[(Throwable, Hint)] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(16).collectFirst {
      case h: Hinted if h.hint.isDefined => (h, h.hint.get)
    }

  /**
   * `{"message": ..., "key": ..., "facts": {...}}` of the hinted error behind `e`, or null: how
   * Python reads a hint through py4j without knowing the exception's class.
   */
  def json(e: Throwable): String = find(e).map { case (error, hint) =>
    JsonMethods.compact(JsonMethods.render(("message" -> error.getMessage) ~ ("key" -> hint.key) ~ ("facts" -> hint.facts)))
  }.orNull
}

/** A table operation that found no managed table at `root`. */
class NotATable(root: String, message: String) extends IllegalArgumentException(message) with Hinted {
  override def hint: Option[Hint] = Some(Hint(Hint.CreateTable, Map("root" -> root)))
}
