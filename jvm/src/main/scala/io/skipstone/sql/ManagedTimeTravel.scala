package io.skipstone.sql

import java.time.Instant
import java.time.temporal.ChronoUnit

import scala.util.Try

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.catalog.CatalogTableType
import org.apache.spark.sql.catalyst.analysis.{AsOfTimestamp, AsOfVersion, RelationTimeTravel, TimeTravelSpec, UnresolvedLeafNode, UnresolvedRelation}
import org.apache.spark.sql.catalyst.expressions.{Expression, SubqueryExpression}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.{DataSource, FileFormat, LogicalRelation}

import io.skipstone.table.{ManagedReadOptions, TableLog}

/**
 * `SELECT ... FROM parquet.`<root>` VERSION AS OF n` (or `TIMESTAMP AS OF t`) on a managed table.
 *
 * Spark parses it into a [[RelationTimeTravel]] over the path, and its `ResolveSQLOnFile` rule
 * refuses time travel on any path (UNSUPPORTED_FEATURE.TIME_TRAVEL) before an injected
 * resolution rule could see it. So Skipstone's parser, which runs first, replaces the node when
 * the path is a managed table's root by a [[ManagedTimeTravel]], and [[ResolveManagedTimeTravel]]
 * resolves that into the plain relation over the root with the matching read option, the one the
 * DataFrame reader gives (`versionAsOf`, `timestampAsOf`); `ManagedTableRule` then reads that
 * version. A session-catalog table over a managed table's root (`CREATE TABLE ... USING skipstone`)
 * travels the same way. Other time travel (Delta's and Iceberg's tables) stays Spark's.
 */
case class ManagedTimeTravel(format: String, root: String, timestamp: Option[Expression], version: Option[String])
  extends UnresolvedLeafNode

object ManagedTimeTravel {

  /** `plan` with time travel on managed tables' roots made Skipstone's (in subqueries too). */
  def claim(session: SparkSession, plan: LogicalPlan): LogicalPlan =
    plan.transformUpWithSubqueries {
      case RelationTimeTravel(UnresolvedRelation(Seq(format, path), _, false), timestamp, version)
          if !timestamp.exists(SubqueryExpression.hasSubquery) && isFileFormat(session, format) &&
            isManagedRoot(session, path) =>
        ManagedTimeTravel(format, path, timestamp, version)
      case travel @ RelationTimeTravel(UnresolvedRelation(parts, _, false), timestamp, version)
          if !timestamp.exists(SubqueryExpression.hasSubquery) =>
        catalogTableRoot(session, parts).fold(travel: LogicalPlan)(ManagedTimeTravel("parquet", _, timestamp, version))
    }

  /**
   * The root of the managed table a session-catalog table stands for (`CREATE TABLE ... USING
   * skipstone`, or any table whose location is a managed table's root); None for anything else,
   * a temporary view of that name included, which keeps Spark's meaning.
   */
  private def catalogTableRoot(session: SparkSession, parts: Seq[String]): Option[String] = Try {
    val catalog = session.sessionState.catalog
    val identifier = parts match {
      case Seq(table) => Some(TableIdentifier(table))
      case Seq(db, table) => Some(TableIdentifier(table, Some(db)))
      case Seq(c, db, table) if c.equalsIgnoreCase("spark_catalog") => Some(TableIdentifier(table, Some(db)))
      case _ => None
    }
    identifier.filterNot(_ => catalog.isTempView(parts)).map(catalog.getTableMetadata)
      .filter(_.tableType != CatalogTableType.VIEW).flatMap(_.storage.locationUri)
      .map(uri => io.skipstone.metadata.MetadataStore.qualify(session, uri.toString)).filter(isManagedRoot(session, _))
  }.toOption.flatten

  // As ResolveSQLOnFile decides that `format.`path`` names files: the format is a file source.
  private def isFileFormat(session: SparkSession, format: String): Boolean =
    Try(classOf[FileFormat].isAssignableFrom(DataSource(session, className = format).providingClass)).getOrElse(false)

  private def isManagedRoot(session: SparkSession, path: String): Boolean =
    Try(TableLog.latestVersion(session.sessionState.newHadoopConf(), path).isDefined).getOrElse(false)

  /** The read option that asks for `spec`; a timestamp as an instant with microseconds, which Spark's cast reads back exactly. */
  def option(spec: TimeTravelSpec): (String, String) = spec match {
    case AsOfVersion(v) => ManagedReadOptions.VersionAsOf -> v
    case AsOfTimestamp(micros) =>
      ManagedReadOptions.TimestampAsOf -> Instant.EPOCH.plus(micros, ChronoUnit.MICROS).toString
  }
}

/** Resolves [[ManagedTimeTravel]] into the relation over the root, asking for the version by read option. */
case class ResolveManagedTimeTravel(session: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case t: ManagedTimeTravel if t.timestamp.forall(_.resolved) =>
      // Spark's own evaluation of the clause: the timestamp expression in the session's time zone
      val spec = TimeTravelSpec.create(t.timestamp, t.version, conf.sessionLocalTimeZone)
        .getOrElse(throw new IllegalStateException("VERSION AS OF or TIMESTAMP AS OF without a value"))
      val source = DataSource(session, paths = Seq(t.root), className = t.format,
        options = Map(ManagedTimeTravel.option(spec)))
      LogicalRelation(source.resolveRelation())
  }
}
