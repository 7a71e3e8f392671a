package io.skipstone.sql

import io.skipstone.table.{Hint, TableSettings}

/** The remedies of [[io.skipstone.table.Hinted]] errors in SQL's words (Python words them in `skipstone/error_hints.py`). */
object SqlHints {
  /** What a SQL user can do about `hint`, for a statement on `target` (as the statement wrote it). */
  def render(hint: Hint, target: String): String = {
    val fact = hint.facts.withDefaultValue("<hours>")
    hint.key match {
      case Hint.VacuumUnderTableRetention =>
        s"To vacuum with it, lower the table's retention first: ALTER TABLE $target SET TBLPROPERTIES " +
          s"('${TableSettings.RetentionHours.key}' = '${fact("hours")}')."
      case Hint.VacuumUnderDefaultRetention =>
        s"To vacuum with it, opt the table in first: ALTER TABLE $target SET TBLPROPERTIES " +
          s"('${TableSettings.RetentionCheck.key}' = 'false', '${TableSettings.RetentionHours.key}' = '${fact("hours")}')."
      case Hint.CreateTable =>
        s"Create one with CREATE TABLE $target USING skipstone AS SELECT ... (docs/sql.md)."
      case _ => ""
    }
  }
}
