package io.skipstone.metadata

import java.util.Locale

import org.json4s._
import org.json4s.JsonDSL._

/**
 * An index's opt-in automatic refresh (docs/partial-indexes.md): a query that lists files the
 * metadata does not cover indexes up to `maxFiles` of them in the background, publishing a new
 * version, and waits at most `maxSeconds` for it before reading them anyway.
 *
 * @param maxFiles   the most files one automatic refresh indexes; the rest wait for the next query
 * @param maxSeconds how long the query that started a refresh waits for it (0: not at all); a
 *                   refresh done in time is used by that query, otherwise by later ones
 */
case class AutoRefresh(maxFiles: Int, maxSeconds: Double) {
  def toJson: JValue = ("maxFiles" -> maxFiles) ~ ("maxSeconds" -> maxSeconds)

  /** As DESCRIBE and Python's describe() show it: the options that set it. */
  def describe: String = s"${AutoRefresh.MaxFiles} = $maxFiles, ${AutoRefresh.MaxSeconds} = $maxSeconds"
}

object AutoRefresh {
  val DefaultMaxFiles = 100
  val DefaultMaxSeconds = 0.0

  val Enabled = "auto_refresh"
  val MaxFiles = "auto_refresh_max_files"
  val MaxSeconds = "auto_refresh_max_seconds"
  val Options: Seq[String] = Seq(Enabled, MaxFiles, MaxSeconds)

  def fromJson(json: JValue): Option[AutoRefresh] = {
    implicit val formats: Formats = DefaultFormats
    json.toOption.filter(_ != JNull).map { r =>
      AutoRefresh((r \ "maxFiles").extractOpt[Int].getOrElse(DefaultMaxFiles),
        (r \ "maxSeconds").extractOpt[Double].getOrElse(DefaultMaxSeconds))
    }
  }

  /**
   * The setting `options` ask for (`auto_refresh`, `auto_refresh_max_files`,
   * `auto_refresh_max_seconds`, names in any case), None when `auto_refresh` is not true.
   * `fail` turns a problem, which names the option, into the caller's error.
   */
  def fromOptions(options: Seq[(String, String)], fail: String => Nothing): Option[AutoRefresh] = {
    val named = options.map { case (k, v) =>
      val key = Options.find(_.equalsIgnoreCase(k)).getOrElse(fail(s"has no option '$k' (it takes ${Options.mkString(", ")})"))
      key -> v.trim
    }
    named.groupBy(_._1).collectFirst { case (key, vs) if vs.size > 1 => fail(s"sets option '$key' twice") }
    val settings = named.toMap
    val enabled = settings.get(Enabled).map(_.toLowerCase(Locale.ROOT)) match {
      case None | Some("false") => false
      case Some("true") => true
      case Some(other) => fail(s"option '$Enabled' is true or false, not '$other'")
    }
    val maxFiles = settings.get(MaxFiles).map { v =>
      v.toIntOption.filter(_ >= 1).getOrElse(fail(s"option '$MaxFiles' is a whole number >= 1, not '$v'"))
    }
    val maxSeconds = settings.get(MaxSeconds).map { v =>
      v.toDoubleOption.filter(s => s >= 0 && !s.isInfinite).getOrElse(fail(s"option '$MaxSeconds' is a number of seconds >= 0, not '$v'"))
    }
    if (!enabled && (maxFiles.isDefined || maxSeconds.isDefined))
      fail(s"sets ${Seq(MaxFiles, MaxSeconds).filter(settings.contains).mkString(" and ")} without $Enabled = true")
    Option.when(enabled)(AutoRefresh(maxFiles.getOrElse(DefaultMaxFiles), maxSeconds.getOrElse(DefaultMaxSeconds)))
  }
}
