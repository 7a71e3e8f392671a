package org.apache.spark.sql.skipstone

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.classic.{SparkSession => ClassicSession}

/**
 * The id Spark gives each session (`private[sql]`): what a cache shared by every session of the
 * JVM keys a session's own answers by, without holding the session.
 */
object SessionIds {
  def of(session: SparkSession): String = session.asInstanceOf[ClassicSession].sessionUUID
}
