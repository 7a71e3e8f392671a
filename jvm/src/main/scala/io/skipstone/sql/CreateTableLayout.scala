package io.skipstone.sql

/**
 * `CREATE [OR REPLACE] TABLE t USING skipstone LAYOUT AMOEBA [BY] (a, b) [OPTIONS (...)] ... AS SELECT ...`:
 * the LAYOUT clause is Skipstone's, the rest Spark's. The clause becomes the source options it
 * stands for (`layout 'amoeba', columns 'a,b'`), so Spark's parser, analyzer and catalog see an
 * ordinary data source table and the `skipstone` source reads the options ([[io.skipstone.table.SourceOptions]]).
 */
object CreateTableLayout {
  private val CreateTable = """(?is)^\s*(?:CREATE(?:\s+OR\s+REPLACE)?|REPLACE)\s+TABLE\b.*""".r
  private val UsingSkipstone = """(?i)\bUSING\s+`?skipstone`?(?![\w.])""".r
  // where the query of a CTAS begins: the clause is looked for only before it
  private val QueryStart = """(?i)\bAS\s+(?=SELECT\b|WITH\b|FROM\b|VALUES\b|TABLE\b|\()""".r
  private val Layout = """(?i)\bLAYOUT\s+([A-Za-z_]\w*)(?:\s+BY)?(?:\s*\(([^()]*)\))?""".r
  private val Options = """(?i)\bOPTIONS\s*\(""".r

  /** The statement with its LAYOUT clause as options, or None when it is no such statement. */
  def rewrite(sql: String): Option[String] = {
    if (!CreateTable.pattern.matcher(sql).matches()) return None
    val using = UsingSkipstone.findFirstMatchIn(sql).getOrElse(return None)
    val end = QueryStart.findFirstMatchIn(sql).map(_.start).filter(_ > using.end).getOrElse(sql.length)
    val clause = Layout.findFirstMatchIn(sql.substring(using.end, end)).getOrElse(return None)
    val (start, stop) = (using.end + clause.start, using.end + clause.end)
    val columns = Option(clause.group(2)).toSeq.flatMap(_.split(",").toSeq).map(_.trim).filter(_.nonEmpty).map(unquote)
    columns.find(_.contains(",")).foreach(c => throw new SkipstoneSqlException(
      s"CREATE TABLE ... LAYOUT: column `$c` has a comma in its name, which a layout cannot name; rename it"))
    val options = (Seq("layout" -> clause.group(1).toLowerCase) ++
      Option.when(columns.nonEmpty)("columns" -> columns.mkString(","))).map { case (k, v) => s"$k '${escape(v)}'" }
    val without = sql.substring(0, start) + sql.substring(stop)
    Some(Options.findFirstMatchIn(without.substring(0, end - (stop - start))) match {
      case Some(o) => without.substring(0, o.end) + options.mkString("", ", ", ", ") + without.substring(o.end)
      case None => without.substring(0, start) + options.mkString(" OPTIONS (", ", ", ") ") + without.substring(start)
    })
  }

  private def unquote(c: String): String =
    if (c.length >= 2 && c.startsWith("`") && c.endsWith("`")) c.substring(1, c.length - 1).replace("``", "`") else c

  private def escape(v: String): String = v.replace("\\", "\\\\").replace("'", "\\'")
}
