package io.skipstone.sql

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.parser.{ParameterContext, ParserInterface}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** Skipstone's parser on Spark 4.1 and 4.2: parameterized queries go to Spark's parser with their parameters. */
class SkipstoneSqlParser(session: SparkSession, delegate: ParserInterface)
  extends SkipstoneSqlParserBase(session, delegate) {

  override def parsePlanWithParameters(sqlText: String, context: ParameterContext): LogicalPlan =
    parse(sqlText)(delegate.parsePlanWithParameters(_, context))
}
