package io.skipstone.table

import java.util.concurrent.ConcurrentHashMap

/**
 * Named points between the steps of the table operations where tests make the operation die,
 * to prove that whatever step it dies after, the table stays readable with the right rows and
 * rerunning the operation completes. Off unless a test arms one; the names are listed in
 * docs/maintenance.md. The Python steps consult the same registry (skipstone.table.failpoints).
 */
object Failpoints {
  // Armed names and how many more passes through them to let by before failing.
  private val armed = new ConcurrentHashMap[String, Integer]()

  /** The next time the operation reaches `name` after `skip` earlier passes, it fails. */
  def arm(name: String, skip: Int): Unit = armed.put(name, skip)
  def arm(name: String): Unit = arm(name, 0)
  def disarmAll(): Unit = armed.clear()

  /** True (and disarmed) when the failpoint fires now. */
  def fires(name: String): Boolean = {
    var fired = false // set inside the atomic update below
    armed.computeIfPresent(name, (_, left) => if (left <= 0) { fired = true; null } else Integer.valueOf(left - 1))
    fired
  }

  /** Dies here if a test armed `name`, as a killed process would: nothing is cleaned up. */
  def check(name: String): Unit = if (fires(name)) throw new InjectedFailure(name)
}

/** The failure a failpoint injects; no code catches it, so nothing runs that a kill would not run. */
class InjectedFailure(val point: String) extends RuntimeException(s"Skipstone failpoint $point")
