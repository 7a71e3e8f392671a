package io.skipstone.query

import org.apache.spark.sql.execution.UnaryExecNode

/**
 * A node right above a scan that passes the scan's rows through untouched and only shows what
 * Skipstone did to it (`SkippingScanExec`, of the SQL layer): rules that look for the filter
 * right above a scan look through it.
 */
trait ScanAnnotation extends UnaryExecNode
