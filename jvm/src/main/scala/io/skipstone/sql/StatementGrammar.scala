package io.skipstone.sql

import scala.util.parsing.combinator.RegexParsers
import scala.util.parsing.input.Position

/**
 * The grammar of Skipstone's SQL statements (docs/sql.md), with scala-parser-combinators.
 *
 * A statement is Skipstone's when its leading keywords say so (`CREATE SKIPPING INDEX`,
 * `OPTIMIZE`, ...); from there on a mistake is reported as Skipstone's, naming the statement
 * and the position. Text whose leading keywords are not Skipstone's is [[NotOurs]] and goes to
 * Spark's parser untouched; so does an `ALTER TABLE` that is not exactly `SET TBLPROPERTIES`.
 */
object StatementGrammar extends RegexParsers {

  sealed trait Outcome
  final case class Parsed(statement: SkipstoneStatement) extends Outcome
  final case class Failed(statementName: String, message: String) extends Outcome
  case object NotOurs extends Outcome

  // Spark's comments count as white space, so they may appear anywhere between tokens.
  override protected val whiteSpace = """(?:\s|--[^\n]*(?:\n|$)|/\*(?s:.*?)\*/)+""".r

  def parse(sql: String): Outcome =
    statements.iterator.map { case (name, head, body) =>
      parse(head, sql) match {
        case Success(_, _) =>
          parseAll(body <~ rep(";"), sql) match {
            case Success(statement, _) => Some(Parsed(statement))
            case NoSuccess.I(message, next) if name == AlterName => Some(NotOurs) // Spark's ALTER TABLE forms
            case NoSuccess.I(message, next) => Some(Failed(name, describeFailure(name, sql, message, next.pos, next.offset)))
          }
        case _ => None
      }
    }.collectFirst { case Some(outcome) => outcome }.getOrElse(NotOurs)

  private val AlterName = "ALTER TABLE ... SET TBLPROPERTIES"

  private def describeFailure(name: String, sql: String, message: String, pos: Position, offset: Int): String = {
    val found = if (offset >= sql.length) "end of statement" else s"'${sql.substring(offset).trim.takeWhile(!_.isWhitespace).take(30)}'"
    s"$name: $message (line ${pos.line}, column ${pos.column}, at $found)\n${pos.longString}"
  }

  // -- tokens ---------------------------------------------------------------------------------

  private def kw(word: String): Parser[String] =
    (s"(?i)$word(?![A-Za-z0-9_])").r.withFailureMessage(s"$word expected") ^^ (_ => word)
  private def kws(words: String*): Parser[String] = words.map(kw).reduce(_ ~ _ ^^ { case a ~ b => s"$a $b" })

  private val bareIdentifier: Parser[String] = """[A-Za-z_][A-Za-z0-9_]*""".r
  private val quotedIdentifier: Parser[String] = "`(?:[^`]|``)*`".r ^^ (q => q.substring(1, q.length - 1).replace("``", "`"))
  private val identifier: Parser[String] = (quotedIdentifier | bareIdentifier).withFailureMessage("identifier expected")
  private val dotted: Parser[Seq[String]] = rep1sep(identifier, ".")

  private val stringLiteral: Parser[String] =
    ("""'(?:[^'\\]|\\.|'')*'""".r | "\"(?:[^\"\\\\]|\\\\.)*\"".r) ^^ { q =>
      q.substring(1, q.length - 1).replace("''", "'").replaceAll("""\\(.)""", "$1")
    }
  private val number: Parser[String] =
    """[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?""".r.withFailureMessage("a number expected")
  private val value: Parser[String] =
    (stringLiteral | number | kw("TRUE") ^^ (_ => "true") | kw("FALSE") ^^ (_ => "false") | bareIdentifier)
      .withFailureMessage("a value expected (a string, a number, true or false)")

  /** `key value`, `key = value`, `'key' = 'value'`; keys may be dotted (`metric.udf`). */
  private val keyValue: Parser[(String, String)] =
    ((stringLiteral | dotted ^^ (_.mkString("."))) ~ (opt("=") ~> value)) ^^ { case k ~ v => (k, v) }
  private def keyValues: Parser[Seq[(String, String)]] = "(" ~> rep1sep(keyValue, ",") <~ ")"

  private val target: Parser[Target] = dotted.withFailureMessage("a table name or format.`path` expected") ^^ Target.of
  // the column names of the Python API: dots split struct fields, backticks quote a part holding one
  private val column: Parser[String] = dotted ^^ (_.map { p =>
    if (p.contains(".") || p.contains("`")) s"`${p.replace("`", "``")}`" else p
  }.mkString("."))
  private val columns: Parser[Seq[String]] = "(" ~> rep1sep(column, ",") <~ ")"

  // -- statements -----------------------------------------------------------------------------

  // docs/encryption.md: a key per index, and one for the metadata's footer
  private val keyId: Parser[String] = stringLiteral.withFailureMessage("a key id expected, as a string ('k1')")
  private val indexKey = kws("ENCRYPTED", "WITH", "KEY") ~> keyId
  private val footerKey = kws("WITH", "FOOTER", "KEY") ~> keyId

  private val indexSpec: Parser[IndexSpec] =
    identifier ~ columns ~ opt(kw("OPTIONS") ~> keyValues) ~ opt(indexKey) ^^ { case kind ~ cols ~ options ~ key =>
      IndexSpec(kind, cols, options.getOrElse(Nil), key)
    }

  private val on = kw("ON") ~> target

  /**
   * A SQL predicate's text, up to a `WITH`, `STORED IN` or `;` outside quotes, parentheses and comments, or
   * the end: Spark's parser reads it when the index is built, and reports its mistakes.
   */
  private val predicateText: Parser[String] = new Parser[String] {
    private def word(c: Char) = c.isLetterOrDigit || c == '_'
    def apply(in: Input): ParseResult[String] = {
      val text = in.source
      val start = handleWhiteSpace(text, in.offset)
      def startsWith(at: Int, s: String) = text.length - at >= s.length && text.subSequence(at, at + s.length).toString.equalsIgnoreCase(s)
      def keyword(at: Int, k: String) = startsWith(at, k) && (at == 0 || !word(text.charAt(at - 1))) &&
        (at + k.length >= text.length || !word(text.charAt(at + k.length)))
      def followedBy(at: Int, length: Int, k: String) = { val next = handleWhiteSpace(text, at + length); next > at + length && keyword(next, k) }
      def storedIn(at: Int) = keyword(at, "STORED") && followedBy(at, 6, "IN") && {
        val in = handleWhiteSpace(text, at + 6)
        followedBy(in, 2, "FILES") || followedBy(in, 2, "CATALOG")
      }
      // the clauses that may follow: `WITH ...` and `STORED IN FILES | CATALOG ...` (`stored IN (1, 2)`,
      // over a column named `stored`, stays in the predicate)
      def clauseStartsAt(at: Int) = keyword(at, "WITH") || storedIn(at)
      def after(at: Int, close: String) = { // the position after `close`, searched from `at`
        var k = at
        while (k < text.length && !startsWith(k, close)) k += (if (text.charAt(k) == '\\' && close != "`") 2 else 1)
        math.min(k + close.length, text.length)
      }
      var i = start
      var depth = 0
      var end = -1
      while (i < text.length && end < 0) {
        val c = text.charAt(i)
        if (c == '\'' || c == '"' || c == '`') i = after(i + 1, c.toString)
        else if (startsWith(i, "--")) i = after(i, "\n")
        else if (startsWith(i, "/*")) i = after(i + 2, "*/")
        else if (c == '(') { depth += 1; i += 1 }
        else if (c == ')') { depth -= 1; i += 1 }
        else if (depth <= 0 && (c == ';' || clauseStartsAt(i))) end = i
        else i += 1
      }
      val stop = if (end < 0) text.length else end
      val predicate = text.subSequence(start, stop).toString.trim
      if (predicate.isEmpty) Failure("a predicate expected after WHERE", in.drop(start - in.offset))
      else Success(predicate, in.drop(stop - in.offset))
    }
  }

  // docs/partial-indexes.md: the files indexed, and the automatic refresh
  private val partialWhere = kw("WHERE") ~> predicateText
  private val withOptions = kw("WITH") ~> keyValues

  // docs/metadata.md, "Metadata stores": the store as Python's metadata_store= names it
  private val storedIn = kws("STORED", "IN") ~> (
    kw("FILES") ^^ (_ => "files") |
      kws("CATALOG", "TABLE") ~> dotted ^^ (name => "catalog:" + name.mkString(".")) |
      kws("CATALOG", "DATABASE") ~> identifier ^^ (db => s"catalog:$db") |
      kw("CATALOG") ^^ (_ => "catalog")
    ).withFailureMessage("FILES, CATALOG, CATALOG TABLE <database>.<table> or CATALOG DATABASE <database> expected")

  private val create = kws("CREATE", "SKIPPING", "INDEX") ~> on ~ ("(" ~> rep1sep(indexSpec, ",") <~ ")") ~ opt(partialWhere) ~
    opt(footerKey) ~ opt(withOptions) ~ opt(storedIn) ^^ {
    case t ~ indexes ~ where ~ footer ~ options ~ store =>
      CreateSkippingIndex(t, indexes, footer, where, options.getOrElse(Nil), store)
  }
  private val refresh = kws("REFRESH", "SKIPPING", "INDEX") ~> on ^^ RefreshSkippingIndex
  private val describe = (kw("DESCRIBE") | kw("DESC")) ~> kws("SKIPPING", "INDEX") ~> on ^^ DescribeSkippingIndex
  private val drop = kws("DROP", "SKIPPING", "INDEX") ~> on ^^ DropSkippingIndex
  private val advice = (kw("DESCRIBE") | kw("DESC")) ~> kws("SKIPPING", "ADVICE") ~> on ^^ DescribeSkippingAdvice
  private val showStats = kws("SHOW", "SKIPPING", "STATS") ^^ (_ => ShowSkippingStats)

  private val layout = kw("LAYOUT") ~> identifier ~ opt(kw("BY") ~> columns) ^^ { case name ~ cols =>
    LayoutSpec(name.toLowerCase, cols.getOrElse(Nil))
  }
  // Delta Lake's form, with or without parentheses: `ZORDER BY (a, b)` is `LAYOUT ZORDER BY (a, b)`
  private val zorderBy = kws("ZORDER", "BY") ~> (columns | rep1sep(column, ",")) ^^ (LayoutSpec("zorder", _))
  // Delta's WHERE picks partitions to rewrite; a managed table has none, so say so rather than "end expected"
  private val where = kw("WHERE") ~> failure("WHERE is not supported: a Skipstone table has no partitions, " +
    "so OPTIMIZE rewrites the whole table (drop the WHERE clause)")
  private val optimize = kw("OPTIMIZE") ~> target ~ opt(where | layout | zorderBy) ^^ { case t ~ l => OptimizeTable(t, l) }

  private val retain = kw("RETAIN") ~> number <~ kw("HOURS") ^^ (_.toDouble)
  private val vacuum = kw("VACUUM") ~> target ~ opt(retain) ~ opt(kws("DRY", "RUN")) ^^ {
    case t ~ hours ~ dry => VacuumTable(t, hours, dry.isDefined)
  }

  private val history = (kw("DESCRIBE") | kw("DESC")) ~> kw("HISTORY") ~> target ^^ DescribeHistory
  private val detail = (kw("DESCRIBE") | kw("DESC")) ~> kw("DETAIL") ~> target ^^ DescribeDetail

  private val alter = kws("ALTER", "TABLE") ~> target ~ (kws("SET", "TBLPROPERTIES") ~> keyValues) ^^ {
    case t ~ properties => SetTableProperties(t, properties)
  }

  /** (name for messages, leading keywords that make it Skipstone's, the whole statement). */
  private val statements: Seq[(String, Parser[Any], Parser[SkipstoneStatement])] = Seq(
    ("CREATE SKIPPING INDEX", kws("CREATE", "SKIPPING", "INDEX"), create),
    ("REFRESH SKIPPING INDEX", kws("REFRESH", "SKIPPING", "INDEX"), refresh),
    ("DESCRIBE SKIPPING INDEX", (kw("DESCRIBE") | kw("DESC")) ~ kws("SKIPPING", "INDEX"), describe),
    ("DROP SKIPPING INDEX", kws("DROP", "SKIPPING", "INDEX"), drop),
    ("DESCRIBE SKIPPING ADVICE", (kw("DESCRIBE") | kw("DESC")) ~ kws("SKIPPING", "ADVICE"), advice),
    ("SHOW SKIPPING STATS", kws("SHOW", "SKIPPING"), showStats),
    ("OPTIMIZE", kw("OPTIMIZE"), optimize),
    ("VACUUM", kw("VACUUM"), vacuum),
    // `DESCRIBE history` alone describes a table named history, as in Spark
    ("DESCRIBE HISTORY", (kw("DESCRIBE") | kw("DESC")) ~ kw("HISTORY") ~ identifier, history),
    // likewise `DESCRIBE detail` alone describes a table named detail
    ("DESCRIBE DETAIL", (kw("DESCRIBE") | kw("DESC")) ~ kw("DETAIL") ~ identifier, detail),
    (AlterName, kws("ALTER", "TABLE"), alter))
}
