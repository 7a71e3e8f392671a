package org.apache.spark.sql.skipstone

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.classic.{Dataset => ClassicDataset, SparkSession => ClassicSession}

/**
 * Two things Spark keeps to its own packages (`private[sql]`) that reading a table's files the
 * way a connector does needs: a copy of a session (its settings, functions and views) whose
 * settings may then differ without touching the user's, and a DataFrame over a plan already
 * resolved. A bridge in a package under `org.apache.spark.sql`, as connectors' bridges are.
 */
object Sessions {
  def cloned(session: SparkSession): SparkSession = session.asInstanceOf[ClassicSession].cloneSession()

  def ofPlan(session: SparkSession, plan: LogicalPlan): DataFrame =
    ClassicDataset.ofRows(session.asInstanceOf[ClassicSession], plan)
}
