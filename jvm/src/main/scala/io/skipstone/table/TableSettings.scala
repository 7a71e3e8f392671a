package io.skipstone.table

import org.json4s._
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods

/**
 * The settings a managed table stores with its properties, as one parse of them: every reader
 * (optimize, vacuum, the workload log, Python) takes its values from here, so what a commit
 * accepted is what they read.
 */
final case class TableSettings(
    strategies: Seq[String],
    batchBytes: Long,
    unindexedFromMillis: Long,
    auto: Boolean,
    retentionHours: Double,
    retentionCheck: Boolean,
    workloadLogEnabled: Boolean,
    prices: TablePrices = TablePrices.Uncalibrated,
    layoutPolicy: String = TableSettings.LayoutPolicy.default,
    layoutBudgetBytes: Long = TableSettings.LayoutBudgetBytes.default.toLong,
    learnPrices: Boolean = false)

/**
 * What reading and rewriting cost on the machine the table lives on, as `t.calibrate()`
 * measured it (Python's `skipstone.table.calibration`): the layout policies' `SparkCost` and
 * write multiplier take these instead of the library's defaults. Each is None until measured or set.
 */
final case class TablePrices(
    fileBytes: Option[Double],
    jobBytes: Option[Double],
    writeMultiplier: Option[Double],
    calibratedAt: Option[java.time.Instant],
    queryBytes: Option[Double] = None)

object TablePrices {
  val Uncalibrated: TablePrices = TablePrices(None, None, None, None, None)
}

/**
 * The schema of table settings (for each settable key: its type, default, allowed values and a
 * line of docs) and the one validator every change of properties passes: SQL's
 * `ALTER TABLE ... SET TBLPROPERTIES`, Python's `set_properties` and the properties a writer
 * commits all reach it through [[Tables.commit]].
 */
object TableSettings {
  import SettingKind._

  val StrategyNames: Seq[String] = Seq("unindexed", "compaction", "layout")
  /** Delta's safety floor: a retention under it needs the table's explicit opt-in, or force. */
  val DefaultRetentionHours = 168.0

  val Strategies = Setting("optimize.strategies", NameList(StrategyNames), StrategyNames.mkString(","),
    "the strategies, in the order an iteration asks them")
  val BatchBytes = Setting("optimize.batchBytes", WholeNumber(1), (1L << 30).toString,
    "the most bytes one `unindexed` or `compaction` iteration reads")
  val UnindexedFromMillis = Setting("optimize.unindexedFromMillis", WholeNumber(0), "0",
    "only other writers' files modified at or after this time (epoch ms)")
  /** The policies a table can name for its `layout` strategy (Python builds them: `skipstone.table.driver`). */
  val LayoutPolicies: Seq[String] = Seq("adaptive", "auto", "bounded", "bounded-auto")
  val LayoutPolicy = Setting("optimize.layoutPolicy", OneOf(LayoutPolicies), "adaptive",
    "the policy of the `layout` strategy when none is given (`t.optimize()`, SQL's `OPTIMIZE`, `optimize.auto`): " +
      "`adaptive` Amoeba's (`AmoebaAdaptive`), `auto` the columns the workload filters (`AutoColumns`), `bounded` " +
      "bounded rewrites on regret (`BoundedRewrite`), `bounded-auto` the better of the two at each step")
  val LayoutBudgetBytes = Setting("optimize.layoutBudgetBytes", WholeNumber(1), (256L * 1000 * 1000).toString,
    "the most bytes one step of the `bounded` and `bounded-auto` policies rewrites")
  val Auto = Setting("optimize.auto", Bool, "false", "`true`: every `t.append` runs one iteration after it commits")
  val RetentionHours = Setting("vacuum.retentionHours", Number(0), fmt(DefaultRetentionHours),
    s"vacuum's retention; a shorter one is refused unless forced; under ${fmt(DefaultRetentionHours)} only " +
      "with `vacuum.retentionCheck = false`")
  val RetentionCheck = Setting("vacuum.retentionCheck", Bool, "true",
    s"`false` is the explicit opt-in that a `vacuum.retentionHours` under ${fmt(DefaultRetentionHours)} needs " +
      "(set both in one change): a plain vacuum then deletes at that retention")
  val WorkloadLogEnabled = Setting("workloadLog.enabled", Bool, "true",
    "`false`: queries on this table are not logged, from any session")
  val WorkloadLogRetentionDays = Setting("workloadLog.retentionDays", Number(0), "30",
    "each vacuum compacts the workload log into one file and drops its records older than this many days")
  val FileBytes = Setting("cost.fileBytes", Optional(Number(0)), "",
    "what opening a file costs, in bytes read (`SparkCost.file_bytes`); unset: the library's calibration")
  val JobBytes = Setting("cost.jobBytes", Optional(Number(0)), "",
    "a rewrite's fixed cost, in bytes rewritten (`SparkCost.job_bytes`); unset: the library's calibration")
  val WriteMultiplier = Setting("cost.writeMultiplier", Optional(Number(0, above = true)), "",
    "a byte rewritten costs this many bytes read (the policies' `write_multiplier`); unset: the library's calibration")
  val QueryBytes = Setting("cost.queryBytes", Optional(Number(0)), "",
    "a query's fixed cost (planning, listing, its job), in bytes read (`SparkCost.query_bytes`); unset: the library's calibration")
  val CalibratedAt = Setting("cost.calibratedAt", Optional(Instant), "",
    "when `t.calibrate()` measured the `cost.*` prices on this machine")
  val Learn = Setting("cost.learn", Bool, "false",
    "`true`: each optimize first learns the prices from the table's logged queries and commits (as " +
      "`t.calibrate(source=\"log\")` does, without storing them), and prices with the `cost.*` settings while " +
      "there is too little to learn from")

  /** Every settable key, in the order the docs list them. */
  val All: Seq[Setting[_]] = Seq(Strategies, BatchBytes, UnindexedFromMillis, LayoutPolicy, LayoutBudgetBytes, Auto, RetentionHours, RetentionCheck,
    WorkloadLogEnabled, WorkloadLogRetentionDays, FileBytes, JobBytes, WriteMultiplier, QueryBytes, CalibratedAt, Learn)

  val Defaults: Map[String, String] = All.map(s => s.key -> s.default).toMap

  /** The operation of a change a user asked for; only those may set keys, others' writers set more. */
  val SetOperation = "SET PROPERTIES"

  /** The settings `properties` hold (defaults for those unset), or an error naming the table and key at fault. */
  def of(properties: Map[String, String], table: String): TableSettings =
    TableSettings(Strategies.read(properties, table), BatchBytes.read(properties, table),
      UnindexedFromMillis.read(properties, table), Auto.read(properties, table),
      RetentionHours.read(properties, table), RetentionCheck.read(properties, table),
      WorkloadLogEnabled.read(properties, table),
      TablePrices(FileBytes.read(properties, table), JobBytes.read(properties, table),
        WriteMultiplier.read(properties, table), CalibratedAt.read(properties, table), QueryBytes.read(properties, table)),
      LayoutPolicy.read(properties, table), LayoutBudgetBytes.read(properties, table), Learn.read(properties, table))

  /**
   * Refuses a change of properties before it is committed. A user's change ([[SetOperation]])
   * may set settings and free-form keys of its own (`owner`, `team`), but no key Skipstone's
   * writers own and no key that looks like a mistyped setting; every change's settings must
   * hold allowed values, and together with `before` keep the retention's opt-in rule.
   */
  def checkChange(table: String, before: Map[String, String], change: Map[String, String], byUser: Boolean): Unit = {
    if (byUser) change.keys.toSeq.sorted.foreach(checkKey(table, _))
    val after = before ++ change
    All.filter(s => change.contains(s.key)).foreach(_.read(after, table))
    if (change.contains(RetentionHours.key) || change.contains(RetentionCheck.key)) {
      val hours = RetentionHours.read(after, table)
      if (hours < DefaultRetentionHours && RetentionCheck.read(after, table)) throw new InvalidTableSetting(
        s"table $table: ${RetentionHours.key} = $hours is under the default $DefaultRetentionHours hours, which lets " +
          "every vacuum delete files that running queries or lagging readers still use; set " +
          s"${RetentionCheck.key} = false with it to opt in explicitly")
    }
  }

  /** Keys the table's writers own (format, schema, layout): changing them by hand would corrupt the table. */
  def reserved(key: String): Boolean = {
    val k = key.toLowerCase
    k == "format" || k == "schema" || k.startsWith("layout.")
  }

  private val settable: Set[String] = All.map(_.key).toSet
  /** Prefixes of the settings' keys: a key under one is Skipstone's, so an unknown one is a mistake. */
  private val namespaces: Set[String] = All.map(s => s.key.toLowerCase.takeWhile(_ != '.') + ".").toSet

  private def checkKey(table: String, key: String): Unit =
    if (!settable(key)) {
      if (reserved(key)) throw new InvalidTableSetting(
        s"table $table: '$key' is written by Skipstone itself, not settable; settable: ${settable.toSeq.sorted.mkString(", ")}")
      val nearest = closest(key)
      val ours = namespaces.exists(key.toLowerCase.startsWith)
      // A free-form key (`owner`) is the user's own metadata; one a typo away from a setting is a mistake.
      if (ours || nearest.exists { case (_, d) => d <= typoDistance(key) }) throw new InvalidTableSetting(
        s"table $table: '$key' is no table setting" +
          nearest.filter { case (_, d) => d <= key.length / 2 }.fold("")(n => s"; did you mean '${n._1}'?") +
          s" Settable: ${settable.toSeq.sorted.mkString(", ")}")
    }

  /** The setting nearest to `key` by edit distance (ignoring case), with the distance. */
  private[table] def closest(key: String): Option[(String, Int)] =
    All.map(s => s.key -> editDistance(key.toLowerCase, s.key.toLowerCase)).sortBy(_._2).headOption

  /** Edits within which a key counts as a mistyped setting: a fifth of its length, at least 2. */
  private def typoDistance(key: String): Int = math.max(2, key.length / 5)

  /** Levenshtein distance: insertions, deletions and substitutions. */
  private[table] def editDistance(a: String, b: String): Int = {
    val row = Array.tabulate(b.length + 1)(identity)
    a.indices.foreach { i =>
      var diagonal = row(0) // the previous row's value left of the cell being computed
      row(0) = i + 1
      b.indices.foreach { j =>
        val above = row(j + 1)
        row(j + 1) = math.min(math.min(row(j) + 1, above + 1), diagonal + (if (a.charAt(i) == b.charAt(j)) 0 else 1))
        diagonal = above
      }
    }
    row(b.length)
  }

  private implicit val formats: Formats = DefaultFormats

  /** The schema as JSON for Python (`skipstone.table.settings`): key, type, default, allowed, doc per setting. */
  def schemaJson: String = JsonMethods.compact(JsonMethods.render(JArray(All.map { s =>
    ("key" -> s.key) ~ ("type" -> s.kind.typeName) ~ ("default" -> s.default) ~ ("allowed" -> s.kind.allowed) ~
      ("doc" -> s.doc)
  }.toList)))

  /** [[of]] for Python: the properties as a JSON object in, the parsed settings as JSON out. */
  def readJson(propertiesJson: String, table: String): String = {
    val s = of(JsonMethods.parse(propertiesJson).extract[Map[String, String]], table)
    JsonMethods.compact(JsonMethods.render(("strategies" -> s.strategies.toList) ~ ("batchBytes" -> s.batchBytes) ~
      ("unindexedFromMillis" -> s.unindexedFromMillis) ~ ("auto" -> s.auto) ~ ("retentionHours" -> s.retentionHours) ~
      ("retentionCheck" -> s.retentionCheck) ~ ("workloadLogEnabled" -> s.workloadLogEnabled) ~
      ("prices" -> (("fileBytes" -> s.prices.fileBytes) ~ ("jobBytes" -> s.prices.jobBytes) ~
        ("writeMultiplier" -> s.prices.writeMultiplier) ~ ("queryBytes" -> s.prices.queryBytes) ~
        ("calibratedAt" -> s.prices.calibratedAt.map(_.toString)))) ~
      ("layoutPolicy" -> s.layoutPolicy) ~ ("layoutBudgetBytes" -> s.layoutBudgetBytes) ~ ("learnPrices" -> s.learnPrices)))
  }

  /** The settings table of docs/maintenance.md, which a test keeps equal to this schema. */
  def docsTable: String = {
    val header = Seq("| property | type | default | allowed | meaning |", "|---|---|---|---|---|")
    (header ++ All.map { s =>
      val default = if (s.default.isEmpty) "unset" else s"`${s.default}`"
      s"| `${s.key}` | ${s.kind.typeName} | $default | ${s.kind.allowed} | ${s.doc} |"
    })
      .mkString("\n")
  }
}
