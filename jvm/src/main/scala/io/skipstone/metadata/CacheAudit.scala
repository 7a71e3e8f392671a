package io.skipstone.metadata

import java.lang.reflect.Modifier
import java.util.{ArrayDeque, Collections, IdentityHashMap}

import scala.util.Try

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.vectorized.ColumnVector

/**
 * Walks the objects the metadata cache keeps alive, field by field, and counts the
 * SparkSessions among them: the cache is shared by every session of the JVM, so it must hold
 * none (a session it held would never be collected). Used by tests and for diagnosis.
 */
object CacheAudit {
  /** Stop after this many objects: the walk is a check, not a heap dump. */
  private val MaxObjects = 500000

  def sessionsReachable(roots: Seq[AnyRef]): Int = {
    val seen = Collections.newSetFromMap(new IdentityHashMap[AnyRef, java.lang.Boolean]())
    val todo = new ArrayDeque[AnyRef]()
    roots.foreach(todo.add)
    var sessions = 0
    while (!todo.isEmpty && seen.size < MaxObjects) {
      val o = todo.poll()
      if (seen.add(o)) o match {
        case _: SparkSession => sessions += 1
        case _: String | _: ColumnVector | _: Class[_] => // values, not references to sessions
        case a: Array[AnyRef] => a.foreach(x => if (x != null) todo.add(x))
        case a if a.getClass.isArray => // primitive array
        case _ => fields(o.getClass).foreach(f => Try(f.get(o)).toOption.foreach(v => if (v != null) todo.add(v)))
      }
    }
    sessions
  }

  private def fields(c: Class[_]): Seq[java.lang.reflect.Field] =
    Iterator.iterate[Class[_]](c)(_.getSuperclass).takeWhile(_ != null).flatMap(_.getDeclaredFields)
      .filter(f => !Modifier.isStatic(f.getModifiers) && !f.getType.isPrimitive)
      .filter(f => Try(f.setAccessible(true)).isSuccess).toSeq
}
