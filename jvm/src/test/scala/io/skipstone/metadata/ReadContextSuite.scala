package io.skipstone.metadata

import org.apache.spark.sql.catalyst.analysis.{caseInsensitiveResolution, caseSensitiveResolution}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

class ReadContextSuite extends AnyFunSuite {
  private val schema = StructType(Seq(StructField("ts", TimestampType), StructField("temp", DoubleType)))
  private val parquet = ReadContext("parquet", Map.empty, schema, Nil, "UTC", Map.empty, "4.3")
  private val csv = parquet.copy(format = "csv", options = Map("header" -> "true"))

  private def withFieldId(f: StructField, id: Long): StructField =
    f.copy(metadata = new MetadataBuilder().putLong("parquet.field.id", id).build())

  test("the same read has no differences") {
    assert(parquet.differences(parquet).isEmpty)
    assert(parquet.differences(parquet).readsAlike)
  }

  test("another format voids every index") {
    val diff = parquet.differences(parquet.copy(format = "orc"))
    assert(diff.everyIndex.exists(_.contains("built for format parquet, read as orc")))
    assert(!diff.readsAlike)
  }

  test("another reader option voids every index and names the option") {
    val diff = csv.differences(csv.copy(options = Map("header" -> "true", "sep" -> ";")))
    assert(diff.everyIndex == Seq("built with reader option sep=unset, read with ;"))
  }

  test("a setting left unset equals that setting set to its default") {
    val ansiDefault = new org.apache.spark.sql.internal.SQLConf().ansiEnabled.toString
    assert(parquet.copy(settings = Map("spark.sql.ansi.enabled" -> ansiDefault)).differences(parquet).isEmpty)
    val other = (!ansiDefault.toBoolean).toString
    assert(parquet.copy(settings = Map("spark.sql.ansi.enabled" -> other)).differences(parquet).everyIndex.nonEmpty)
  }

  test("a text timestamp format voids only indexes over datetimes in CSV") {
    val diff = csv.differences(csv.copy(options = csv.options + ("timestampformat" -> "dd/MM/yyyy HH:mm")))
    assert(diff.everyIndex.isEmpty)
    assert(diff.datetimeIndexes.nonEmpty)
    assert(!diff.readsAlike)
  }

  test("in JSON a datetime option voids every index: a failed field nulls the whole record") {
    val json = parquet.copy(format = "json")
    assert(json.differences(json.copy(options = Map("timestampformat" -> "yyyy")))
      .everyIndex.exists(_.contains("timestampformat")))
  }

  test("another session time zone changes nothing a Parquet read returns") {
    assert(parquet.differences(parquet.copy(timeZone = "Asia/Tokyo")).isEmpty)
  }

  test("another session time zone voids datetime indexes of a CSV read") {
    assert(csv.differences(csv.copy(timeZone = "Asia/Tokyo")).datetimeIndexes
      .exists(_.contains("read in time zone UTC, now in Asia/Tokyo")))
  }

  test("zones with the same rules are the same zone, UTC and Etc/UTC included") {
    assert(ReadContext.sameZone("UTC", "Etc/UTC"))
    assert(csv.differences(csv.copy(timeZone = "Etc/UTC")).isEmpty)
  }

  test("zones with other rules differ, and an unknown zone equals only itself") {
    assert(!ReadContext.sameZone("UTC", "Europe/Paris"))
    assert(!ReadContext.sameZone("Mars/Olympus", "UTC"))
    assert(ReadContext.sameZone("Mars/Olympus", "Mars/Olympus"))
  }

  test("a function-only setting voids only expression indexes, not the row counts") {
    val diff = parquet.differences(parquet.copy(settings = Map("spark.sql.binaryOutputStyle" -> "BASE64")))
    assert(diff.readsAlike)
    assert(diff.expressionIndexes.nonEmpty)
  }

  test("DROPMALFORMED voids every index: the rows read depend on the projection") {
    val dropping = csv.copy(options = csv.options + ("mode" -> "DROPMALFORMED"))
    assert(dropping.differences(dropping).everyIndex.nonEmpty)
  }

  test("another Spark minor voids every index") {
    assert(parquet.differences(parquet.copy(sparkVersion = "4.1")).everyIndex.nonEmpty)
  }

  test("a column read the same way has no column mismatch") {
    assert(parquet.columnMismatch(Seq(ColumnPath(Seq("temp"))), parquet, caseSensitiveResolution).isEmpty)
  }

  test("an index over a partition column is refused") {
    val partitioned = parquet.copy(partitionColumns = Seq("temp"))
    assert(parquet.columnMismatch(Seq(ColumnPath(Seq("temp"))), partitioned, caseSensitiveResolution)
      .exists(_.contains("temp is a partition column")))
  }

  test("a column the read no longer has is refused") {
    val without = parquet.copy(dataSchema = StructType(schema.fields.take(1)))
    assert(parquet.columnMismatch(Seq(ColumnPath(Seq("temp"))), without, caseSensitiveResolution)
      .exists(_.contains("not a column of the files")))
  }

  test("a column spelled otherwise by a case-insensitive read is refused") {
    val upper = parquet.copy(dataSchema = StructType(Seq(schema("ts"), StructField("TEMP", DoubleType))))
    assert(parquet.columnMismatch(Seq(ColumnPath(Seq("temp"))), upper, caseInsensitiveResolution)
      .exists(_.contains("indexed as temp and is read as TEMP")))
  }

  test("a CSV column moved to another position is refused: CSV maps columns by position") {
    val swapped = csv.copy(dataSchema = StructType(schema.fields.reverse))
    assert(csv.columnMismatch(Seq(ColumnPath(Seq("temp"))), swapped, caseSensitiveResolution)
      .exists(_.contains("column 1 of this read and was column 2")))
    assert(parquet.columnMismatch(Seq(ColumnPath(Seq("temp"))), parquet.copy(dataSchema = StructType(schema.fields.reverse)),
      caseSensitiveResolution).isEmpty)
  }

  test("an Iceberg read is not Parquet's, and the session time zone changes nothing it returns") {
    val iceberg = parquet.copy(format = BuildSource.IcebergFormat)
    assert(iceberg.differences(parquet).everyIndex.exists(_.contains("built for format iceberg, read as parquet")))
    assert(iceberg.differences(iceberg.copy(timeZone = "Asia/Tokyo")).isEmpty)
  }

  test("an Iceberg read maps nested fields by id: a struct whose fields' ids changed is refused") {
    def point(xId: Long) = StructField("p", StructType(Seq(withFieldId(StructField("x", IntegerType), xId))))
    val built = parquet.copy(format = BuildSource.IcebergFormat, dataSchema = StructType(Seq(withFieldId(point(3), 1))))
    val now = built.copy(dataSchema = StructType(Seq(withFieldId(point(4), 1))))
    assert(built.columnMismatch(Seq(ColumnPath(Seq("p", "x"))), now, caseSensitiveResolution)
      .exists(_.contains("nested fields' ids or names differ")))
    assert(built.columnMismatch(Seq(ColumnPath(Seq("p", "x"))), built, caseSensitiveResolution).isEmpty)
  }

  test("a column read by another field id is refused") {
    val built = parquet.copy(dataSchema = StructType(Seq(schema("ts"), withFieldId(schema("temp"), 2))))
    val now = parquet.copy(dataSchema = StructType(Seq(schema("ts"), withFieldId(schema("temp"), 7))))
    assert(built.columnMismatch(Seq(ColumnPath(Seq("temp"))), now, caseSensitiveResolution)
      .exists(_.contains("field id 7, indexed with 2")))
  }
}
