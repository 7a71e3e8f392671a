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
  /** The index param holding the digest of the function named by its `name` param. */
  val DigestParam = "functionDigest"

  def digest(command: Array[Byte]): String =
    MessageDigest.getInstance("SHA-256").digest(command).map("%02x".format(_)).mkString

  /** The digest of a query's Python UDF. */
  def of(udf: PythonUDF): String = digest(udf.func.command.toArray)

  /**
   * Why `index` cannot answer `condition`: a call of its function's name there runs another
   * body than the one the index was built with. None when it can (or records no digest).
   */
  def mismatch(index: IndexSpec, condition: Expression): Option[String] =
    for {
      name <- index.params.get("name").filter(_.nonEmpty)
      stored <- index.params.get(DigestParam).filter(_.nonEmpty)
      other <- condition.collectFirst { case u: PythonUDF if u.name.equalsIgnoreCase(name) && of(u) != stored => u }
    } yield s"the function ${other.name} this query calls is not the one the index was built with " +
      "(it was registered again with another body); rebuild the index with the new function"
}
