package io.skipstone.sources

import java.lang.reflect.{InvocationTargetException, Method}
import java.util.concurrent.ConcurrentHashMap

/**
 * Calls into a connector's classes, which Skipstone is not compiled against: a method is found
 * by name and argument types on the object's class, its superclasses or its interfaces,
 * whatever its visibility (connectors keep what Skipstone needs package-private or protected;
 * their jars are on the class path, not in named modules, so access is granted).
 *
 * A method that is missing throws `NoSuchMethodException`: callers decide what a release that
 * renamed something costs (skipping, never a query).
 */
private[sources] object Reflective {
  private val methods = new ConcurrentHashMap[(Class[_], String, Seq[Class[_]]), Method]()

  def call(target: AnyRef, name: String, args: AnyRef*): AnyRef = invoke(target.getClass, target, name, args)

  /** A static method of the class `className`, loaded by the loader of `sibling`'s class. */
  def callStatic(sibling: AnyRef, className: String, name: String, args: AnyRef*): AnyRef =
    invoke(Class.forName(className, true, sibling.getClass.getClassLoader), null, name, args)

  private def invoke(cls: Class[_], target: AnyRef, name: String, args: Seq[AnyRef]): AnyRef = {
    val argTypes = args.map(_.getClass)
    val method = methods.computeIfAbsent((cls, name, argTypes), _ => find(cls, name, argTypes))
    try method.invoke(target, args: _*) catch {
      case e: InvocationTargetException if e.getCause != null => throw e.getCause
    }
  }

  /** The value of the field `name` declared by `target`'s class or a superclass. */
  def field(target: AnyRef, name: String): AnyRef = {
    val field = classes(target.getClass).flatMap(_.getDeclaredFields.find(_.getName == name)).nextOption()
      .getOrElse(throw new NoSuchFieldException(s"${target.getClass.getName}.$name"))
    field.setAccessible(true)
    field.get(target)
  }

  private def classes(cls: Class[_]): Iterator[Class[_]] = Iterator.iterate[Class[_]](cls)(_.getSuperclass).takeWhile(_ != null)

  /** The class chain, then every interface it implements (default methods live there). */
  private def types(cls: Class[_]): Seq[Class[_]] = {
    val chain = classes(cls).toSeq
    val interfaces = Iterator.iterate(chain.flatMap(_.getInterfaces))(_.flatMap(_.getInterfaces)).takeWhile(_.nonEmpty).flatten
    (chain ++ interfaces).distinct
  }

  /** The first method named `name` that takes arguments of these classes (overloads differ by type). */
  private def find(cls: Class[_], name: String, argTypes: Seq[Class[_]]): Method = {
    def takes(m: Method) = m.getParameterCount == argTypes.size &&
      m.getParameterTypes.zip(argTypes).forall { case (param, arg) => boxed(param).isAssignableFrom(arg) }
    val found = types(cls).iterator.flatMap(_.getDeclaredMethods)
      .find(m => m.getName == name && !m.isBridge && takes(m))
      .getOrElse(throw new NoSuchMethodException(s"${cls.getName}.$name(${argTypes.map(_.getSimpleName).mkString(", ")})"))
    found.setAccessible(true)
    found
  }

  private def boxed(cls: Class[_]): Class[_] =
    if (!cls.isPrimitive) cls
    else cls match {
      case java.lang.Long.TYPE => classOf[java.lang.Long]
      case java.lang.Integer.TYPE => classOf[java.lang.Integer]
      case java.lang.Boolean.TYPE => classOf[java.lang.Boolean]
      case _ => cls
    }
}
