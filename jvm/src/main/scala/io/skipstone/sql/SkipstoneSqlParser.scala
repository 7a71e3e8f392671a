package io.skipstone.sql

import scala.util.control.NonFatal

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.{FunctionIdentifier, TableIdentifier}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.command.ExplainCommand
import org.apache.spark.sql.types.{DataType, StructType}

import io.skipstone.sources.DeltaTables
import io.skipstone.sql.commands._

/**
 * Spark's parser with Skipstone's statements in front (docs/sql.md). A statement whose leading
 * keywords are Skipstone's becomes a Skipstone command; anything else is Spark's parser's,
 * unchanged, except that an `EXPLAIN` also tells what each indexed scan skips and that time travel
 * on a managed table's root becomes Skipstone's ([[ManagedTimeTravel]]).
 *
 * What every Spark 4.x has. `ParserInterface` gains methods from one minor to the next, with
 * types the earlier minors lack (`parsePlanWithParameters` in 4.1; `parseTemporalTableIdentifier`
 * and `splitStatements` in 4.3), so the concrete `SkipstoneSqlParser`, which forwards those too,
 * is in a folder per Spark minor: `jvm/src/main/spark-4.x/`, the one for the pyspark that
 * compiles the jar (jvm/build_jar.py picks it; docs/spark-versions.md).
 */
abstract class SkipstoneSqlParserBase(session: SparkSession, delegate: ParserInterface) extends ParserInterface {

  override def parsePlan(sqlText: String): LogicalPlan = parse(sqlText)(delegate.parsePlan)

  /**
   * A Skipstone statement's plan, or what `spark` (Spark's parser) makes of the text, with
   * Skipstone's EXPLAIN; a `CREATE TABLE ... USING skipstone LAYOUT ...` reaches Spark with its
   * LAYOUT clause as options ([[CreateTableLayout]]).
   */
  protected def parse(sqlText: String)(spark: String => LogicalPlan): LogicalPlan =
    skipstonePlan(sqlText).getOrElse(withSkipping(ManagedTimeTravel.claim(session,
      spark(CreateTableLayout.rewrite(sqlText).getOrElse(sqlText)))))

  private def skipstonePlan(sqlText: String): Option[LogicalPlan] = StatementGrammar.parse(sqlText) match {
    case StatementGrammar.NotOurs => None
    case StatementGrammar.Failed(_, message) => throw new SkipstoneSqlException(message)
    case StatementGrammar.Parsed(statement) => command(statement)
  }

  private def command(statement: SkipstoneStatement): Option[LogicalPlan] = statement match {
    case CreateSkippingIndex(target, indexes, footerKey, where, options, store) =>
      Some(CreateSkippingIndexCommand(target, indexes, footerKey, where, options, store))
    case RefreshSkippingIndex(target) => Some(RefreshSkippingIndexCommand(target))
    case DescribeSkippingIndex(target) => Some(DescribeSkippingIndexCommand(target))
    case DescribeSkippingAdvice(target) => Some(DescribeSkippingAdviceCommand(target))
    case DropSkippingIndex(target) => Some(DropSkippingIndexCommand(target))
    case OptimizeTable(target, layout) => Option.unless(isDeltaTable(target))(OptimizeCommand(target, layout))
    case VacuumTable(target, hours, dryRun) => Option.unless(isDeltaTable(target))(VacuumCommand(target, hours, dryRun))
    case DescribeHistory(target) => Option.unless(isDeltaTable(target))(DescribeHistoryCommand(target))
    case DescribeDetail(target) => Option.unless(isDeltaTable(target))(DescribeDetailCommand(target))
    case ShowSkippingStats => Some(ShowSkippingStatsCommand)
    case SetTableProperties(target, properties) =>
      managedRoot(target).map(root => SetTablePropertiesCommand(target, root, properties))
  }

  /**
   * Delta Lake has statements of the same names (OPTIMIZE, VACUUM, DESCRIBE HISTORY, DESCRIBE
   * DETAIL): on a Delta table they are Delta's, passed on to the parser Skipstone wraps, so that
   * the order of `spark.sql.extensions` does not decide what they mean.
   */
  private def isDeltaTable(target: Target): Boolean = target match {
    case PathTarget(format, _) if format.equalsIgnoreCase(DeltaTables.Format) => true
    case _ =>
      val resolved = try Some(ResolvedTarget(session, target)) catch {
        case NonFatal(_) => None // no such table: Skipstone's command says so
      }
      resolved.exists(r => r.format.equalsIgnoreCase(DeltaTables.Format) ||
        (!r.isManagedTable(session) && DeltaTables.isTableRoot(session.sessionState.newHadoopConf(), r.root)))
  }

  /**
   * `ALTER TABLE` is Skipstone's only on a managed table; on any other table it keeps Spark's
   * meaning. A path names no catalog table, so Spark could not run it: Skipstone reports why.
   */
  private def managedRoot(target: Target): Option[String] = target match {
    case delta: PathTarget if isDeltaTable(delta) => None // Delta's table properties
    case _: PathTarget => Some(ResolvedTarget(session, target).managedRoot(session, "ALTER TABLE ... SET TBLPROPERTIES"))
    case _: TableName =>
      val resolved = try Some(ResolvedTarget(session, target)) catch {
        case NonFatal(_) => None // no such table: Spark's parser and analyzer say so in their words
      }
      resolved.filter(_.isManagedTable(session)).map(_.root)
  }

  private def withSkipping(plan: LogicalPlan): LogicalPlan = plan match {
    case explain: ExplainCommand => ExplainSkippingCommand(explain)
    case other => other
  }

  override def parseExpression(sqlText: String): Expression = delegate.parseExpression(sqlText)
  override def parseTableIdentifier(sqlText: String): TableIdentifier = delegate.parseTableIdentifier(sqlText)
  override def parseFunctionIdentifier(sqlText: String): FunctionIdentifier = delegate.parseFunctionIdentifier(sqlText)
  override def parseMultipartIdentifier(sqlText: String): Seq[String] = delegate.parseMultipartIdentifier(sqlText)
  override def parseQuery(sqlText: String): LogicalPlan = ManagedTimeTravel.claim(session, delegate.parseQuery(sqlText))
  override def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
  override def parseTableSchema(sqlText: String): StructType = delegate.parseTableSchema(sqlText)
  override def parseDataType(sqlText: String): DataType = delegate.parseDataType(sqlText)
}
