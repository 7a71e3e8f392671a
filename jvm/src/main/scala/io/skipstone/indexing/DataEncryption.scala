package io.skipstone.indexing

import org.apache.spark.sql.{DataFrame, SparkSession}

import io.skipstone.encryption.{EncryptionConf, KeyProbe}

/**
 * Indexes over encrypted data stay encrypted (docs/encryption.md). An index over a column that
 * the data's Parquet files encrypt with a key of their own is encrypted with that same key:
 * with no key asked for, it gets the column's; with another key, or in plaintext, it would tell
 * holders of another key (or anyone) about the column's values, so it is refused. A session
 * that cannot decrypt the column cannot index it either.
 *
 * Which columns are encrypted is learnt from a data file's footer, read with the session's keys;
 * under which key, from `parquet.encryption.column.keys` (the reader's options, else the
 * session's), the setting the data was written with.
 */
object DataEncryption {
  /** How the data encrypts one column: its key id if declared, and why this session cannot decrypt it. */
  final case class Column(key: Option[String], denied: Option[String])

  /** What the data's files say of encryption, for the columns indexes are asked over. */
  final case class Data(columnKeys: Map[String, String], probe: Option[KeyProbe.Outcome], footerKey: Option[String]) {
    /** How `column` is encrypted in the data, if it is. */
    def column(column: ResolvedColumn): Option[Column] = {
      val parts = column.path.parts
      val declared = columnKeys.collectFirst {
        case (name, key) if { val p = ColumnResolver.split(name); p.startsWith(parts) || parts.startsWith(p) } => key
      }
      val seen = probe.collect { case r: KeyProbe.Readable => r.under(parts) }.flatten
      Option.when(declared.isDefined || seen.isDefined)(Column(declared, seen.flatten))
    }
  }

  /** What `data`'s files say; for rows that are not one file relation's (a managed table's new rows), the session's settings. */
  def of(session: SparkSession, data: DataFrame): Data = {
    val relation = SourceRelation.find(data)
    val options = relation.fold(Map.empty[String, String])(_.relation.options)
    val conf = session.sessionState.newHadoopConfWithOptions(options)
    val file = relation.filter(_.context(session).format == "parquet").flatMap(_.someFile)
    Data(EncryptionConf.dataColumnKeys(conf, options), file.map(KeyProbe.probe(conf, _)),
      Option(conf.getTrimmed(EncryptionConf.FooterKey)).filter(_.nonEmpty))
  }

  /**
   * `request` with the key its index must be encrypted with, or an error naming the index and
   * the column. `columns` are the request's, resolved.
   */
  def settle(request: IndexRequest, columns: Seq[ResolvedColumn], data: Data, dataset: String): IndexRequest = {
    val shown = request.name.getOrElse(s"${request.kind}(${request.columns.mkString(", ")})")
    def refuse(why: String) = throw new IndexBuildError(s"$shown cannot be built on $dataset: $why")
    data.probe.foreach {
      case KeyProbe.FooterDenied(why) => refuse(s"this session cannot read the footers of its Parquet files ($why)")
      case _ =>
    }
    val encrypted = columns.flatMap(c => data.column(c).map(c -> _))
    encrypted.collectFirst { case (c, Column(key, Some(why))) =>
      refuse(s"column ${c.name} is encrypted in its files${key.fold("")(k => s" with key '$k'")} and this session " +
        s"cannot decrypt it ($why)")
    }
    val keys = encrypted.map { case (c, col) => c -> col.key.getOrElse(refuse(
      s"column ${c.name} is encrypted in its files, so its index must be encrypted with the column's key, and " +
        s"${EncryptionConf.ColumnKeys} does not say which key that is: give the index the column's key " +
        "(Python: .encrypted_with('<key id>'); SQL: ENCRYPTED WITH KEY '<key id>')")) }
    keys.map(_._2).distinct match {
      case Seq() => request
      case Seq(key) if request.key.forall(_ == key) => request.copy(key = Some(key))
      case Seq(key) => refuse(s"column ${keys.head._1.name} is encrypted in its files with key '$key'; its index " +
        s"must be encrypted with that key, not '${request.key.get}' (holders of '${request.key.get}' would learn about the column)")
      case _ => refuse(s"its columns are encrypted with different keys (${keys.map { case (c, k) => s"${c.name}: '$k'" }
        .mkString(", ")}); one index is encrypted with one key: index them separately")
    }
  }
}
