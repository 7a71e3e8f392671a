package io.skipstone.metadata

import org.json4s.jackson.JsonMethods
import org.scalatest.funsuite.AnyFunSuite

/** The automatic refresh's options (`CREATE SKIPPING INDEX ... WITH (auto_refresh = true, ...)`) and their JSON. */
class AutoRefreshSuite extends AnyFunSuite {
  private def parse(options: (String, String)*): Option[AutoRefresh] =
    AutoRefresh.fromOptions(options, why => throw new IllegalArgumentException(why))

  test("off unless auto_refresh is true; defaults fill what is not set") {
    assert(parse().isEmpty && parse("auto_refresh" -> "false").isEmpty)
    assert(parse("AUTO_REFRESH" -> "TRUE").contains(AutoRefresh(AutoRefresh.DefaultMaxFiles, AutoRefresh.DefaultMaxSeconds)))
    assert(parse("auto_refresh" -> "true", "auto_refresh_max_files" -> "3", "auto_refresh_max_seconds" -> "1.5")
      .contains(AutoRefresh(3, 1.5)))
  }

  test("a bad option is refused naming it") {
    def refused(options: (String, String)*): String = intercept[IllegalArgumentException](parse(options: _*)).getMessage
    assert(refused("auto_refresh" -> "yes").contains("'auto_refresh' is true or false, not 'yes'"))
    assert(refused("auto_refresh" -> "true", "auto_refresh_max_files" -> "0").contains("'auto_refresh_max_files'"))
    assert(refused("auto_refresh" -> "true", "auto_refresh_max_seconds" -> "-1").contains("'auto_refresh_max_seconds'"))
    assert(refused("auto_refresh" -> "true", "auto_refresh" -> "false").contains("sets option 'auto_refresh' twice"))
    assert(refused("often" -> "1").contains("has no option 'often'"))
    assert(refused("auto_refresh_max_files" -> "5").contains("without auto_refresh = true"))
  }

  test("index.json keeps the settings, and a definition without them has none") {
    val settings = AutoRefresh(7, 2.5)
    assert(AutoRefresh.fromJson(JsonMethods.parse(JsonMethods.compact(JsonMethods.render(settings.toJson)))).contains(settings))
    val definition = DatasetIndex(2, "file:/d", "parquet", Nil, None, where = Some("k > 1"), autoRefresh = Some(settings))
    assert(DatasetIndex.fromJson(definition.toJson) == definition)
    assert(DatasetIndex.fromJson(definition.copy(formatVersion = 1, where = None, autoRefresh = None).toJson).autoRefresh.isEmpty)
  }
}
