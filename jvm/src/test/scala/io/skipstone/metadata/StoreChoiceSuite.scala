package io.skipstone.metadata

import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

class StoreChoiceSuite extends AnyFunSuite {
  private def parse(text: String) = StoreChoice.parse(text, "metadata_store")

  test("the forms users write name a store, a database and a table") {
    assert(parse("files") == StoreChoice.Files)
    assert(parse(" Catalog ") == StoreChoice.Catalog(None, None))
    assert(parse("catalog:Analytics") == StoreChoice.Catalog(Some("analytics"), None))
    assert(parse("catalog:analytics.weather_index") == StoreChoice.Catalog(Some("analytics"), Some("weather_index")))
  }

  test("anything else is refused naming the setting, the value and the forms") {
    val tooLong = intercept[IllegalArgumentException](parse("catalog:a.b.c")).getMessage
    assert(tooLong == "metadata_store: metadata store 'catalog:a.b.c' names more than a database and a table; " +
      s"one of ${StoreChoice.Forms}")
    assert(intercept[IllegalArgumentException](parse("hive")).getMessage.contains("'hive' is not a store"))
    assert(intercept[IllegalArgumentException](parse("catalog:db.we-ather")).getMessage.contains("'we-ather'"))
  }

  test("a name made for a dataset is a catalog name of its own, the same every time") {
    val name = StoreChoice.derivedName("file:/data/Weather Stations")
    assert(name.matches("skipstone_weather_stations_[0-9a-f]{12}"))
    assert(name == StoreChoice.derivedName("file:/data/Weather Stations"))
    assert(name != StoreChoice.derivedName("file:/other/Weather Stations"))
  }

  test("the pointer is written, replaced and removed, and absent means none") {
    val dir = new Path(Files.createTempDirectory("skipstone-pointer").toUri)
    val conf = new Configuration()
    assert(StorePointer.read(conf, dir).isEmpty)
    StorePointer.write(conf, dir, CatalogTableRef("db", "first"))
    StorePointer.write(conf, dir, CatalogTableRef("db", "second"))
    assert(StorePointer.read(conf, dir).contains(CatalogTableRef("db", "second")))
    StorePointer.remove(conf, dir)
    assert(StorePointer.read(conf, dir).isEmpty)
  }
}
