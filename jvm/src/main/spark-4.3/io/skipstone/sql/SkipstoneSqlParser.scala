package io.skipstone.sql

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.parser.{ParameterContext, ParserInterface, SqlStatementSplitResult, TemporalIdentifier}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** Skipstone's parser on Spark 4.3 and later: 4.1's, plus time-travel identifiers and statement splitting. */
class SkipstoneSqlParser(session: SparkSession, delegate: ParserInterface)
  extends SkipstoneSqlParserBase(session, delegate) {

  override def parsePlanWithParameters(sqlText: String, context: ParameterContext): LogicalPlan =
    parse(sqlText)(delegate.parsePlanWithParameters(_, context))

  override def parseTemporalTableIdentifier(sqlText: String): TemporalIdentifier =
    delegate.parseTemporalTableIdentifier(sqlText)

  override def splitStatements(sqlText: String): SqlStatementSplitResult = delegate.splitStatements(sqlText)
}
