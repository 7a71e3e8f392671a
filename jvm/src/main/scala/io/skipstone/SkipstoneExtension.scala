package io.skipstone

import org.apache.spark.sql.SparkSessionExtensions

import io.skipstone.functions.SkipstoneFunctions
import io.skipstone.query.{DeltaScanSkipping, IcebergScanSkipping, SkippingRule}
import io.skipstone.sketch.SketchFunctions
import io.skipstone.sql.{ManagedInsert, ResolveManagedInsertTarget, ResolveManagedTimeTravel, SkippingScanExec, SkipstoneSqlParser, TableFunctions}
import io.skipstone.table.ManagedTableRule

/**
 * Enables Skipstone: `spark.sql.extensions=io.skipstone.SkipstoneExtension`.
 */
class SkipstoneExtension extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    // first: a managed table's relation lists its pinned version before the skipping rule wraps it
    extensions.injectOptimizerRule(ManagedTableRule.apply)
    extensions.injectOptimizerRule(SkippingRule.apply)
    // Delta tables' scans are wrapped, Iceberg tables' narrowed, once their own planning is done
    // (DeltaScanSkipping, IcebergScanSkipping), then, as every wrapped scan, get what they
    // skipped as SQL metrics (Spark's UI) and in EXPLAIN
    extensions.injectQueryPostPlannerStrategyRule(DeltaScanSkipping.apply)
    extensions.injectQueryPostPlannerStrategyRule(IcebergScanSkipping.apply)
    extensions.injectColumnar(SkippingScanExec.Columnar.apply)
    extensions.injectQueryPostPlannerStrategyRule(_ => SkippingScanExec.Insert)
    // Skipstone's statements (docs/sql.md); everything else goes to Spark's parser
    extensions.injectParser((session, delegate) => new SkipstoneSqlParser(session, delegate))
    // `VERSION AS OF` on a managed table's root, which the parser hands over (ManagedTimeTravel)
    extensions.injectResolutionRule(ResolveManagedTimeTravel.apply)
    // INSERT INTO a managed table commits a version (after Spark lined the columns up); its root
    // by path (parquet.`root`) is a table to insert into
    extensions.injectResolutionRule(ResolveManagedInsertTarget.apply)
    extensions.injectPostHocResolutionRule(ManagedInsert.apply)
    SketchFunctions.all.foreach(extensions.injectFunction)
    SkipstoneFunctions.inject(extensions)
    // skipstone_files(root), skipstone_versions(root): a managed table's log as relations (docs/sql.md)
    TableFunctions.inject(extensions)
  }
}
