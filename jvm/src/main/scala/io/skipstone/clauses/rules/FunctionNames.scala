package io.skipstone.clauses.rules

import java.util.concurrent.ConcurrentHashMap

import scala.util.Try

import org.apache.spark.sql.catalyst.catalog.SessionCatalog
import org.apache.spark.sql.catalyst.expressions.{Expression, PythonUDF, RuntimeReplaceable, ScalaUDF}

/**
 * Whether a function name written in a pattern denotes the function a resolved leaf calls.
 * UDFs keep their registered name in the plan; built-ins are known by class, which the
 * session's catalog gives for a name.
 */
class FunctionNames(catalog: SessionCatalog) {
  private val classNames = new ConcurrentHashMap[String, Option[String]]()

  def same(nameParts: Seq[String], e: Expression): Boolean = {
    val name = nameParts.last
    e match {
      case u: PythonUDF => u.name.equalsIgnoreCase(name)
      case u: ScalaUDF => u.udfName.exists(_.equalsIgnoreCase(name))
      case _ => registeredClass(name).contains(e.getClass.getName) || builtBy(name, e)
    }
  }

  private def registeredClass(name: String): Option[String] =
    classNames.computeIfAbsent(name.toLowerCase, n => catalog.lookupBuiltinOrTempFunction(n).map(_.getClassName))

  /** Names registered as builders (or rewritten at analysis) build the leaf's class from its children. */
  private def builtBy(name: String, e: Expression): Boolean =
    registeredClass(name).isDefined &&
      Try(catalog.resolveBuiltinOrTempFunction(name, e.children)).toOption.flatten.exists {
        case r: RuntimeReplaceable => r.getClass == e.getClass || r.replacement.getClass == e.getClass
        case built => built.getClass == e.getClass
      }
}
