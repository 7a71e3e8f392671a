package io.skipstone.clauses.rules

import java.security.MessageDigest

import org.apache.spark.sql.catalyst.expressions.{Expression, PythonUDF}

import io.skipstone.metadata.IndexSpec

/**
 * Which function body an index was built with. Rules match a UDF by its registered name, and a
 * name can be registered again with another body: values computed by the old body say nothing
 * about the new one. An index that stores the digest of the function it evaluated answers only
 * leaves calling that same function.
 *
 * The digest of a Python UDF is SHA-256 over the command pyspark ships to executors (the
 * pickled function and its return type), so the Python build computes the same digest over the
 * function it calls as the JVM computes over a query's `PythonUDF`.
 */
object FunctionIdentity {
  /** The index param holding the digest of the function named by its `name` param (Formatted). */
  val DigestParam = "functionDigest"

  /** The index param holding the digest of the UDF `name` its roles call (user kinds). */
  def digestParam(name: String): String = s"$DigestParam.${name.toLowerCase}"

  /** Lower-cased UDF name -> digest, as an index's params record them. */
  def recorded(params: Map[String, String]): Map[String, String] = {
    val named = for {
      name <- params.get("name").filter(_.nonEmpty)
      digest <- params.get(DigestParam).filter(_.nonEmpty)
    } yield name.toLowerCase -> digest
    params.collect { case (k, v) if k.startsWith(DigestParam + ".") && v.nonEmpty => k.stripPrefix(DigestParam + ".") -> v } ++
      named
  }

  def digest(command: Array[Byte]): String =
    MessageDigest.getInstance("SHA-256").digest(command).map("%02x".format(_)).mkString

  /** The digest of a query's Python UDF. */
  def of(udf: PythonUDF): String = digest(udf.func.command.toArray)

  /**
   * Why `index` cannot answer `condition`: a call of its function's name there runs another
   * body than the one the index was built with. None when it can (or records no digest).
   */
  def mismatch(index: IndexSpec, condition: Expression): Option[String] = {
    val digests = recorded(index.params)
    if (digests.isEmpty) None
    else condition.collectFirst {
      case u: PythonUDF if digests.get(u.name.toLowerCase).exists(_ != of(u)) =>
        s"the function ${u.name} this query calls is not the one the index was built with " +
          "(it was registered again with another body); rebuild the index with the new function"
    }
  }
}
