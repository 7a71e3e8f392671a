package io.skipstone.clauses.rules

import java.util.concurrent.ConcurrentHashMap

import scala.util.Try

import org.apache.spark.sql.catalyst.catalog.SessionCatalog
import org.apache.spark.sql.catalyst.expressions.{Expression, PythonUDF, RuntimeReplaceable, ScalaUDF}

/**
 * Whether a function name written in a pattern denotes the function a resolved leaf calls.
 * UDFs keep their registered name in the plan. A built-in is known by what it builds: the
 * catalog builds the name over the leaf's own arguments, and the result must be the leaf's
 * node — same class, same result type, same non-child arguments. Class alone is not enough:
 * `int`, `double` and `string` all build a Cast, and `int(x)` is not `CAST(x AS DECIMAL(10,1))`.
 */
class FunctionNames(catalog: SessionCatalog) {
  private val builtins = new ConcurrentHashMap[String, java.lang.Boolean]()

  def same(nameParts: Seq[String], e: Expression): Boolean = {
    val name = nameParts.last
    e match {
      case u: PythonUDF => u.name.equalsIgnoreCase(name)
      case u: ScalaUDF => u.udfName.exists(_.equalsIgnoreCase(name))
      case _ => isBuiltinOrTemp(name) && builds(name, e)
    }
  }

  /** The node a built-in or temporary function builds over `arguments`, as queries resolve it. */
  def build(nameParts: Seq[String], arguments: Seq[Expression]): Option[Expression] = {
    val name = nameParts.last
    if (!isBuiltinOrTemp(name)) None
    else Try(catalog.resolveBuiltinOrTempFunction(name, arguments)).toOption.flatten.map {
      case r: RuntimeReplaceable => r.replacement
      case built => built
    }
  }

  private def isBuiltinOrTemp(name: String): Boolean =
    builtins.computeIfAbsent(name.toLowerCase, n => catalog.lookupBuiltinOrTempFunction(n).isDefined)

  /** Also when the name is rewritten at analysis (`startswith`): the leaf is then its replacement. */
  private def builds(name: String, e: Expression): Boolean =
    Try(catalog.resolveBuiltinOrTempFunction(name, e.children)).toOption.flatten.exists {
      case r: RuntimeReplaceable => NodeArguments.sameNode(r, e) || NodeArguments.sameNode(r.replacement, e)
      case built => NodeArguments.sameNode(built, e)
    }
}
