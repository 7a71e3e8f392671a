package io.skipstone.functions

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}

/** SQL functions the extension adds to every session, for clause templates (and users). */
object SkipstoneFunctions {
  private case class Function(name: String, className: String, usage: String, arity: Int,
                              build: Seq[Expression] => Expression)

  private val all = Seq(
    Function(WktBoundingBox.Name, classOf[WktBoundingBox].getName,
      s"${WktBoundingBox.Name}(wkt) - the struct (xmin, ymin, xmax, ymax) of a WKT geometry",
      1, args => WktBoundingBox(args.head)),
  )

  def inject(extensions: SparkSessionExtensions): Unit = all.foreach { f =>
    val info = new ExpressionInfo(f.className, null, f.name, f.usage, "", "", "", "", "", "", "java_udf")
    extensions.injectFunction((FunctionIdentifier(f.name), info, (args: Seq[Expression]) => {
      require(args.length == f.arity, s"${f.name} takes ${f.arity} argument(s), got ${args.length}")
      f.build(args)
    }))
  }
}
