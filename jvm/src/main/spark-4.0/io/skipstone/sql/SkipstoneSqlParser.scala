package io.skipstone.sql

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.parser.ParserInterface

/** Skipstone's parser on Spark 4.0, whose `ParserInterface` has only what the base forwards. */
class SkipstoneSqlParser(session: SparkSession, delegate: ParserInterface)
  extends SkipstoneSqlParserBase(session, delegate)
