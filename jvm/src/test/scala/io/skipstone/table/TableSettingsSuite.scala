package io.skipstone.table

import org.scalatest.funsuite.AnyFunSuite

class TableSettingsSuite extends AnyFunSuite {
  private def refusal(before: Map[String, String], change: Map[String, String], byUser: Boolean = true): String =
    intercept[InvalidTableSetting](TableSettings.checkChange("t", before, change, byUser)).getMessage

  test("an unset table reads every setting's default") {
    assert(TableSettings.of(Map.empty, "t") == TableSettings(Seq("unindexed", "compaction", "layout"), 1L << 30, 0L,
      auto = false, retentionHours = 168.0, retentionCheck = true, workloadLogEnabled = true))
  }

  test("a value outside a setting's range names the table, the key and what is allowed") {
    assert(refusal(Map.empty, Map("optimize.batchBytes" -> "0")) ==
      "table t: property optimize.batchBytes must be a whole number >= 1, got '0'")
    assert(refusal(Map.empty, Map("optimize.strategies" -> "layout,bogus")).contains("(unknown 'bogus')"))
  }

  test("a typo is refused with the nearest setting; a free-form key is the user's") {
    assert(refusal(Map.empty, Map("optimise.auto" -> "true")).contains("did you mean 'optimize.auto'?"))
    TableSettings.checkChange("t", Map.empty, Map("owner" -> "search", "team" -> "x"), byUser = true)
  }

  test("writers may set the keys they own, users may not") {
    TableSettings.checkChange("t", Map.empty, Map("layout.blockRows" -> "10.0", "schema" -> "{}"), byUser = false)
    assert(refusal(Map.empty, Map("layout.blockRows" -> "10.0")).contains("written by Skipstone itself"))
  }

  test("a retention under the default needs the opt-in, now or from an earlier change") {
    assert(refusal(Map.empty, Map("vacuum.retentionHours" -> "1")).contains("vacuum.retentionCheck = false"))
    TableSettings.checkChange("t", Map("vacuum.retentionCheck" -> "false"), Map("vacuum.retentionHours" -> "1"), byUser = true)
    assert(refusal(Map("vacuum.retentionCheck" -> "false", "vacuum.retentionHours" -> "1"),
      Map("vacuum.retentionCheck" -> "true")).contains("vacuum.retentionCheck = false"))
  }

  test("a table's calibrated prices read as set, unset ones as None; a price out of range is refused") {
    val set = Map("cost.fileBytes" -> "64000", "cost.writeMultiplier" -> "12.5", "cost.queryBytes" -> "1.5e7",
      "cost.calibratedAt" -> "2026-11-26T09:30:00Z")
    assert(TableSettings.of(set, "t").prices == TablePrices(Some(64000.0), None, Some(12.5),
      Some(java.time.Instant.parse("2026-11-26T09:30:00Z")), Some(1.5e7)))
    assert(refusal(Map.empty, Map("cost.queryBytes" -> "-1")) ==
      "table t: property cost.queryBytes must be a number >= 0, or empty (unset), got '-1'")
    assert(refusal(Map.empty, Map("cost.writeMultiplier" -> "0")) ==
      "table t: property cost.writeMultiplier must be a number > 0, or empty (unset), got '0'")
    assert(refusal(Map.empty, Map("cost.calibratedAt" -> "yesterday")).contains("an ISO-8601 instant"))
    assert(refusal(Map.empty, Map("cost.fileByte" -> "1")).contains("did you mean 'cost.fileBytes'?"))
  }

  test("edit distance counts insertions, deletions and substitutions") {
    assert(TableSettings.editDistance("optimise", "optimize") == 1)
    assert(TableSettings.editDistance("", "abc") == 3)
    assert(TableSettings.editDistance("kitten", "sitting") == 3)
  }
}
